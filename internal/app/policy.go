package app

import (
	"context"
	"fmt"
	"os"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/kube"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// PolicyRequest asks for the admission policies.
type PolicyRequest struct {
	// Data is where the cluster is learnt from (its GPU taint, the GPU
	// Operator's namespace, what the rules would refuse now); nil writes
	// the defaults without reading anything.
	Data *Data
	// Settings are the admission settings (docs/policy.md) loaded at the
	// composition root (LoadAdmissionSettings); they win over what Data
	// taught. nil means none.
	Settings *AdmissionSettings
	// Mode, when set, is every rule's mode unless the file gives a rule its
	// own.
	Mode          policy.Mode
	Engine        policy.Engine
	KyvernoLegacy bool
}

// DefaultPolicyRequest is generate policy with every default.
func DefaultPolicyRequest() PolicyRequest { return PolicyRequest{Engine: policy.Native} }

// Validate lists every problem with the request.
func (r PolicyRequest) Validate() error {
	var p problems
	if r.Data != nil {
		r.Data.validate(&p)
	}
	if _, err := policy.ParseEngine(string(r.Engine)); err != nil {
		p.add(fmt.Errorf("engine: %w", err))
	}
	if r.Mode != "" && r.Mode != policy.Warn && r.Mode != policy.Deny {
		p.add(fmt.Errorf("mode: %q is not warn or deny", r.Mode))
	}
	if r.KyvernoLegacy && r.Engine != policy.Kyverno {
		p.add(fmt.Errorf("kyverno-legacy: only with --engine kyverno"))
	}
	return p.err()
}

// GeneratePolicy writes the admission policies for the engine.
func (a *App) GeneratePolicy(ctx context.Context, req PolicyRequest) (*GenerateResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	l, err := a.policySettings(ctx, req.Data, req.Settings)
	if err != nil {
		return nil, err
	}
	s := l.settings
	if req.Mode != "" {
		s.Mode = req.Mode
	}
	out, err := policy.Generate(s, policy.Options{Engine: req.Engine, KyvernoLegacy: req.KyvernoLegacy})
	if err != nil {
		return nil, withKind(Input, err)
	}
	files, err := generate.Policies(out, req.Engine)
	if err != nil {
		return nil, fmt.Errorf("generating: %w", err)
	}
	notes := append(l.notes, out.Notes...)
	if l.snap != nil {
		notes = append(notes, policy.Preview(s, l.snap.View())...)
	}
	return &GenerateResult{Files: files, Notes: notes, Partial: l.partial}, nil
}

// learnt is the settings for a cluster: the defaults adapted to the source
// and overridden by the settings file, with what was read and noted.
type learnt struct {
	settings policy.Settings
	snap     *cluster.Prepared // nil without a source
	notes    []string
	partial  error
}

func (a *App) policySettings(ctx context.Context, d *Data, adm *AdmissionSettings) (*learnt, error) {
	l := &learnt{settings: policy.Defaults()}
	if d != nil {
		in, err := a.load(ctx, d.Source, d.Window, liveAuditWindow)
		if err != nil {
			return nil, err
		}
		l.snap, l.partial = in.snap, in.partial
		l.settings, l.notes = policy.Learn(l.settings, in.snap.View())
		if live(d.Source) {
			if err := a.checkMutation(d.Source.Kube, l); err != nil {
				return nil, err
			}
		}
	}
	s, err := adm.over(l.settings)
	if err != nil {
		return nil, err
	}
	l.settings = s
	return l, nil
}

// live reports whether the source is the live cluster.
func live(s Source) bool {
	return s.File == "" && len(s.Clusters) == 0 && s.Prometheus == nil && s.Demo == nil && s.Snapshot == nil
}

// checkMutation turns the mutating policy off when the live API server
// does not serve it.
func (a *App) checkMutation(k KubeSource, l *learnt) error {
	c, err := kube.Connect(kube.Options{Kubeconfig: k.Kubeconfig, Context: k.Context, Timeout: k.Timeout})
	if err != nil {
		return kubeError(err)
	}
	ok, err := c.ServesMutatingAdmissionPolicy()
	if err != nil {
		return kubeError(err)
	}
	if !ok {
		l.settings.Mutate = false
		l.notes = append(l.notes, "the API server does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (Kubernetes >= 1.36): "+
			"no mutating policy written; GPU pods need the toleration in their own spec")
	}
	return nil
}

// over is the admission settings decoded over base; a bad file
// is an Input error listing every problem.
func (a *AdmissionSettings) over(base policy.Settings) (policy.Settings, error) {
	switch {
	case a == nil:
		return base, nil
	case a.err != nil:
		return base, a.err
	}
	s, err := config.ParseAdmission(a.file, a.data, base)
	if err != nil {
		return base, withKind(Input, err)
	}
	return s, nil
}

// AdmissionSettings are an admission settings file (docs/policy.md: YAML,
// or a ConfigMap holding it under policy.yaml) read once at the
// composition root. They apply over the settings a use case learnt from
// the cluster, so they are kept as read and decoded over those each time.
// A nil *AdmissionSettings is none. Immutable.
type AdmissionSettings struct {
	file string
	data []byte
	err  error // a read that failed: every use case given it fails with it
}

// LoadAdmissionSettings reads the settings file at path (empty: none, a
// nil result) and checks it over the defaults.
func LoadAdmissionSettings(path string) (*AdmissionSettings, error) {
	a := MustLoadAdmissionSettings(path)
	if a == nil {
		return nil, nil
	}
	if _, err := a.over(policy.Defaults()); err != nil {
		return nil, err
	}
	return a, nil
}

// MustLoadAdmissionSettings is LoadAdmissionSettings for a front end that
// reports a failure when the use case runs: a file that cannot be read is
// kept as its error, and a bad one fails where the settings apply, with
// the file's problems.
func MustLoadAdmissionSettings(path string) *AdmissionSettings {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return &AdmissionSettings{file: path, err: withKind(Input, fmt.Errorf("reading admission settings: %w", err))}
	}
	return &AdmissionSettings{file: path, data: data}
}

