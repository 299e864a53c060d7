package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/packbench"
	"github.com/gpuwise/gpuwise/internal/trace"
)

// packbenchOptions are the flags of the packbench command.
type packbenchOptions struct {
	Nodes     string
	Pods      string
	Policy    string
	Seeds     string
	MaxDemand int
	Tune      float64
	Mix       string
	Output    string
	Metric    string
	Jobs      int
	Timing    bool
}

func newPackbenchCmd(out io.Writer) *cobra.Command {
	o := &packbenchOptions{Policy: packbench.Gpuwise, Seeds: "42-51", MaxDemand: 130, Tune: packbench.DefaultTune,
		Mix: "default", Output: "csv", Metric: "alloc", Jobs: runtime.GOMAXPROCS(0)}
	cmd := &cobra.Command{
		Use:   "packbench --nodes FILE --pods FILE",
		Short: "Replay the FGD paper's placement benchmark (ATC'23) on an openb trace",
		Long: "packbench runs one placement policy on the openb trace under the FGD paper's protocol:\n" +
			"the GPU nodes of --nodes; the pods of --pods shuffled per seed, then resampled until demand\n" +
			"reaches --tune × GPU capacity; one pod at a time, no migration, no departures, pods that fit\n" +
			"nowhere dropped. Columns 0..--max-demand are the GPU allocation ratio (--metric alloc) or\n" +
			"fragmentation (--metric frag), in % of cluster GPUs, when k% of capacity has arrived.\n" +
			"-o csv writes one row per seed in the layout of the published fgd_results_*_default.csv;\n" +
			"-o json writes the seeds' mean curves of both metrics.",
		RunE: runE(func() error { return runPackbench(o, out, os.Stderr) }),
	}
	f := cmd.Flags()
	f.StringVar(&o.Nodes, "nodes", "", "openb node list CSV, e.g. openb_node_list_gpu_node.csv (required)")
	f.StringVar(&o.Pods, "pods", "", "openb pod list CSV, 11-column (openb_pod_list_default.csv) or 5-column variant (required)")
	f.StringVar(&o.Policy, "policy", o.Policy, "placement policy: "+strings.Join(packbench.Policies, ", "))
	f.StringVar(&o.Seeds, "seeds", o.Seeds, "seeds: a range 42-51, a seed 42 or a list 42,45")
	f.IntVar(&o.MaxDemand, "max-demand", o.MaxDemand, "last column, in % of GPU capacity arrived")
	f.Float64Var(&o.Tune, "tune", o.Tune, "demand target as a multiple of GPU capacity")
	f.StringVar(&o.Mix, "mix", o.Mix, "workload mix derived from --pods: "+mixNames())
	f.StringVarP(&o.Output, "output", "o", o.Output, "output format: csv or json")
	f.StringVar(&o.Metric, "metric", o.Metric, "csv metric: alloc or frag")
	f.IntVar(&o.Jobs, "jobs", o.Jobs, "seeds run at once")
	f.BoolVar(&o.Timing, "timing", false, "print each seed's wall time to stderr")
	return cmd
}

