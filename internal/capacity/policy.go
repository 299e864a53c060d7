package capacity

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// AutoscalePolicy steers the autoscaling lever (docs/capacity.md).
type AutoscalePolicy struct {
	// TargetActivity is the GPU activity each replica is sized to run at
	// (0 < t ≤ 1): a replica at 65% leaves room for a burst while the
	// next one starts.
	TargetActivity float64
	// MinReplicas is the floor: a latency-sensitive service keeps one
	// warm replica so that the first request does not wait for a GPU pod
	// to start.
	MinReplicas int
	// MaxReplicas is the ceiling; 0 means the most replicas the workload
	// ran at once in the window.
	MaxReplicas int
	// Stabilization is how long demand must stay low before a replica is
	// removed (the HPA's scale-down stabilization window).
	Stabilization time.Duration
	// Startup is how long a GPU pod takes to become ready (image pull,
	// model load): the scaler adds replicas this far ahead of demand.
	Startup time.Duration
}

// Autoscaling defaults: DESIGN.md's 10–15 minute stabilization and a
// 60–70% target, GPU pods that take three minutes to serve.
const (
	DefaultTargetActivity = 0.65
	DefaultMinReplicas    = 1
	DefaultStabilization  = 15 * time.Minute
	DefaultStartup        = 3 * time.Minute
	// maxDelay bounds stabilization and start-up: past an hour the
	// hourly series cannot show a saving anyway.
	maxDelay = time.Hour
)

// DefaultAutoscalePolicy returns the documented defaults.
func DefaultAutoscalePolicy() AutoscalePolicy {
	return AutoscalePolicy{TargetActivity: DefaultTargetActivity, MinReplicas: DefaultMinReplicas,
		Stabilization: DefaultStabilization, Startup: DefaultStartup}
}

// Validate lists every problem, each naming its field as the policy file
// and the flags spell it (autoscaling.targetActivity, --target-activity).
func (p AutoscalePolicy) Validate() error {
	var errs []error
	if t := p.TargetActivity; !(t > 0 && t <= 1) || math.IsNaN(t) {
		errs = append(errs, fmt.Errorf("autoscaling.targetActivity: %v is outside (0, 1]: the GPU activity a replica is sized for, e.g. 0.65", t))
	}
	if p.MinReplicas < 0 {
		errs = append(errs, fmt.Errorf("autoscaling.minReplicas: %d is negative", p.MinReplicas))
	}
	if p.MaxReplicas < 0 {
		errs = append(errs, fmt.Errorf("autoscaling.maxReplicas: %d is negative (0: the most replicas seen)", p.MaxReplicas))
	}
	if p.MaxReplicas > 0 && p.MinReplicas > p.MaxReplicas {
		errs = append(errs, fmt.Errorf("autoscaling.minReplicas: the floor %d is above the ceiling autoscaling.maxReplicas %d", p.MinReplicas, p.MaxReplicas))
	}
	errs = append(errs, delay("autoscaling.stabilization", p.Stabilization), delay("autoscaling.startup", p.Startup))
	return errors.Join(errs...)
}

// delay checks a duration is within 0 to maxDelay.
func delay(field string, d time.Duration) error {
	if d < 0 || d > maxDelay {
		return fmt.Errorf("%s: %v is outside 0s to %v", field, d, maxDelay)
	}
	return nil
}
