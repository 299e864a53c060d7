// Command promrule reads a rendered PrometheusRule (monitoring.coreos.com/v1)
// on stdin and writes its spec as a plain Prometheus rules file, which
// `promtool check rules` reads (it refuses the custom resource itself).
// make integration-rules checks the chart's PrometheusRule with it.
package main

import (
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

type promRule struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Spec       map[string]any `json:"spec"`
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "promrule:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	b, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("reading: %w", err)
	}
	var r promRule
	if err := yaml.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("decoding: %w", err)
	}
	if r.APIVersion != "monitoring.coreos.com/v1" || r.Kind != "PrometheusRule" {
		return fmt.Errorf("got %s %s, want a monitoring.coreos.com/v1 PrometheusRule", r.APIVersion, r.Kind)
	}
	if _, ok := r.Spec["groups"]; !ok {
		return fmt.Errorf("the PrometheusRule has no spec.groups")
	}
	y, err := yaml.Marshal(r.Spec)
	if err != nil {
		return fmt.Errorf("encoding: %w", err)
	}
	_, err = out.Write(y)
	return err
}
