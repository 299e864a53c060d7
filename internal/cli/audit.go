package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/render"
)

type auditOptions struct {
	sourceFlags
	output         outputFlag
	failOn         string
	allowAgents    []string
	devNamespaces  []string
	policySettings string
}

func newAuditCmd(e *env) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "Find GPU hygiene faults (taints, misplaced pods, limits, tolerations, MIG state) with the fix",
		Long: "audit checks the live cluster (read-only; see deploy/rbac) or a snapshot file against the\n" +
			"rules in docs/audit.md and prints each finding with its severity, evidence, $/month at stake\n" +
			"and a kubectl command or YAML patch. With --fail-on it exits 8 when a finding at or above\n" +
			"that severity exists, for CI pipelines.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAudit(cmd.Context(), o, e) },
	}
	def := app.DefaultAuditRequest().Audit
	fs := cmd.Flags()
	o.sourceFlags.register(fs)
	o.output.register(fs, render.AuditFormats)
	fs.StringVar(&o.failOn, "fail-on", "", "exit 8 when a finding at or above this severity exists: info, warning, critical")
	fs.StringSliceVar(&o.allowAgents, "allow-agent", nil, "extra node-agent globs over namespace/owner (e.g. 'logging/fluent-bit'); added to the defaults")
	fs.StringSliceVar(&o.devNamespaces, "dev-namespaces", def.DevNamespaces, "namespace globs where whole GPUs are flagged")
	fs.StringVar(&o.policySettings, "policy-settings", "", "admission settings `FILE` the admission section evaluates (docs/policy.md)")
	return cmd
}

func runAudit(ctx context.Context, o *auditOptions, e *env) error {
	var p flagProblems
	req := app.DefaultAuditRequest()
	req.Data = o.sourceFlags.data(&p)
	req.Audit.NodeAgents = append(append([]string{}, req.Audit.NodeAgents...), o.allowAgents...)
	req.Audit.DevNamespaces = o.devNamespaces
	req.Admission = app.MustLoadAdmissionSettings(o.policySettings)
	var failOn app.Severity
	if o.failOn != "" {
		v, err := app.ParseSeverity(o.failOn)
		if err != nil {
			p.addf("fail-on: %v", err)
		}
		failOn = v
	}
	format := o.output.parse(&p)
	if err := p.check(req.Validate); err != nil {
		return err
	}
	res, err := e.app.Audit(ctx, req)
	if err != nil {
		return err
	}
	if err := render.AuditWithAdmission(e.Out, res.Result, res.Admission, format, e.renderOptions()); err != nil {
		return err
	}
	if failOn != 0 && res.Result.Worst() >= failOn {
		return withCode(ExitFindings, fmt.Errorf("audit: %d critical, %d warning, %d info findings (--fail-on %s)",
			res.Result.Summary.Critical, res.Result.Summary.Warning, res.Result.Summary.Info, failOn))
	}
	return partial(res.Partial)
}
