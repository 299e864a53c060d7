package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/kube"
)

// kubeFlags say how a live command reaches the cluster.
type kubeFlags struct {
	kubeconfig string
	context    string
	timeout    time.Duration
}

func (f *kubeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context to use (default: the current context)")
	fs.DurationVar(&f.timeout, "request-timeout", 30*time.Second, "timeout of each Kubernetes API request")
}

// liveSnapshot reads the cluster's inventory over [now-window, now). No
// usage is read: every GPU holding's Activity is nil (unmeasured). Errors
// carry their exit code: ExitUsage/ExitInput for the kubeconfig,
// ExitUnreachable, ExitDenied (401, 403 naming the verb and resource).
func liveSnapshot(ctx context.Context, f *kubeFlags, now time.Time, window time.Duration) (*cluster.Snapshot, error) {
	if f.timeout <= 0 {
		return nil, usageErrorf("request-timeout: must be positive, got %s", f.timeout)
	}
	c, err := kube.Connect(kube.Options{Kubeconfig: f.kubeconfig, Context: f.context, Timeout: f.timeout})
	if err != nil {
		return nil, kubeError(err)
	}
	s, err := c.Snapshot(ctx, now, window)
	if err != nil {
		return nil, kubeError(err)
	}
	return s, nil
}

// kubeError maps the adapter's error classes to exit codes.
func kubeError(err error) error {
	var ce *kube.ConfigError
	if errors.As(err, &ce) {
		if ce.Missing {
			return withCode(ExitUsage, err)
		}
		return withCode(ExitInput, err)
	}
	var ae *kube.APIError
	if errors.As(err, &ae) {
		switch ae.Kind {
		case kube.Unauthorized, kube.Forbidden:
			return withCode(ExitDenied, err)
		case kube.Unreachable:
			return withCode(ExitUnreachable, err)
		}
	}
	return err
}
