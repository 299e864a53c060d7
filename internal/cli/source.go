package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// sourceFlags choose where an analysis command reads its snapshot: a file
// (--from), Prometheus history (--prometheus), the embedded simulated
// cluster (--demo), or, with none of them, the live cluster's inventory
// through the kubeconfig.
type sourceFlags struct {
	promFlags
	kube  kubeFlags
	from  string
	limit snapshotLimit
	demo  bool
}

func (f *sourceFlags) register(fs *pflag.FlagSet) {
	f.promFlags.register(fs)
	f.kube.register(fs)
	fs.StringVar(&f.from, "from", "", "snapshot file written by `gpuwise collect` or `gpuwise demo --save`")
	f.limit.register(fs)
	fs.BoolVar(&f.demo, "demo", false, "analyse the embedded simulated cluster (what `gpuwise demo` reports on)")
}

// load reads the snapshot for a window (empty: the source's default);
// partial is an ExitPartial error to return once the output is written.
func (f *sourceFlags) load(ctx context.Context, window string) (snap *cluster.Snapshot, partial, err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	n := 0
	for _, set := range []bool{f.from != "", f.url != "", f.demo} {
		if set {
			n++
		}
	}
	if n > 1 {
		return nil, nil, usageErrorf("one source at a time: pass --from FILE, --prometheus URL or --demo")
	}
	switch {
	case f.url != "":
		length, err := windowOr(window, 7*24*time.Hour)
		if err != nil {
			return nil, nil, err
		}
		snap, err = f.fromPrometheus(ctx, length)
		if snap != nil {
			return snap, err, nil
		}
		return nil, nil, err
	case f.demo:
		cfg := sim.DefaultConfig()
		if window != "" {
			if cfg.Window, err = parseWindow(window); err != nil {
				return nil, nil, err
			}
		}
		snap, err = sim.Generate(cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("simulating cluster: %w", err)
		}
		return snap, nil, nil
	case f.from != "":
		if snap, err = f.limit.read(f.from); err != nil {
			return nil, nil, err
		}
		if window != "" {
			d, err := parseWindow(window)
			if err != nil {
				return nil, nil, err
			}
			if have := snap.Window.End.Sub(snap.Window.Start); d != have {
				return nil, nil, usageErrorf("window: %s holds usage summaries for %s; a different --window (%s) needs a new collect", f.from, have, d)
			}
		}
		return snap, nil, nil
	}
	// The live cluster: inventory only, usage unmeasured.
	length, err := windowOr(window, 24*time.Hour)
	if err != nil {
		return nil, nil, err
	}
	snap, err = liveSnapshot(ctx, &f.kube, time.Now().UTC(), length)
	return snap, nil, err
}

func windowOr(window string, def time.Duration) (time.Duration, error) {
	if window == "" {
		return def, nil
	}
	return parseWindow(window)
}
