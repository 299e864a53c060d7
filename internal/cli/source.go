package cli

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/app"
)

// dataFlags are what every analysis reads besides its source: the window,
// the price overrides and the cloud bill.
type dataFlags struct {
	window string
	prices string
	bills  []string
}

func (f *dataFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.window, "window", "", "analysis window, e.g. 7d or 36h")
	fs.StringVar(&f.prices, "prices", "", "price override file (YAML or CSV): negotiated or on-prem prices")
	registerBill(fs, &f.bills)
}

// registerBill adds --bill: the one spelling every pricing command uses.
func registerBill(fs *pflag.FlagSet, bills *[]string) {
	fs.StringSliceVar(bills, "bill", nil, "cloud billing export `FILE`s (FOCUS 1.0-1.2 or AWS CUR 2.0; CSV, gzip CSV or Parquet; repeat or comma-separate): "+
		"node-hours the bill covers are priced at its effective (amortized) rates, the catalog prices the rest")
}

// data is the request's data selection for src, its prices loaded once
// for the command (a file that cannot be read fails the use case, exit 3).
func (f *dataFlags) data(p *flagProblems, src app.Source) app.Data {
	return app.Data{Source: src, Window: parseWindow(p, f.window), Prices: app.MustLoadPrices(f.prices, f.bills)}
}

// sourceFlags choose where an analysis command reads its snapshot: a file
// (--from), Prometheus history (--prometheus), the embedded simulated
// cluster (--demo), or, with none of them, the live cluster's inventory
// through the kubeconfig.
type sourceFlags struct {
	dataFlags
	promFlags
	kube kubeFlags
	from []string
	// maxSnapshot bounds what --from reads (snapshot.ReadOptions).
	maxSnapshot int64
	demo        bool
	// scale sizes --demo (app.DemoSource.Scale); refused without it.
	scale int
}

func (f *sourceFlags) register(fs *pflag.FlagSet) {
	f.dataFlags.register(fs)
	f.promFlags.register(fs)
	f.kube.register(fs)
	fs.StringArrayVar(&f.from, "from", nil, "snapshot `FILE` to read, written by gpuwise collect or gpuwise demo --save; repeat it (NAME=FILE) to merge clusters, split again with --by cluster")
	fs.Int64Var(&f.maxSnapshot, "max-snapshot-bytes", app.DefaultMaxSnapshotBytes,
		"largest --from snapshot to read, in decompressed bytes; the node, pod and series limits grow with it")
	fs.BoolVar(&f.demo, "demo", false, "analyse the embedded simulated cluster (the one gpuwise demo reports on)")
	fs.IntVar(&f.scale, "scale", app.DefaultDemo().Scale, "with --demo: cluster size multiplier, in copies of the demo cell (gpuwise inventory --demo counts one)")
}

// data is the snapshot selection the flags describe.
func (f *sourceFlags) data(p *flagProblems) app.Data {
	src := app.Source{MaxSnapshotBytes: f.maxSnapshot, Prometheus: f.promFlags.source(p), Kube: f.kube.KubeSource}
	switch {
	case len(f.from) == 1 && !strings.Contains(f.from[0], "="):
		src.File = f.from[0]
	case len(f.from) > 0:
		for _, v := range f.from {
			src.Clusters = append(src.Clusters, app.ParseClusterFile(v))
		}
	}
	if (len(f.from) > 0 || f.demo) && f.kube.set() {
		p.addf("%s: for a live cluster, which --from and --demo do not read: drop them, or drop --from/--demo to read the cluster", f.kube.setNames())
	}
	switch {
	case f.demo:
		src.Demo = app.DefaultDemo()
		src.Demo.Scale = f.scale
	case f.scale != app.DefaultDemo().Scale:
		p.addf("--scale sizes the simulated cluster: it needs --demo")
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
