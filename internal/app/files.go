package app

import (
	"fmt"
	"os"

	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/generate"
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

// loadPolicies is every section of the policy file in path (each over its
// defaults), or the defaults.
// Policies is a policy file loaded once (LoadPolicies), for a front end
// that keeps it: the service loads it at start and on SIGHUP and hands
// the same value to every request, so that an edit while serving never
// mixes two policies in one answer.
type Policies struct {
	file string
	pols config.Policies
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

// orLoad is the loaded policies, or the file at path loaded now (one
// command, one read).
func (p *Policies) orLoad(path string) (config.Policies, error) {
	if p != nil {
		return p.pols, nil
	}
	return loadPolicies(path)
}

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
