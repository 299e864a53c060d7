package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
)

// dataFlags are what every analysis reads besides its source: the window
// and the price overrides.
type dataFlags struct {
	window string
	prices string
}

func (f *dataFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.window, "window", "", "analysis window, e.g. 7d or 36h")
	fs.StringVar(&f.prices, "prices", "", "price override file (YAML or CSV): negotiated or on-prem prices")
}

// data is the request's data selection for src.
func (f *dataFlags) data(p *flagProblems, src app.Source) app.Data {
	return app.Data{Source: src, Window: parseWindow(p, f.window), PricesFile: f.prices}
}

// sourceFlags choose where an analysis command reads its snapshot: a file
// (--from), Prometheus history (--prometheus), the embedded simulated
// cluster (--demo), or, with none of them, the live cluster's inventory
// through the kubeconfig.
type sourceFlags struct {
	dataFlags
	promFlags
	kube kubeFlags
	from string
	// maxSnapshot bounds what --from reads (snapshot.ReadOptions).
	maxSnapshot int64
	demo        bool
}

func (f *sourceFlags) register(fs *pflag.FlagSet) {
	f.dataFlags.register(fs)
	f.promFlags.register(fs)
	f.kube.register(fs)
	fs.StringVar(&f.from, "from", "", "snapshot `FILE` to read, written by gpuwise collect or gpuwise demo --save")
	fs.Int64Var(&f.maxSnapshot, "max-snapshot-bytes", app.DefaultMaxSnapshotBytes,
		"largest --from snapshot to read, in decompressed bytes; the node, pod and series limits grow with it")
	fs.BoolVar(&f.demo, "demo", false, "analyse the embedded simulated cluster (the one gpuwise demo reports on)")
}

// data is the snapshot selection the flags describe.
func (f *sourceFlags) data(p *flagProblems) app.Data {
	src := app.Source{File: f.from, MaxSnapshotBytes: f.maxSnapshot, Prometheus: f.promFlags.source(p), Kube: f.kube.KubeSource}
	if f.demo {
		src.Demo = app.DefaultDemo()
	}
	return f.dataFlags.data(p, src)
}

// parseWindow reads a window flag; empty is 0 (the source's default).
func parseWindow(p *flagProblems, s string) time.Duration {
	if s == "" {
		return 0
	}
	d, err := app.ParseWindow(s)
	p.add(err)
	return d
}
