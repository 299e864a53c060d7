package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/kube"
)

// KubeSource says how to reach the live cluster (read-only).
type KubeSource struct {
	// Kubeconfig is a kubeconfig path; empty means $KUBECONFIG,
	// ~/.kube/config, then in-cluster.
	Kubeconfig string
	// Context is the kubeconfig context; empty means the current one.
	Context string
	// Timeout bounds each API request.
	Timeout time.Duration
}

// DefaultKube returns the documented defaults.
func DefaultKube() KubeSource { return KubeSource{Timeout: 30 * time.Second} }

func (k KubeSource) validate(p *problems) {
	if k.Timeout <= 0 {
		p.add(fmt.Errorf("request-timeout: must be positive, got %s", k.Timeout))
	}
}

// liveSnapshot reads the cluster's inventory over [now-window, now). No
// usage is read: every GPU holding's Activity is nil (unmeasured).
func (a *App) liveSnapshot(ctx context.Context, k KubeSource, window time.Duration) (*cluster.Snapshot, error) {
	c, err := kube.Connect(kube.Options{Kubeconfig: k.Kubeconfig, Context: k.Context, Timeout: k.Timeout})
	if err != nil {
		return nil, kubeError(err)
	}
	c.Progress = a.progress
	s, err := c.Snapshot(ctx, a.now(), window)
	if err != nil {
		return nil, kubeError(err)
	}
	return s, nil
}

// kubeError classifies the adapter's errors: a missing kubeconfig is a
// usage error (say which), a bad one an input error.
func kubeError(err error) error {
	var ce *kube.ConfigError
	if errors.As(err, &ce) {
		if ce.Missing {
			return withKind(Usage, err)
		}
		return withKind(Input, err)
	}
	var ae *kube.APIError
	if errors.As(err, &ae) {
		switch ae.Kind {
		case kube.Unauthorized, kube.Forbidden:
			return withKind(Denied, err)
		case kube.Unreachable:
			return withKind(Unreachable, err)
		}
	}
	return err
}
