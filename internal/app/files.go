package app

import (
	"fmt"
	"os"

	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// loadPrices is the embedded catalog with the overrides in path (if any).
func loadPrices(path string) (*pricing.Catalog, error) {
	catalog := pricing.Embedded()
	if path == "" {
		return catalog, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, withKind(Input, fmt.Errorf("reading price overrides: %w", err))
	}
	o, err := pricing.ParseOverrides(path, data)
	if err != nil {
		return nil, withKind(Input, err)
	}
	return catalog.WithOverrides(o), nil
}

// Policies is the policy file (docs/recommendations.md, docs/capacity.md)
// loaded once at the composition root — per command in the CLI, at start
// and on SIGHUP in the service — and handed to every use case that reads
// it, so that an edit while serving never mixes two policies in one
// answer. A nil *Policies is the defaults. Immutable.
type Policies struct {
	file string
	pols config.Policies
	err  error // a load that failed: every use case given it fails with it
}

// LoadPolicies reads and checks the policy file at path (empty: the
// defaults).
func LoadPolicies(path string) (*Policies, error) {
	pols, err := loadPolicies(path)
	if err != nil {
		return nil, err
	}
	return &Policies{file: path, pols: pols}, nil
}

// MustLoadPolicies is LoadPolicies for a front end that reports a failure
// when the use case runs: the error is kept and returned by every use case
// given these policies.
func MustLoadPolicies(path string) *Policies {
	p, err := LoadPolicies(path)
	if err != nil {
		return &Policies{file: path, err: err}
	}
	return p
}

// get is every section of the policies, the defaults for nil, or the
// load's error.
func (p *Policies) get() (config.Policies, error) {
	switch {
	case p == nil:
		return config.DefaultPolicies(), nil
	case p.err != nil:
		return config.Policies{}, p.err
	}
	return p.pols, nil
}

// ledgerSections sets the savings ledger's autoscaling, commitment and
// reclaim sections from the policies (the right-sizing policy is the
// caller's: advise's may carry its flags' overrides).
func ledgerSections(o *ledger.Options, pols config.Policies) {
	o.Autoscale, o.Commit, o.Reclaim = pols.Autoscale, pols.Commit, pols.Reclaim
}

// name is the policy file's name, for messages ("" for the defaults).
func (p *Policies) name() string {
	if p == nil {
		return ""
	}
	return p.file
}

// loadPolicies is every section of the policy file in path (each over its
// defaults), or the defaults.
func loadPolicies(path string) (config.Policies, error) {
	if path == "" {
		return config.DefaultPolicies(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return config.Policies{}, withKind(Input, fmt.Errorf("reading policy: %w", err))
	}
	pol, err := config.ParsePolicies(path, data)
	if err != nil {
		return config.Policies{}, withKind(Input, err)
	}
	return pol, nil
}

// WriteDir writes generated files under dir; a failure is an Output error.
func WriteDir(dir string, files []generate.File) error {
	return withKind(Output, generate.WriteDir(dir, files))
}