func mixNames() string {
	names := make([]string, len(packbench.Mixes))
	for i, m := range packbench.Mixes {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// validate checks every flag and returns the parsed seeds and mix.
func (o *packbenchOptions) validate() ([]int64, packbench.Mix, error) {
	var errs []error
	if o.Nodes == "" {
		errs = append(errs, errors.New("--nodes: required (an openb node list such as openb_node_list_gpu_node.csv)"))
	}
	if o.Pods == "" {
		errs = append(errs, errors.New("--pods: required (an openb pod list such as openb_pod_list_default.csv)"))
	}
	if !slices.Contains(packbench.Policies, o.Policy) {
		errs = append(errs, fmt.Errorf("--policy: %q is not one of %s", o.Policy, strings.Join(packbench.Policies, ", ")))
	}
	seeds, err := parseSeeds(o.Seeds)
	if err != nil {
		errs = append(errs, fmt.Errorf("--seeds: %w", err))
	}
	if o.MaxDemand < 0 || o.MaxDemand > 1000 {
		errs = append(errs, fmt.Errorf("--max-demand: %d is outside 0..1000", o.MaxDemand))
	}
	if o.Tune <= 0 || o.Tune > 10 {
		errs = append(errs, fmt.Errorf("--tune: %v is outside (0, 10]", o.Tune))
	}
	mix, err := packbench.MixByName(o.Mix)
	if err != nil {
		errs = append(errs, fmt.Errorf("--mix: %w", err))
	}
	if o.Output != "csv" && o.Output != "json" {
		errs = append(errs, fmt.Errorf("-o: %q is not csv or json", o.Output))
	}
	if o.Metric != "alloc" && o.Metric != "frag" {
		errs = append(errs, fmt.Errorf("--metric: %q is not alloc or frag", o.Metric))
	}
	if o.Jobs < 1 {
		errs = append(errs, fmt.Errorf("--jobs: %d is below 1", o.Jobs))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, mix, usageError{err}
	}
	return seeds, mix, nil
}

// parseSeeds reads "42-51", "42" or "42,45" (and mixes like "42-45,50").
func parseSeeds(s string) ([]int64, error) {
	bad := func(why string) error {
		return fmt.Errorf("%q %s; want a range like 42-51, a seed like 42 or a list like 42,45", s, why)
	}
	var seeds []int64
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			return nil, bad(fmt.Sprintf("has %q, not a seed", part))
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil {
				return nil, bad(fmt.Sprintf("has %q, not a range", part))
			}
		}
		if b < a || b-a >= 10000 {
			return nil, bad(fmt.Sprintf("has the range %q, which must go up and span at most 10000 seeds", part))
		}
		for x := a; x <= b; x++ {
			seeds = append(seeds, x)
		}
	}
	return seeds, nil
}

// seedRun is one seed's curves and wall time.
type seedRun struct {
	seed        int64
	alloc, frag packbench.Curve
	wall        time.Duration
}

func runPackbench(o *packbenchOptions, out, errOut io.Writer) error {
	seeds, mix, err := o.validate()
	if err != nil {
		return err
	}
	nodes, pods, err := readPackbenchInput(o.Nodes, o.Pods)
	if err != nil {
		return err
	}
	pods = mix.Apply(nodes, pods)
	runs, err := runSeeds(o, nodes, pods, seeds)
	if err != nil {
		return err
	}
	if o.Timing {
		for _, r := range runs {
			fmt.Fprintf(errOut, "%s seed %d: %s\n", o.Policy, r.seed, r.wall.Round(time.Millisecond))
		}
	}
	var buf bytes.Buffer
	if o.Output == "json" {
		err = writePackbenchJSON(&buf, o, runs)
	} else {
		err = writePackbenchCSV(&buf, o, runs)
	}
	if err != nil {
		return err
	}
	_, err = out.Write(buf.Bytes())
	return err
}

// readPackbenchInput reads and converts the node and pod lists; its errors
// are input errors.
func readPackbenchInput(nodesPath, podsPath string) ([]packbench.Node, []packbench.Pod, error) {
	nodes, pods, err := readPackbenchFiles(nodesPath, podsPath)
	if err != nil {
		return nil, nil, inputError{err}
	}
	return nodes, pods, nil
}

func readPackbenchFiles(nodesPath, podsPath string) ([]packbench.Node, []packbench.Pod, error) {
	nrows, err := readOpenBCSV(nodesPath, trace.ReadOpenBNodes)
	if err != nil {
		return nil, nil, err
	}
	prows, err := readOpenBCSV(podsPath, trace.ReadOpenBPods)
	if err != nil {
		return nil, nil, err
	}
	nodes, err := packbench.NodesFromOpenB(nrows)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", nodesPath, err)
	}
	if len(prows) == 0 {
		return nil, nil, fmt.Errorf("%s: no pods", podsPath)
	}
	return nodes, packbench.PodsFromOpenB(prows), nil
}

