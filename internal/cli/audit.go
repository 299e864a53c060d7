package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

type auditOptions struct {
	kubeFlags
	from          string
	output        string
	failOn        string
	prices        string
	allowAgents   []string
	devNamespaces []string
}

func newAuditCmd(s Streams) *cobra.Command {
	o := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit [--from FILE]",
		Short: "Find GPU hygiene faults (taints, misplaced pods, limits, tolerations, MIG state) with the fix",
		Long: "audit checks the live cluster (read-only; see deploy/rbac) or a snapshot file against the\n" +
			"rules in docs/audit.md and prints each finding with its severity, evidence, $/month at stake\n" +
			"and a kubectl command or YAML patch. With --fail-on it exits 8 when a finding at or above\n" +
			"that severity exists, for CI pipelines.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAudit(cmd.Context(), o, s, time.Now()) },
	}
	fs := cmd.Flags()
	o.register(fs)
	fs.StringVar(&o.from, "from", "", "snapshot file to audit instead of the live cluster")
	fs.StringVarP(&o.output, "output", "o", "table", "output format: table, json, yaml, sarif")
	fs.StringVar(&o.failOn, "fail-on", "", "exit 8 when a finding at or above this severity exists: info, warning, critical")
	fs.StringVar(&o.prices, "prices", "", "price override file (YAML or CSV) for the $/month impact")
	fs.StringSliceVar(&o.allowAgents, "allow-agent", nil, "extra node-agent globs over namespace/owner (e.g. 'logging/fluent-bit'); added to the defaults")
	fs.StringSliceVar(&o.devNamespaces, "dev-namespaces", cluster.DefaultDevNamespaces, "namespace globs where whole GPUs are flagged")
	return cmd
}

func runAudit(ctx context.Context, o *auditOptions, s Streams, now time.Time) error {
	var failOn audit.Severity
	var probs []string
	if o.failOn != "" {
		v, err := audit.ParseSeverity(o.failOn)
		if err != nil {
			probs = append(probs, "fail-on: "+err.Error())
		}
		failOn = v
	}
	switch o.output {
	case "table", "json", "yaml", "sarif":
	default:
		probs = append(probs, fmt.Sprintf("output format %q is not one of table, json, yaml, sarif", o.output))
	}
	if len(probs) > 0 {
		return usageErrorf("%s", strings.Join(probs, "; "))
	}
	catalog, err := loadPrices(o.prices)
	if err != nil {
		return err
	}
	snap, err := o.snapshot(ctx, now)
	if err != nil {
		return err
	}
	opts := audit.DefaultOptions(catalog)
	opts.NodeAgents = append(append([]string{}, audit.DefaultNodeAgents...), o.allowAgents...)
	opts.DevNamespaces = o.devNamespaces
	if err := opts.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	res := audit.Run(snap, opts)
	if err := writeAudit(s, res, o.output); err != nil {
		return err
	}
	if failOn != 0 && res.Worst() >= failOn {
		return withCode(ExitFindings, fmt.Errorf("audit: %d critical, %d warning, %d info findings (--fail-on %s)",
			res.Summary.Critical, res.Summary.Warning, res.Summary.Info, failOn))
	}
	return nil
}

func (o *auditOptions) snapshot(ctx context.Context, now time.Time) (*cluster.Prepared, error) {
	if o.from != "" {
		snap, err := snapshot.ReadFile(o.from)
		if err != nil {
			return nil, inputError(err)
		}
		return prepare(snap)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	snap, err := liveSnapshot(ctx, &o.kubeFlags, now, time.Hour)
	if err != nil {
		return nil, err
	}
	return prepare(snap)
}

func writeAudit(s Streams, res *audit.Result, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	case "yaml":
		b, err := yaml.Marshal(res)
		if err != nil {
			return fmt.Errorf("encoding audit: %w", err)
		}
		_, err = s.Out.Write(b)
		return err
	case "sarif":
		return audit.WriteSARIF(s.Out, res, Version)
	}
	return audit.WriteTable(s.Out, res)
}
