package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// OpenBNode is one row of an openb node list (openb_node_list_*.csv).
type OpenBNode struct {
	Name      string
	CPUMilli  int64
	MemoryMiB int64
	GPUs      int
	// Model is the GPU model (G2, T4, V100M16, ...); empty on CPU-only nodes.
	Model string
}

// OpenBPod is one row of an openb pod list (openb_pod_list_*.csv), as
// written: GPUMilli is per GPU and is not clamped to 1000.
//
// The lists come in two shapes. The default list (and some variants) has
// the 11 columns name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec,
// qos, pod_phase, creation_time, deletion_time, scheduled_time; other
// variants (openb_pod_list_multigpu50.csv, ...) have only the first five.
// A 5-column row takes the FGD simulator's defaults for what it lacks: no
// GPU model constraint (its converter writes no model annotation without
// gpu_spec), and no QoS, phase or times, which the simulator never reads:
// QoS and Phase are empty, Created and Deleted 0, Scheduled OpenBNever and
// Lifecycle false.
type OpenBPod struct {
	Name      string
	CPUMilli  int64
	MemoryMiB int64
	NumGPU    int
	GPUMilli  int64
	// GPUSpec lists the GPU models the pod may run on; empty means any.
	GPUSpec []string
	QoS     string
	Phase   string
	// Created and Deleted are the trace's anonymized seconds. Scheduled is
	// OpenBNever when the trace gives no scheduled time.
	Created, Deleted, Scheduled int64
	// Lifecycle says whether the row carried qos, pod_phase and the times
	// (the 11-column shape); without them those fields are unknown, not
	// zero, and callers that need them must not trust their values.
	Lifecycle bool
}

// OpenBNever is OpenBPod.Scheduled for a pod without a scheduled time: the
// trace never scheduled it (an empty field), or its list has no times.
const OpenBNever = -1

// maxOpenBErrors is how many row errors a read collects before it stops.
const maxOpenBErrors = 10

var (
	openbNodeHeader = []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}
	openbPodHeader  = []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
		"qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"}
	// openbShortPodHeader is the 5-column variants' header.
	openbShortPodHeader = openbPodHeader[:5]
)

// ReadOpenBNodes reads an openb node list. A malformed file yields an error
// naming each bad line and column, up to ten of them.
func ReadOpenBNodes(r io.Reader) ([]OpenBNode, error) {
	var nodes []OpenBNode
	err := readOpenB(r, "nodes", [][]string{openbNodeHeader}, func(f *openbFields) {
		n := OpenBNode{Name: f.name(0), CPUMilli: f.count(1), MemoryMiB: f.count(2), GPUs: int(f.gpus(3)), Model: f.str(4)}
		if n.GPUs > 0 && n.Model == "" {
			f.fail(4, n.Model, fmt.Sprintf("empty on a node with %d GPUs", n.GPUs))
		}
		nodes = append(nodes, n)
	})
	if err != nil {
		return nil, err
	}
	return nodes, nil
}

// ReadOpenBPods reads an openb pod list of either shape (see OpenBPod). A
// malformed file yields an error naming each bad line and column, up to
// ten of them.
func ReadOpenBPods(r io.Reader) ([]OpenBPod, error) {
	var pods []OpenBPod
	err := readOpenB(r, "pods", [][]string{openbPodHeader, openbShortPodHeader}, func(f *openbFields) {
		p := OpenBPod{
			Name: f.name(0), CPUMilli: f.count(1), MemoryMiB: f.count(2), NumGPU: int(f.gpus(3)), GPUMilli: f.count(4),
			Scheduled: OpenBNever,
		}
		if len(f.rec) == len(openbPodHeader) {
			readLifecycle(f, &p)
		}
		pods = append(pods, p)
	})
	if err != nil {
		return nil, err
	}
	return pods, nil
}

// readLifecycle reads the columns after gpu_milli of an 11-column row.
func readLifecycle(f *openbFields, p *OpenBPod) {
	p.GPUSpec, p.QoS, p.Phase = splitGPUSpec(f.str(5)), f.str(6), f.str(7)
	if !slices.Contains(openbPhases, p.Phase) {
		f.fail(7, p.Phase, "not a pod phase (want one of "+strings.Join(openbPhases, ", ")+")")
	}
	p.Created, p.Deleted, p.Lifecycle = f.count(8), f.count(9), true
	if p.Deleted < p.Created {
		f.fail(9, f.str(9), fmt.Sprintf("before creation_time %d", p.Created))
	}
	if f.str(10) != "" {
		p.Scheduled = f.count(10)
		if p.Scheduled < p.Created || p.Scheduled > p.Deleted {
			f.fail(10, f.str(10), fmt.Sprintf("outside [creation_time %d, deletion_time %d]", p.Created, p.Deleted))
		}
	}
}

