package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/render"
)

// reportFlags are the flags every analysis command shares.
type reportFlags struct {
	output        string
	by            string
	idleShare     string
	idleThreshold float64
	window        string
	prices        string
	top           int
}

func (f *reportFlags) register(fs *pflag.FlagSet) {
	alloc, rep := cost.DefaultOptions(nil), cost.DefaultReportOptions()
	fs.StringVarP(&f.output, "output", "o", "table", "output format: table, json, csv, markdown, html")
	fs.StringVar(&f.by, "by", rep.By, "group rows by namespace, workload, pod, node, gpu-model, capacity-type or label:KEY")
	fs.StringVar(&f.idleShare, "idle-share", string(alloc.IdleShare), "where unallocated cost goes: none (own rows), node, cluster")
	fs.Float64Var(&f.idleThreshold, "idle-threshold", alloc.IdleThreshold, "activity below which a GPU counts as idle (0-1)")
	fs.StringVar(&f.window, "window", "", "analysis window, e.g. 7d or 36h")
	fs.StringVar(&f.prices, "prices", "", "price override file (YAML or CSV): negotiated or on-prem prices")
	fs.IntVar(&f.top, "top", rep.TopN, "how many workloads the idle leaderboard shows")
}

// costOptions builds and validates the engine options, listing every
// problem at once.
func (f *reportFlags) costOptions() (cost.Options, cost.ReportOptions, render.Format, error) {
	format, ferr := render.ParseFormat(f.output)
	catalog, perr := loadPrices(f.prices)
	if perr != nil {
		return cost.Options{}, cost.ReportOptions{}, "", perr
	}
	opts := cost.DefaultOptions(catalog)
	opts.IdleShare, opts.IdleThreshold = cost.IdleShare(f.idleShare), f.idleThreshold
	ropts := cost.ReportOptions{By: f.by, TopN: f.top}
	var probs []string
	for _, err := range []error{ferr, opts.Validate(), ropts.Validate()} {
		if err != nil {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) > 0 {
		return opts, ropts, format, usageErrorf("%s", strings.Join(probs, "; "))
	}
	return opts, ropts, format, nil
}

func loadPrices(path string) (*pricing.Catalog, error) {
	catalog := pricing.Embedded()
	if path == "" {
		return catalog, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputError(fmt.Errorf("reading price overrides: %w", err))
	}
	o, err := pricing.ParseOverrides(path, data)
	if err != nil {
		return nil, inputError(err)
	}
	return catalog.WithOverrides(o), nil
}

// parseWindow reads "7d", "36h", "90m" or any Go duration.
func parseWindow(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n <= 0 {
			return 0, usageErrorf("window: %q is not a positive number of days (e.g. 7d)", s)
		}
		return time.Duration(n * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usageErrorf("window: %q is not a positive duration (e.g. 7d, 36h)", s)
	}
	return d, nil
}
