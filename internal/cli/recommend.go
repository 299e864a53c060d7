package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/config"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/render"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// recommendFlags are shared by recommend and generate: where the snapshot
// comes from, the policy and the prices.
type recommendFlags struct {
	sourceFlags
	window string
	prices string
	policy string
	// loaded is the policy recommend used (defaults or --policy).
	loaded rightsize.Policy
}

func (f *recommendFlags) register(fs *pflag.FlagSet) {
	f.sourceFlags.register(fs)
	fs.StringVar(&f.window, "window", "", "analysis window, e.g. 7d or 36h")
	fs.StringVar(&f.prices, "prices", "", "price override file (YAML or CSV): negotiated or on-prem prices")
	fs.StringVar(&f.policy, "policy", "", "recommendation policy file (YAML or JSON); see docs/recommendations.md")
}

// recommend loads the snapshot and runs the engine; partial is an
// ExitPartial error to return once the output is written.
func (f *recommendFlags) recommend(ctx context.Context) (r *rightsize.Result, prep *cluster.Prepared, partial, err error) {
	pol := rightsize.DefaultPolicy()
	if f.policy != "" {
		data, err := os.ReadFile(f.policy)
		if err != nil {
			return nil, nil, nil, inputError(fmt.Errorf("reading policy: %w", err))
		}
		if pol, err = config.ParsePolicy(f.policy, data); err != nil {
			return nil, nil, nil, inputError(err)
		}
	}
	f.loaded = pol
	catalog, err := loadPrices(f.prices)
	if err != nil {
		return nil, nil, nil, err
	}
	snap, partial, err := f.load(ctx, f.window)
	if err != nil {
		return nil, nil, nil, err
	}
	if prep, err = prepare(snap); err != nil {
		return nil, nil, nil, err
	}
	r, err = rightsize.Recommend(prep, pol, catalog)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("recommending: %w", err)
	}
	return r, prep, partial, nil
}

// recommendationSummary is the report's recommendations line: the
// default policy on the report's (prepared) snapshot and prices. Nil when
// the prices cannot list offers (a test fake): the report then says
// nothing rather than $0.
func recommendationSummary(snap *cluster.Prepared, prices pricing.Pricer) *render.Recommendations {
	p, ok := prices.(rightsize.Prices)
	if !ok || snap == nil {
		return nil
	}
	r, err := rightsize.Recommend(snap, rightsize.DefaultPolicy(), p)
	if err != nil {
		return nil
	}
	return &render.Recommendations{MonthlySavingsUSD: r.MonthlySavingsUSD, Count: len(r.GPU) + len(r.Containers),
		Unpriced: r.Unpriced, Skipped: len(r.Skipped), Command: "gpuwise recommend"}
}

type recommendOptions struct {
	recommendFlags
	output string
}

// recommendFormats are the output formats of recommend.
var recommendFormats = []string{"table", "json", "yaml", "csv"}

func newRecommendCmd(s Streams) *cobra.Command {
	o := &recommendOptions{}
	cmd := &cobra.Command{
		Use:   "recommend [--from FILE | --prometheus URL | --demo | --context CTX]",
		Short: "Recommend CPU/memory requests per container and a GPU shape per workload, with evidence and $/month",
		Long: "recommend sizes every container's CPU and memory requests from measured usage (p95 CPU, p99\n" +
			"memory + 20%, OOM bump) and picks a GPU shape per workload: keep the whole GPU, a MIG profile,\n" +
			"a time-slice share (dev and notebook namespaces only) or a cheaper GPU model from the price\n" +
			"catalog. Each recommendation carries its evidence, a confidence and $/month saved; too little\n" +
			"data gives no recommendation and the reason. Nothing is applied: `gpuwise generate` writes the\n" +
			"manifests. Policy and formulas: docs/recommendations.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRecommend(cmd.Context(), o, s) },
	}
	o.recommendFlags.register(cmd.Flags())
	cmd.Flags().StringVarP(&o.output, "output", "o", "table", "output format: "+strings.Join(recommendFormats, ", "))
	return cmd
}