// openbPhases are the Kubernetes pod phases a trace row may carry.
var openbPhases = []string{"Pending", "Running", "Succeeded", "Failed", "Unknown"}

// maxOpenBGPUs bounds the GPUs of one node or one pod: the largest GPU
// servers hold 8 to 16; the openb traces at most 8.
const maxOpenBGPUs = 64

// gpus is a GPU count: a count of at most maxOpenBGPUs.
func (f *openbFields) gpus(i int) int64 {
	v := f.count(i)
	if v > maxOpenBGPUs {
		f.fail(i, f.rec[i], fmt.Sprintf("more than %d GPUs", maxOpenBGPUs))
		return 0
	}
	return v
}

// splitGPUSpec splits a "|"-separated model list, dropping empty items.
func splitGPUSpec(s string) []string {
	var models []string
	for m := range strings.SplitSeq(s, "|") {
		if m != "" {
			models = append(models, m)
		}
	}
	return models
}

// readOpenB checks that the header is one of headers, then calls row for
// every record; row reports bad fields through openbFields.fail.
func readOpenB(r io.Reader, kind string, headers [][]string, row func(*openbFields)) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := readOpenBHeader(cr, kind, headers)
	if err != nil {
		return err
	}
	errs := &openbErrors{kind: kind}
	for !errs.full() {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// FieldPos is undefined after an error; a ParseError has the line.
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				// Not the file's content (a failing reader): stop here.
				return errors.Join(errs.err(), fmt.Errorf("openb %s: reading: %w", kind, err))
			}
			errs.add(pe.Line, pe.Err)
			continue
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			errs.add(line, fmt.Errorf("has %d fields, want %d (%s)", len(rec), len(header), strings.Join(header, ",")))
			continue
		}
		row(&openbFields{rec: rec, header: header, line: line, errs: errs})
	}
	return errs.err()
}

// readOpenBHeader reads the first record and returns the one of headers it is.
func readOpenBHeader(cr *csv.Reader, kind string, headers [][]string) ([]string, error) {
	rec, err := cr.Read()
	switch {
	case err == io.EOF:
		return nil, fmt.Errorf("openb %s: empty file, want the header %s", kind, wantHeaders(headers))
	case err != nil:
		return nil, fmt.Errorf("openb %s: header: %w", kind, err)
	}
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	}
	i := slices.IndexFunc(headers, func(h []string) bool { return slices.Equal(rec, h) })
	if i < 0 {
		return nil, fmt.Errorf("openb %s line 1: header is %q, want %s", kind, strings.Join(rec, ","), wantHeaders(headers))
	}
	return headers[i], nil
}

// wantHeaders lists the accepted headers for an error message.
func wantHeaders(headers [][]string) string {
	s := make([]string, len(headers))
	for i, h := range headers {
		s[i] = strings.Join(h, ",")
	}
	return strings.Join(s, " or ")
}

// openbFields reads the fields of one record, recording the first problem
// with each.
type openbFields struct {
	rec    []string
	header []string
	line   int
	errs   *openbErrors
}

func (f *openbFields) str(i int) string { return f.rec[i] }

// name is a field that must not be empty.
func (f *openbFields) name(i int) string {
	if f.rec[i] == "" {
		f.fail(i, "", "empty")
	}
	return f.rec[i]
}

// count is a non-negative integer field.
func (f *openbFields) count(i int) int64 {
	v, err := strconv.ParseInt(f.rec[i], 10, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange):
		f.fail(i, f.rec[i], "out of range")
	case err != nil:
		f.fail(i, f.rec[i], "not an integer")
	case v < 0:
		f.fail(i, f.rec[i], "negative")
	case v > 1<<40:
		// Guards int conversions (GPU counts) and sums of requests.
		f.fail(i, f.rec[i], "implausibly large")
	default:
		return v
	}
	return 0
}

func (f *openbFields) fail(i int, value, why string) {
	f.errs.add(f.line, fmt.Errorf("%s %q: %s", f.header[i], value, why))
}

// openbErrors collects row errors up to maxOpenBErrors.
type openbErrors struct {
	kind string
	errs []error
}

func (e *openbErrors) full() bool { return len(e.errs) >= maxOpenBErrors }

func (e *openbErrors) add(line int, err error) {
	if !e.full() {
		e.errs = append(e.errs, fmt.Errorf("openb %s line %d: %w", e.kind, line, err))
	}
}

func (e *openbErrors) err() error {
	if e.full() {
		e.errs = append(e.errs, fmt.Errorf("openb %s: stopped after %d errors", e.kind, maxOpenBErrors))
	}
	return errors.Join(e.errs...)
}
