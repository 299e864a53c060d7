package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// Recommend writes right-sizing results in format f, with the part of
// the savings ledger their changes realise (nil: the ledger could not be
// built, and the output says so).
func Recommend(w io.Writer, r *rightsize.Result, part *ledger.Part, f Format, o Options) error {
	if r == nil {
		return fmt.Errorf("rendering recommendations: no recommendations")
	}
	return write(w, "recommendations", f, o, docWriters(recommendDoc(r, part), writers{
		Table: recommendTableDoc(r, part).writeText,
		JSON: func(w io.Writer) error {
			raw, err := recommendationsJSON(r, part)
			if err != nil {
				return err
			}
			return encodeJSON(w, raw)
		},
		YAML: func(w io.Writer) error {
			raw, err := recommendationsJSON(r, part)
			if err != nil {
				return err
			}
			return encodeYAML(w, raw)
		},
		CSV: func(w io.Writer) error { return writeRecommendationsCSV(w, r) },
	}))
}

// recommendationsJSON is recommend's JSON and YAML: the engine's result
// (its own MarshalJSON), then "ledger", the part of the savings ledger its
// changes realise (null when the ledger could not be built).
func recommendationsJSON(r *rightsize.Result, part *ledger.Part) (json.RawMessage, error) {
	rb, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	pb, err := json.Marshal(part)
	if err != nil {
		return nil, err
	}
	out := append(rb[:len(rb)-1:len(rb)-1], `,"ledger":`...)
	return append(append(out, pb...), '}'), nil
}

// ledgerLine says what the recommendations are worth in the ledger.
func ledgerLine(part *ledger.Part) string {
	if part == nil {
		return "Savings ledger: n/a, the ledger could not be built; see `gpuwise advise`"
	}
	acts := "no action"
	if len(part.Actions) > 0 {
		acts = "actions " + strings.Join(part.Actions, ", ")
	}
	return fmt.Sprintf("Savings ledger: these changes realise %s/month once packed, of the ledger's %s/month (%s: %s); see `%s`",
		usdCents(part.SavingUSDMonth), usdCents(part.LedgerSavingUSDMonth), part.Name, acts, part.Command)
}

// freesNote explains the per-change figures.
const freesNote = "FREES $/MONTH is the GPU, CPU and memory cost a change stops holding once the freed capacity is packed away: " +
	"an upper bound per change, not additive, and not in the savings ledger until nodes go away."

// changesLine counts the changes, keep-whole decisions apart.
func changesLine(r *rightsize.Result) string {
	keep := len(keepWhole(r))
	s := fmt.Sprintf("Changes: %d GPU shape(s) and %d container(s); %d workload(s) keep their whole GPUs (decisions, not recommendations)",
		len(r.GPU)-keep, len(r.Containers), keep)
	if r.Unpriced > 0 {
		s += fmt.Sprintf("; %d unpriced (n/a, not $0)", r.Unpriced)
	}
	return s
}

// keepWhole are the workloads that keep their whole GPUs.
func keepWhole(r *rightsize.Result) []rightsize.GPURec {
	var out []rightsize.GPURec
	for _, g := range r.GPU {
		if g.Action == rightsize.KeepWhole {
			out = append(out, g)
		}
	}
	return out
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
			pricedOr(g.MonthlySavingsUSD, g.Priced, "", plainUSD), strconv.FormatBool(g.Priced), string(g.Confidence), g.Reason})
	}
	for _, c := range r.Containers {
		cw.Write([]string{"cpu-memory", c.Workload, c.Container, "resize", containerNow(c), containerTarget(c),
			pricedOr(c.MonthlySavingsUSD, c.Priced, "", plainUSD), strconv.FormatBool(c.Priced), string(c.Confidence), c.Reason})
	}
	for _, k := range r.Skipped {
		cw.Write([]string{"skipped", k.Workload, k.Container, k.Kind, "", "", "", "", "", k.Reason})
	}
	cw.Flush()
	return cw.Error()
}

// maxSkipLines keeps the table's skip list short; json has them all.
const maxSkipLines = 10

