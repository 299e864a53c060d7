package cli

import (
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