func runRecommend(ctx context.Context, o *recommendOptions, s Streams) error {
	format := strings.ToLower(o.output)
	if !containsFormat(format) {
		return usageErrorf("output format %q is not one of %s", o.output, strings.Join(recommendFormats, ", "))
	}
	r, _, partial, err := o.recommend(ctx)
	if err != nil {
		return err
	}
	if err := writeRecommendations(s.Out, r, format); err != nil {
		return fmt.Errorf("writing %s recommendations: %w", format, err)
	}
	return partial
}

func containsFormat(f string) bool {
	for _, v := range recommendFormats {
		if v == f {
			return true
		}
	}
	return false
}

func writeRecommendations(w io.Writer, r *rightsize.Result, format string) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "yaml":
		b, err := json.Marshal(r)
		if err == nil {
			b, err = yaml.JSONToYAML(b)
		}
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "csv":
		return writeRecommendationsCSV(w, r)
	}
	return writeRecommendationsTable(w, r)
}

// recommendCSVHeader names the CSV columns; their order is stable.
var recommendCSVHeader = []string{"kind", "workload", "container", "action", "current", "recommended",
	"monthly_savings_usd", "priced", "confidence", "reason"}

// writeRecommendationsCSV writes one row per GPU shape, container and
// skip (kind gpu, cpu-memory, skipped); unpriced savings are empty.
func writeRecommendationsCSV(w io.Writer, r *rightsize.Result) error {
	cw := csv.NewWriter(w)
	cw.Write(recommendCSVHeader)
	for _, g := range r.GPU {
		cw.Write([]string{"gpu", g.Workload, g.Container, string(g.Action), gpuNow(g), gpuTarget(g),
			savingsCell(g.MonthlySavingsUSD, g.Priced), strconv.FormatBool(g.Priced), string(g.Confidence), g.Reason})
	}
	for _, c := range r.Containers {
		cw.Write([]string{"cpu-memory", c.Workload, c.Container, "resize", containerNow(c), containerTarget(c),
			savingsCell(c.MonthlySavingsUSD, c.Priced), strconv.FormatBool(c.Priced), string(c.Confidence), c.Reason})
	}
	for _, k := range r.Skipped {
		cw.Write([]string{"skipped", k.Workload, k.Container, k.Kind, "", "", "", "", "", k.Reason})
	}
	cw.Flush()
	return cw.Error()
}