// recommendTableDoc is the terminal view: the headline lines, the GPU
// shape changes with why, the whole GPUs kept, the container requests,
// what got no recommendation and the notes.
func recommendTableDoc(r *rightsize.Result, part *ledger.Part) *doc {
	d := &doc{title: "gpuwise recommendations"}
	d.linef("Recommendations (%s window; $/month at 730 h; nothing applied: see `gpuwise generate`)", windowText(r))
	for _, l := range []string{ledgerLine(part), changesLine(r), freesNote} {
		d.line("  " + l)
	}
	gpuTable(d, r)
	if keep := keepWhole(r); len(keep) > 0 {
		d.line("")
		d.linef("Keep the whole GPU (%d workloads; decisions, not recommendations)", len(keep))
		for _, g := range keep {
			d.linef("  %s: %s", g.Workload, g.Reason)
		}
	}
	containerTable(d, r)
	skipLines(d, r)
	if len(r.Notes) > 0 {
		d.line("")
		d.line("Notes")
		for _, n := range r.Notes {
			d.line("  - " + n)
		}
	}
	return d
}

// indented is rows with their first cell indented under a section title.
func indented(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = append([]string{"  " + r[0]}, r[1:]...)
	}
	return out
}

func gpuTable(d *doc, r *rightsize.Result) {
	d.line("")
	d.line("GPU shape changes per workload (largest first)")
	rows := gpuRows(r)
	if len(rows) == 0 {
		d.line("  none")
		return
	}
	cells := make([][]string, len(rows))
	for i, row := range rows {
		cells[i] = row[:6]
	}
	header := []string{"WORKLOAD", "FREES $/MONTH", "PODS", "NOW", "RECOMMENDED", "CONFIDENCE"}
	d.tableTight(indented([][]string{header})[0], indented(cells))
	d.line("")
	d.line("  Why:")
	for _, row := range rows {
		d.linef("  %s: %s", row[0], row[6])
	}
}

// gpuRows are the GPU recommendations, best saving first: workload,
// $/month, pods (running at the window's end, else during it), now,
// recommended, confidence, why. Dollars come second so that a narrow
// terminal cuts descriptions, not them.
func gpuRows(r *rightsize.Result) [][]string {
	var gpus []rightsize.GPURec
	for _, g := range r.GPU {
		if g.Action != rightsize.KeepWhole {
			gpus = append(gpus, g)
		}
	}
	sort.SliceStable(gpus, func(i, j int) bool { return gpus[i].MonthlySavingsUSD > gpus[j].MonthlySavingsUSD })
	rows := make([][]string, 0, len(gpus))
	for _, g := range gpus {
		rows = append(rows, []string{g.Workload, pricedOr(g.MonthlySavingsUSD, g.Priced, "n/a", freesCents), strconv.Itoa(podsNow(g)), gpuNow(g), gpuTarget(g),
			string(g.Confidence), g.Reason})
	}
	return rows
}

func containerTable(d *doc, r *rightsize.Result) {
	d.line("")
	d.line("CPU and memory requests per container (largest first)")
	rows := containerRows(r)
	if len(rows) == 0 {
		d.line("  none")
		return
	}
	header := []string{"WORKLOAD", "CONTAINER", "FREES $/MONTH", "CPU (CORES)", "MEMORY (GIB)", "CONFIDENCE", "NOTE"}
	d.tableTight(indented([][]string{header})[0], indented(rows))
}

// containerRows are the container recommendations, best saving first:
// workload, container, $/month, CPU cores now → recommended, memory GiB
// now → recommended (one unit per column), confidence, note.
func containerRows(r *rightsize.Result) [][]string {
	cs := append([]rightsize.ContainerRec(nil), r.Containers...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].MonthlySavingsUSD > cs[j].MonthlySavingsUSD })
	rows := make([][]string, 0, len(cs))
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
		rows = append(rows, []string{c.Workload, c.Container, pricedOr(c.MonthlySavingsUSD, c.Priced, "n/a", freesCents),
			coresText(c.CurrentCPUMilli) + " → " + coresText(c.CPUMilli), gibText(c.CurrentMemoryBytes) + " → " + gibText(c.MemoryBytes),
			string(c.Confidence), strings.Join(note, ", ")})
	}
	return rows
}

func skipLines(d *doc, r *rightsize.Result) {
	if len(r.Skipped) == 0 {
		return
	}
	d.line("")
	d.linef("No recommendation (%d)", len(r.Skipped))
	for i, k := range r.Skipped {
		if i == maxSkipLines {
			d.linef("  … %d more (all in -o json)", len(r.Skipped)-maxSkipLines)
			break
		}
		d.line("  " + skipText(k))
	}
}

// skipText is one skip: "workload container [kind]: reason".
func skipText(k rightsize.Skip) string {
	what := k.Workload
	if k.Container != "" {
		what += " " + k.Container
	}
	return fmt.Sprintf("%s [%s]: %s", what, k.Kind, k.Reason)
}

