package history

import (
	"context"
	"fmt"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/compare"
)

// hourlyReach is how long a period may be and still be compared on hourly
// rows; longer ones read the daily rollup.
const hourlyReach = 45 * 24 * time.Hour

// Compare compares the before window with the after window, per key of
// q.Kind (q.Cluster "" sums every cluster), from the hourly rows, or the
// daily ones for windows longer than 45 days. A note says when a window is
// not fully covered by recorded cycles: a key missing from it was not
// seen, which is not the same as free.
func Compare(ctx context.Context, st *Store, q Query, before, after cluster.Window) (*compare.Diff, error) {
	if before.Seconds() <= 0 || after.Seconds() <= 0 {
		return nil, fmt.Errorf("history: comparing empty windows %s and %s", before, after)
	}
	q.Granularity = Hourly
	if max(before.Seconds(), after.Seconds()) > hourlyReach.Seconds() {
		q.Granularity = Daily
	}
	b, err := st.side(ctx, q, before.Start, before.End)
	if err != nil {
		return nil, err
	}
	a, err := st.side(ctx, q, after.Start, after.End)
	if err != nil {
		return nil, err
	}
	d := compare.Compare(q.Kind, b, a)
	for _, s := range []struct {
		name string
		w    cluster.Window
	}{{"earlier", before}, {"later", after}} {
		cov, err := st.Coverage(ctx, q.Cluster, s.w.Start, s.w.End)
		if err != nil {
			return nil, err
		}
		if want := s.w.Seconds(); cov.Seconds < want*0.999 {
			d.Notes = append(d.Notes, fmt.Sprintf("the history covers %.0f%% of the %s window: keys missing from it were not seen, not free", 100*cov.Seconds/want, s.name))
		}
	}
	return d, nil
}

// Windows are the two sides of comparing the window of length window
// ending at end with the same window shift earlier.
func Windows(end time.Time, window, shift time.Duration) (before, after cluster.Window) {
	after = cluster.Window{Start: end.Add(-window), End: end}
	before = cluster.Window{Start: after.Start.Add(-shift), End: end.Add(-shift)}
	return before, after
}

func (s *Store) side(ctx context.Context, q Query, from, to time.Time) (compare.Side, error) {
	q.From, q.To = from, to
	tot, err := s.Totals(ctx, q)
	if err != nil {
		return compare.Side{}, err
	}
	label := fmt.Sprintf("%s..%s", from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	return compare.Side{Label: label, Window: cluster.Window{Start: from, End: to}, Keys: Figures(tot)}, nil
}

// Figures turns history values into comparison figures.
func Figures(vs map[string]Values) map[string]compare.Figures {
	out := make(map[string]compare.Figures, len(vs))
	for k, v := range vs {
		f := compare.Figures{Pods: int(v.Pods), GPUAllocatedHours: v.GPUAllocatedHours, GPUActiveHours: v.GPUActiveHours,
			GPUIdleHours: v.GPUIdleHours, GPUUnmeasuredHours: v.GPUUnmeasuredHours, Utilization: v.Utilization()}
		if v.Priced() {
			idle, tot := v.GPUIdleUSD+v.GPUUnallocatedUSD, v.TotalUSD
			f.IdleUSD, f.TotalUSD = &idle, &tot
		}
		oom := int(v.OOMKills)
		f.OOMKills = &oom
		out[k] = f
	}
	return out
}
