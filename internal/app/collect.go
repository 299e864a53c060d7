package app

import (
	"context"
	"errors"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// CollectRequest asks for the live cluster's inventory in a file.
type CollectRequest struct {
	Kube KubeSource
	// Window is the span the snapshot covers, ending now.
	Window time.Duration
	// Output is the snapshot file to write (gzip JSON).
	Output string
}

// DefaultCollectRequest is collect with every default.
func DefaultCollectRequest() CollectRequest {
	return CollectRequest{Kube: DefaultKube(), Window: 24 * time.Hour}
}

// Validate lists every problem with the request.
func (r CollectRequest) Validate() error {
	var p problems
	if r.Output == "" {
		p.add(errors.New("collect needs -o FILE"))
	}
	p.add(validateWindow(r.Window, false))
	r.Kube.validate(&p)
	return p.err()
}

// CollectResult is the snapshot that was written.
type CollectResult struct {
	Snapshot *cluster.Snapshot
}

// Collect reads the live cluster's inventory (read-only) and writes it to
// req.Output for offline analysis.
func (a *App) Collect(ctx context.Context, req CollectRequest) (*CollectResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	snap, err := a.liveSnapshot(orBackground(ctx), req.Kube, req.Window)
	if err != nil {
		return nil, err
	}
	a.progress.phase("writing snapshot " + req.Output)
	if err := SaveSnapshot(req.Output, snap); err != nil {
		return nil, err
	}
	return &CollectResult{Snapshot: snap}, nil
}
