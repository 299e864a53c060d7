package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
)

// kubeFlags say how a live command reaches the cluster.
type kubeFlags struct{ app.KubeSource }

func (f *kubeFlags) register(fs *pflag.FlagSet) {
	def := app.DefaultKube()
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster)")
	fs.StringVar(&f.Context, "context", "", "kubeconfig context to use (default: the current context)")
	fs.DurationVar(&f.Timeout, "request-timeout", def.Timeout, "timeout of each Kubernetes API request")
}

// setNames lists the kube flags given a value other than their default.
func (f *kubeFlags) setNames() string {
	var names []string
	if f.Kubeconfig != "" {
		names = append(names, "--kubeconfig")
	}
	if f.Context != "" {
		names = append(names, "--context")
	}
	if f.Timeout != app.DefaultKube().Timeout {
		names = append(names, "--request-timeout")
	}
	return strings.Join(names, ", ")
}

// set says whether any kube flag was given a value other than its default.
func (f *kubeFlags) set() bool { return f.setNames() != "" }