func savingsCell(v float64, priced bool) string {
	if !priced {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// maxSkipLines keeps the table's skip list short; json has them all.
const maxSkipLines = 10

func writeRecommendationsTable(w io.Writer, r *rightsize.Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Recommendations (%s window; $/month at 730 h; nothing applied: see `gpuwise generate`)\n", windowText(r))
	fmt.Fprintf(&b, "  Total  %s/month from %d GPU shapes and %d containers", usdText(r.MonthlySavingsUSD), len(r.GPU), len(r.Containers))
	if r.Unpriced > 0 {
		fmt.Fprintf(&b, "; %d unpriced (n/a, not $0)", r.Unpriced)
	}
	b.WriteString("\n")
	writeGPUTable(&b, r)
	writeContainerTable(&b, r)
	writeSkips(&b, r)
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes\n")
		for _, n := range r.Notes {
			b.WriteString("  - " + n + "\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeGPUTable(b *bytes.Buffer, r *rightsize.Result) {
	gpus := append([]rightsize.GPURec(nil), r.GPU...)
	sort.SliceStable(gpus, func(i, j int) bool { return gpus[i].MonthlySavingsUSD > gpus[j].MonthlySavingsUSD })
	b.WriteString("\nGPU shape per workload (best saving first)\n")
	if len(gpus) == 0 {
		b.WriteString("  none\n")
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  WORKLOAD\tPODS\tNOW\tRECOMMENDED\t$/MONTH\tCONFIDENCE")
	for _, g := range gpus {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", g.Workload, strconv.FormatFloat(g.Pods, 'f', 2, 64), gpuNow(g), gpuTarget(g),
			moneyCell(g.MonthlySavingsUSD, g.Priced), g.Confidence)
	}
	tw.Flush()
	b.WriteString("\n  Why:\n")
	for _, g := range gpus {
		fmt.Fprintf(b, "  %s: %s\n", g.Workload, g.Reason)
	}
}

func writeContainerTable(b *bytes.Buffer, r *rightsize.Result) {
	cs := append([]rightsize.ContainerRec(nil), r.Containers...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].MonthlySavingsUSD > cs[j].MonthlySavingsUSD })
	b.WriteString("\nCPU and memory requests per container (best saving first)\n")
	if len(cs) == 0 {
		b.WriteString("  none\n")
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  WORKLOAD\tCONTAINER\tCPU\tMEMORY\t$/MONTH\tCONFIDENCE\tNOTE")
	for _, c := range cs {
		var note []string
		if c.RoundNumber {
			note = append(note, "round-number request")
		}
		if c.OOMBumped {
			note = append(note, "OOM-killed: bumped")
		}
		if c.CPUStarved {
			note = append(note, "CPU-starved GPU: raised")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\t%s → %s\t%s\t%s\t%s\n", c.Workload, c.Container,
			milliText(c.CurrentCPUMilli), milliText(c.CPUMilli), bytesQty(c.CurrentMemoryBytes), bytesQty(c.MemoryBytes),
			moneyCell(c.MonthlySavingsUSD, c.Priced), c.Confidence, strings.Join(note, ", "))
	}
	tw.Flush()
}

func writeSkips(b *bytes.Buffer, r *rightsize.Result) {
	if len(r.Skipped) == 0 {
		return
	}
	fmt.Fprintf(b, "\nNo recommendation (%d)\n", len(r.Skipped))
	for i, k := range r.Skipped {
		if i == maxSkipLines {
			fmt.Fprintf(b, "  … %d more (all in -o json)\n", len(r.Skipped)-maxSkipLines)
			break
		}
		what := k.Workload
		if k.Container != "" {
			what += " " + k.Container
		}
		fmt.Fprintf(b, "  %s [%s]: %s\n", what, k.Kind, k.Reason)
	}
}

func gpuNow(g rightsize.GPURec) string {
	return fmt.Sprintf("%d × %s %s", max(g.GPUsPerPod, 1), g.CurrentModel, g.CurrentResource)
}

func gpuTarget(g rightsize.GPURec) string {
	switch g.Action {
	case rightsize.UseMIG:
		return "MIG " + g.Profile + " on " + g.TargetModel
	case rightsize.UseTimeSlice:
		return fmt.Sprintf("time-slice 1/%d of %s", g.Replicas, g.TargetModel)
	case rightsize.CheaperModel:
		return g.TargetModel + " (" + g.TargetInstanceType + ")"
	}
	return "keep whole GPU"
}

func containerNow(c rightsize.ContainerRec) string {
	return milliText(c.CurrentCPUMilli) + " CPU, " + bytesQty(c.CurrentMemoryBytes) + " memory"
}

func containerTarget(c rightsize.ContainerRec) string {
	return milliText(c.CPUMilli) + " CPU, " + bytesQty(c.MemoryBytes) + " memory"
}

func milliText(m int64) string {
	if m == 0 {
		return "none"
	}
	if m%1000 == 0 {
		return strconv.FormatInt(m/1000, 10)
	}
	return strconv.FormatInt(m, 10) + "m"
}

// bytesQty writes bytes as a Kubernetes quantity in Mi or Gi.
func bytesQty(b int64) string {
	switch {
	case b == 0:
		return "none"
	case b%(1<<30) == 0:
		return strconv.FormatInt(b>>30, 10) + "Gi"
	}
	return strconv.FormatInt(int64(math.Ceil(float64(b)/(1<<20))), 10) + "Mi"
}

func moneyCell(v float64, priced bool) string {
	if !priced {
		return "n/a"
	}
	return usdText(v)
}

// usdText writes dollars with thousands separators: "$12,345.67", "-$5.00".
func usdText(v float64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return sign + "$" + whole + "." + frac
}

func windowText(r *rightsize.Result) string {
	h := r.Window.Hours()
	if h >= 24 && math.Mod(h, 24) == 0 {
		return strconv.FormatFloat(h/24, 'f', -1, 64) + "d"
	}
	return strconv.FormatFloat(math.Round(h*10)/10, 'f', -1, 64) + "h"
}
