package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
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
	// OpenBNever when the pod was never scheduled (an empty field).
	Created, Deleted, Scheduled int64
}

// OpenBNever is OpenBPod.Scheduled for a pod the trace never scheduled.
const OpenBNever = -1

// maxOpenBErrors is how many row errors a read collects before it stops.
const maxOpenBErrors = 10

var (
	openbNodeHeader = []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}
	openbPodHeader  = []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
		"qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"}
)

// ReadOpenBNodes reads an openb node list. A malformed file yields an error
// naming each bad line and column, up to ten of them.
func ReadOpenBNodes(r io.Reader) ([]OpenBNode, error) {
	var nodes []OpenBNode
	err := readOpenB(r, "nodes", openbNodeHeader, func(f *openbFields) {
		n := OpenBNode{Name: f.name(0), CPUMilli: f.count(1), MemoryMiB: f.count(2), GPUs: int(f.count(3)), Model: f.str(4)}
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

// ReadOpenBPods reads an openb pod list. A malformed file yields an error
// naming each bad line and column, up to ten of them.
func ReadOpenBPods(r io.Reader) ([]OpenBPod, error) {
	var pods []OpenBPod
	err := readOpenB(r, "pods", openbPodHeader, func(f *openbFields) {
		p := OpenBPod{
			Name: f.name(0), CPUMilli: f.count(1), MemoryMiB: f.count(2), NumGPU: int(f.count(3)), GPUMilli: f.count(4),
			GPUSpec: splitGPUSpec(f.str(5)), QoS: f.str(6), Phase: f.str(7),
			Created: f.count(8), Deleted: f.count(9), Scheduled: OpenBNever,
		}
		if f.str(10) != "" {
			p.Scheduled = f.count(10)
		}
		pods = append(pods, p)
	})
	if err != nil {
		return nil, err
	}
	return pods, nil
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

// readOpenB checks the header, then calls row for every record; row reports
// bad fields through openbFields.fail.
func readOpenB(r io.Reader, kind string, header []string, row func(*openbFields)) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	errs := &openbErrors{kind: kind}
	rec, err := cr.Read()
	switch {
	case err == io.EOF:
		return fmt.Errorf("openb %s: empty file, want the header %s", kind, strings.Join(header, ","))
	case err != nil:
		return fmt.Errorf("openb %s: header: %w", kind, err)
	}
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	}
	if !equalStrings(rec, header) {
		return fmt.Errorf("openb %s line 1: header is %q, want %s", kind, strings.Join(rec, ","), strings.Join(header, ","))
	}
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

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