func readOpenBCSV[T any](path string, read func(io.Reader) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// runSeeds runs the seeds, o.Jobs at a time, in seed order.
func runSeeds(o *packbenchOptions, nodes []packbench.Node, pods []packbench.Pod, seeds []int64) ([]seedRun, error) {
	runs := make([]seedRun, len(seeds))
	errs := make([]error, len(seeds))
	sem := make(chan struct{}, o.Jobs)
	var wg sync.WaitGroup
	for i, seed := range seeds {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			res, err := packbench.Run(packbench.Config{Nodes: nodes, Pods: pods, Policy: o.Policy, Seed: seed, Tune: o.Tune})
			if err != nil {
				errs[i] = fmt.Errorf("seed %d: %w", seed, err)
				return
			}
			a, f := packbench.Curves(res, o.MaxDemand)
			runs[i] = seedRun{seed: seed, alloc: a, frag: f, wall: time.Since(start)}
		})
	}
	wg.Wait()
	return runs, errors.Join(errs...)
}

// workloadName is the csv's workload column: the pod file's base name,
// plus the mix when it is not the trace itself.
func workloadName(o *packbenchOptions) string {
	name := strings.TrimSuffix(filepath.Base(o.Pods), ".csv")
	if o.Mix != "default" {
		name += "+" + o.Mix
	}
	return name
}

// writePackbenchCSV writes one row per seed: workload,sc_policy,tune,seed,
// then total_gpus for alloc (the published frag file has no such column),
// then columns 0..max-demand; a column with no event near it is empty.
func writePackbenchCSV(w io.Writer, o *packbenchOptions, runs []seedRun) error {
	cw := csv.NewWriter(w)
	header := []string{"workload", "sc_policy", "tune", "seed"}
	if o.Metric == "alloc" {
		header = append(header, "total_gpus")
	}
	for k := 0; k <= o.MaxDemand; k++ {
		header = append(header, strconv.Itoa(k))
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	gpus, err := packbenchGPUs(o.Nodes)
	if err != nil {
		return err
	}
	for _, r := range runs {
		row := []string{workloadName(o), o.Policy, strconv.FormatFloat(o.Tune, 'f', -1, 64), strconv.FormatInt(r.seed, 10)}
		if o.Metric == "alloc" {
			row = append(row, strconv.Itoa(gpus))
		}
		c := r.alloc
		if o.Metric == "frag" {
			c = r.frag
		}
		for k := range c.Value {
			row = append(row, csvCell(c, k))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// packbenchGPUs counts the GPUs of the node list again, for the csv column.
func packbenchGPUs(path string) (int, error) {
	rows, err := readOpenBCSV(path, trace.ReadOpenBNodes)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		n += r.GPUs
	}
	return n, nil
}

// csvCell prints a value as pandas does (12.0, 2.01).
func csvCell(c packbench.Curve, k int) string {
	if !c.Has[k] {
		return ""
	}
	s := strconv.FormatFloat(c.Value[k], 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// packbenchJSON is the -o json document.
type packbenchJSON struct {
	Policy    string      `json:"policy"`
	Workload  string      `json:"workload"`
	Tune      float64     `json:"tune"`
	Seeds     []int64     `json:"seeds"`
	MeanAlloc columnsJSON `json:"mean_alloc"`
	MeanFrag  columnsJSON `json:"mean_frag"`
}

// columnsJSON is an object keyed "0".."max" in column order; absent
// columns are null.
type columnsJSON packbench.Curve

func (c columnsJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for k := range c.Value {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", strconv.Itoa(k))
		if c.Has[k] {
			b.WriteString(strconv.FormatFloat(c.Value[k], 'f', -1, 64))
		} else {
			b.WriteString("null")
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writePackbenchJSON(w io.Writer, o *packbenchOptions, runs []seedRun) error {
	doc := packbenchJSON{Policy: o.Policy, Workload: workloadName(o), Tune: o.Tune}
	var allocs, frags []packbench.Curve
	for _, r := range runs {
		doc.Seeds = append(doc.Seeds, r.seed)
		allocs = append(allocs, r.alloc)
		frags = append(frags, r.frag)
	}
	doc.MeanAlloc = columnsJSON(packbench.MeanCurve(allocs))
	doc.MeanFrag = columnsJSON(packbench.MeanCurve(frags))
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
