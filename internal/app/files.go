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