func gpuNow(g rightsize.GPURec) string {
	if g.CurrentHAMi != nil {
		return fmt.Sprintf("%d × %s HAMi %s", max(g.GPUsPerPod, 1), g.CurrentModel, hamiAskText(*g.CurrentHAMi))
	}
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
	case rightsize.UseHAMiShare:
		if g.HAMi != nil && g.CurrentHAMi != nil && *g.HAMi == *g.CurrentHAMi {
			return "keep HAMi share"
		}
		if g.HAMi != nil {
			return "HAMi " + hamiAskText(*g.HAMi)
		}
	}
	return "keep whole GPU"
}

// hamiAskText is a HAMi ask in a cell: "25% cores, 6144 MiB".
func hamiAskText(a rightsize.HAMiAsk) string {
	cores := "no core cap"
	if a.CoresPercent > 0 {
		cores = fmt.Sprintf("%d%% cores", a.CoresPercent)
	}
	switch {
	case a.MemoryPercent > 0:
		return fmt.Sprintf("%s, %d%% memory", cores, a.MemoryPercent)
	case a.MemoryMiB > 0:
		return fmt.Sprintf("%s, %d MiB", cores, a.MemoryMiB)
	}
	return cores
}

func containerNow(c rightsize.ContainerRec) string {
	return milliText(c.CurrentCPUMilli) + " CPU, " + bytesQty(c.CurrentMemoryBytes) + " memory"
}

func containerTarget(c rightsize.ContainerRec) string {
	return milliText(c.CPUMilli) + " CPU, " + bytesQty(c.MemoryBytes) + " memory"
}

// podsNow is how many of the workload's pods hold the shape: at the
// window's end, else during it (a whole number, unlike the time-weighted
// average in JSON's pods).
func podsNow(g rightsize.GPURec) int {
	n := 0
	for _, np := range g.Nodes {
		n += np.Pods
	}
	return n
}

// coresText is CPU in cores, two decimals: "4.00", "0.25"; "none" for no
// request.
func coresText(m int64) string {
	switch {
	case m == 0:
		return "none"
	case m < 5:
		return "<0.01"
	}
	return fixed(float64(m)/1000, 2)
}

// gibText is memory in GiB, one decimal: "16.0", "0.5"; "none" for no
// request.
func gibText(b int64) string {
	v := float64(b) / (1 << 30)
	switch {
	case b == 0:
		return "none"
	case v < 0.05:
		return "<0.1"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
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

func windowText(r *rightsize.Result) string {
	h := r.Window.Hours()
	if h >= 24 && math.Mod(h, 24) == 0 {
		return strconv.FormatFloat(h/24, 'f', -1, 64) + "d"
	}
	return strconv.FormatFloat(math.Round(h*10)/10, 'f', -1, 64) + "h"
}

// recommendDoc is the recommendations as a document, for markdown and
// HTML: every skip is listed, not only the first few.
func recommendDoc(r *rightsize.Result, part *ledger.Part) *doc {
	d := &doc{title: "gpuwise recommendations"}
	d.linef("%s window; $/month at 730 h; nothing applied: see `gpuwise generate`.", windowText(r))
	d.line(ledgerLine(part) + ".")
	d.line(changesLine(r) + ".")
	d.line(freesNote)
	d.line("")
	d.heading("GPU shape changes per workload (largest first)")
	d.table([]string{"workload", "frees $/month", "pods", "now", "recommended", "confidence", "why"}, gpuRows(r))
	if keep := keepWhole(r); len(keep) > 0 {
		d.heading(fmt.Sprintf("Keep the whole GPU (%d workloads; decisions, not recommendations)", len(keep)))
		for _, g := range keep {
			d.item(g.Workload + ": " + g.Reason)
		}
		d.line("")
	}
	d.heading("CPU and memory requests per container (largest first)")
	d.table([]string{"workload", "container", "frees $/month", "CPU (cores)", "memory (GiB)", "confidence", "note"}, containerRows(r))
	if len(r.Skipped) > 0 {
		d.heading(fmt.Sprintf("No recommendation (%d)", len(r.Skipped)))
		for _, k := range r.Skipped {
			d.item(skipText(k))
		}
		d.line("")
	}
	if len(r.Notes) > 0 {
		d.heading("Notes")
		for _, n := range r.Notes {
			d.item(n)
		}
	}
	return d
}