// admission is the audit's admission section: what each rule would have
// blocked among the snapshot's pods and, on a live cluster, how the
// cluster enforces it. A refused read of the policies leaves the status
// unknown and comes back as the partial error.
func (a *App) admission(ctx context.Context, src Source, snap *cluster.Prepared, adm *AdmissionSettings) (e *policy.Enforcement, partial, err error) {
	s, notes := policy.Learn(policy.Defaults(), snap.View())
	if s, err = adm.over(s); err != nil {
		return nil, nil, err
	}
	blocked := policy.Evaluate(s, snap.Pods())
	policy.AddClaims(blocked, s.EvaluateClaims(snap.DRA()))
	if !live(src) {
		e = policy.Enforce(nil, blocked)
		e.Notes = append(notes, "policy status is read from a live cluster only (this source is a snapshot)")
		return e, nil, nil
	}
	inst, served, partial := a.installed(ctx, src.Kube)
	e = policy.Enforce(inst, blocked)
	e.Notes = append(notes, e.Notes...)
	switch {
	case partial != nil:
		e.Notes = append(e.Notes, "policy status unknown: "+partial.Error())
	case !served:
		e.Notes = append(e.Notes, "the API server does not serve ValidatingAdmissionPolicy (Kubernetes >= 1.30): no rule can be enforced natively")
	}
	return e, partial, nil
}

// installed reads the cluster's validating policies and bindings (a
// native gpuwise binding carries its rules as labels); inst is nil when
// the server does not serve them (served false) or their lists failed
// (err).
func (a *App) installed(ctx context.Context, k KubeSource) (inst *policy.Installed, served bool, err error) {
	c, err := kube.Connect(kube.Options{Kubeconfig: k.Kubeconfig, Context: k.Context, Timeout: k.Timeout})
	if err != nil {
		return nil, false, kubeError(err)
	}
	adm, err := c.Admission(orBackground(ctx))
	if err != nil {
		return nil, false, kubeError(err)
	}
	if !adm.Served {
		return nil, false, nil
	}
	inst = &policy.Installed{}
	for _, p := range adm.Policies {
		inst.Policies = append(inst.Policies, policy.InstalledPolicy{Name: p.Name, Labels: p.Labels, Annotations: p.Annotations})
	}
	for _, b := range adm.Bindings {
		ib := policy.InstalledBinding{Name: b.Name, PolicyName: b.PolicyName, Actions: b.Actions, Labels: b.Labels}
		if b.ParamName != "" {
			ib.Params = &policy.ParamRef{Namespace: b.ParamNamespace, Name: b.ParamName}
		}
		inst.Bindings = append(inst.Bindings, ib)
	}
	return inst, true, nil
}
