package capacity

import (
	"errors"
	"fmt"
	"path"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Idle reclaim (docs/capacity.md): long-lived GPU pods that are not
// servers — notebooks, dev boxes — idle for long stretches. A stretch is
// MinIdleHours or more consecutive hours in which the workload held GPUs
// at less than MaxActivity; what it held then could have been given back
// (scaled to zero, culled) and started again when needed.

// ReclaimPolicy steers idle reclaim.
type ReclaimPolicy struct {
	// MaxActivity is the activity below which an hour counts as idle.
	MaxActivity float64
	// MinIdleHours is the shortest stretch worth reclaiming: shorter ones
	// are lunch breaks, and a restart costs the user.
	MinIdleHours int
	// Namespaces are globs over the namespaces of notebooks and dev boxes
	// (cluster.DefaultDevNamespaces): a service elsewhere is not scaled to
	// zero behind its users' backs.
	Namespaces []string
}

// Reclaim defaults: below 5% activity for 4 hours or more in a row.
const (
	DefaultReclaimActivity  = 0.05
	DefaultReclaimIdleHours = 4
)

// DefaultReclaimPolicy returns the documented defaults.
func DefaultReclaimPolicy() ReclaimPolicy {
	return ReclaimPolicy{MaxActivity: DefaultReclaimActivity, MinIdleHours: DefaultReclaimIdleHours,
		Namespaces: append([]string(nil), cluster.DefaultDevNamespaces...)}
}

// Validate lists every problem, each naming its field.
func (p ReclaimPolicy) Validate() error {
	var errs []error
	if !(p.MaxActivity > 0 && p.MaxActivity < 1) {
		errs = append(errs, fmt.Errorf("reclaim.maxActivity: %v is outside (0, 1)", p.MaxActivity))
	}
	if p.MinIdleHours < 1 || p.MinIdleHours > 24*7 {
		errs = append(errs, fmt.Errorf("reclaim.minIdleHours: %d is outside 1 to 168", p.MinIdleHours))
	}
	for i, g := range p.Namespaces {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			errs = append(errs, fmt.Errorf("reclaim.namespaces[%d]: %q is not a valid glob", i, g))
		}
	}
	return errors.Join(errs...)
}

// Idle is one workload's idle stretches.
type Idle struct {
	Workload, Namespace, Kind, Name string
	From                            int
	// Freed is GPU-hours held in idle stretches per workload hour.
	Freed []float32
	// IdleHours and IdleGPUHours sum the stretches; HeldGPUHours is all
	// it held; Stretches counts them; Longest is the longest in hours.
	IdleHours, IdleGPUHours, HeldGPUHours float64
	Stretches, Longest                    int
}

// reclaimable are the owner kinds a person scales to zero and back: the
// notebook and dev-box kinds. Training jobs end on their own; servers
// are the autoscale lever's.
var reclaimable = []string{"Deployment", "StatefulSet", "Pod", "Notebook"}

// Reclaim finds the idle stretches of every long-lived, non-serving GPU
// workload with hourly activity, but those holding DRA devices or HAMi
// vGPUs (kept as they are, as in Autoscale).
func Reclaim(s *cluster.Snapshot, p ReclaimPolicy) ([]Idle, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if s.Hourly == nil {
		return nil, nil
	}
	var out []Idle
	kept := keptAllocations(s)
	for i := range s.Hourly.Workloads {
		w := &s.Hourly.Workloads[i]
		ns, kind, name, ok := splitKey(w.Workload)
		if !ok || !contains(reclaimable, kind) || w.Server != "" || w.GPUActive == nil || kept[w.Workload] != "" || !cluster.MatchAny(p.Namespaces, ns) {
			continue
		}
		if id := stretches(w, p); id.Stretches > 0 {
			id.Workload, id.Namespace, id.Kind, id.Name = w.Workload, ns, kind, name
			out = append(out, id)
		}
	}
	return out, nil
}

// stretches marks the runs of idle hours at least MinIdleHours long.
func stretches(w *cluster.WorkloadHours, p ReclaimPolicy) Idle {
	id := Idle{From: w.From, Freed: make([]float32, w.Hours())}
	run := 0
	flush := func(end int) {
		if run >= p.MinIdleHours {
			for h := end - run; h < end; h++ {
				id.Freed[h] = w.GPUHeld[h]
				id.IdleGPUHours += float64(w.GPUHeld[h])
			}
			id.Stretches, id.IdleHours, id.Longest = id.Stretches+1, id.IdleHours+float64(run), max(id.Longest, run)
		}
		run = 0
	}
	for h := 0; h < w.Hours(); h++ {
		held, m := w.GPUHeld.At(h), w.GPUMeasured.At(h)
		id.HeldGPUHours += held
		if held > 0 && m > 0 && w.GPUActive.At(h)/m < p.MaxActivity {
			run++
			continue
		}
		flush(h)
	}
	flush(w.Hours())
	return id
}
