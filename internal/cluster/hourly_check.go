package cluster

import (
	"fmt"
	"math"
)

// maxHourlyErrors bounds how many problems one malformed Hourly reports:
// a corrupt file should say what is wrong, not list every hour of it.
const maxHourlyErrors = 20

// checkHourly validates the hourly series against the snapshot: each
// workload exists, appears once and in order, its series fit the window
// and agree in length, no value is negative or infinite, NaN only where a
// series may have gaps, and the GPU series nest (active and idle within
// measured, measured within held).
func checkHourly(s *Snapshot) []error {
	errs := checkHints(s)
	h := s.Hourly
	if h == nil {
		return errs
	}
	if !(h.IdleThreshold >= 0 && h.IdleThreshold <= 1) {
		errs = append(errs, fmt.Errorf("hourly: idle threshold %g is outside [0, 1]", h.IdleThreshold))
	}
	known := workloadKeys(s)
	hours := s.Window.HourCount()
	for i := range h.Workloads {
		w := &h.Workloads[i]
		if i > 0 && h.Workloads[i-1].Workload >= w.Workload {
			errs = append(errs, fmt.Errorf("hourly: workload %q is out of order or listed twice (after %q)", w.Workload, h.Workloads[i-1].Workload))
		}
		if !known[w.Workload] {
			errs = append(errs, fmt.Errorf("hourly: workload %q has series but no pod in the snapshot", w.Workload))
		}
		errs = append(errs, w.check(hours)...)
		if len(errs) >= maxHourlyErrors {
			return append(errs[:maxHourlyErrors], fmt.Errorf("hourly: more problems not listed"))
		}
	}
	return errs
}

// checkHints rejects a negative checkpoint interval, which no hint parses to.
func checkHints(s *Snapshot) []error {
	var errs []error
	for i := range s.Pods {
		if p := &s.Pods[i]; p.CheckpointSeconds < 0 {
			errs = append(errs, fmt.Errorf("pod %s: checkpoint interval %ds is negative", p.Key(), p.CheckpointSeconds))
		}
	}
	return errs
}

func workloadKeys(s *Snapshot) map[string]bool {
	keys := make(map[string]bool, len(s.Pods)/4+1)
	for i := range s.Pods {
		keys[s.Pods[i].WorkloadKey()] = true
	}
	return keys
}

// check validates one workload's series against a window of hours.
func (w *WorkloadHours) check(hours int) []error {
	n := w.Hours()
	switch {
	case n == 0 || w.GPUHeld == nil || w.GPUMeasured == nil:
		return []error{fmt.Errorf("hourly %s: pods, gpu_held and gpu_measured are required", w.Workload)}
	case w.From < 0 || w.From+n > hours:
		return []error{fmt.Errorf("hourly %s: hours %d to %d lie outside the window's %d hours", w.Workload, w.From, w.From+n, hours)}
	}
	var errs []error
	for _, ns := range w.named() {
		if *ns.s == nil {
			continue
		}
		if len(*ns.s) != n {
			errs = append(errs, fmt.Errorf("hourly %s: %s has %d hours, pods has %d", w.Workload, ns.name, len(*ns.s), n))
			continue
		}
		if err := checkValues(*ns.s, ns.gaps); err != nil {
			errs = append(errs, fmt.Errorf("hourly %s: %s %w", w.Workload, ns.name, err))
		}
	}
	errs = append(errs, w.checkModels(n)...)
	errs = append(errs, w.Latency.check(w.Workload, n)...)
	if len(errs) > 0 {
		return errs
	}
	return w.checkNesting()
}

func checkValues(s Series, gapsOK bool) error {
	for i, v := range s {
		switch {
		case v != v && !gapsOK:
			return fmt.Errorf("hour %d: no value (NaN) where every hour needs one", i)
		case v < 0 || math.IsInf(float64(v), 0):
			return fmt.Errorf("hour %d: %g is negative or infinite", i, v)
		}
	}
	return nil
}

// checkNesting checks that active and idle GPU-hours lie within measured
// ones and measured within held, to float32 rounding.
func (w *WorkloadHours) checkNesting() []error {
	var errs []error
	within := func(name string, part Series, whole Series, wholeName string) {
		for i := range part {
			if p, t := part[i], whole[i]; float64(p) > float64(t)*(1+1e-5)+1e-6 {
				errs = append(errs, fmt.Errorf("hourly %s: hour %d: %s %g exceeds %s %g", w.Workload, w.From+i, name, p, wholeName, t))
				return
			}
		}
	}
	within("gpu_measured", w.GPUMeasured, w.GPUHeld, "gpu_held")
	if w.GPUActive != nil {
		within("gpu_active", w.GPUActive, w.GPUMeasured, "gpu_measured")
	}
	if w.GPUIdle != nil {
		within("gpu_idle", w.GPUIdle, w.GPUMeasured, "gpu_measured")
	}
	return errs
}

// checkModels validates the per-model series: named, sorted, unique, each
// with the workload's hours and a counter's values.
func (w *WorkloadHours) checkModels(n int) []error {
	var errs []error
	for i := range w.Models {
		m := &w.Models[i]
		switch {
		case m.Model == "":
			errs = append(errs, fmt.Errorf("hourly %s: model %d has no name", w.Workload, i))
		case i > 0 && w.Models[i-1].Model >= m.Model:
			errs = append(errs, fmt.Errorf("hourly %s: models %q and %q are not sorted and unique", w.Workload, w.Models[i-1].Model, m.Model))
		}
		for _, ns := range m.named() {
			if *ns.s == nil {
				continue
			}
			if len(*ns.s) != n {
				errs = append(errs, fmt.Errorf("hourly %s: model %s: %s has %d hours, pods has %d", w.Workload, m.Model, ns.name, len(*ns.s), n))
				continue
			}
			if err := checkValues(*ns.s, ns.gaps); err != nil {
				errs = append(errs, fmt.Errorf("hourly %s: model %s: %s %w", w.Workload, m.Model, ns.name, err))
			}
		}
	}
	return errs
}
