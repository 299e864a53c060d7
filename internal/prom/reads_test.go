package prom

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/prom/promtest"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// TestNoReadAnsweredTwice: a whole Build by remote read of the simulated
// days asks for each (query, range) once, and no series comes back from
// two reads whose ranges overlap: no read that an earlier one already
// answered (issue 32).
func TestNoReadAnsweredTwice(t *testing.T) {
	t.Parallel()
	h, err := simulated()
	if err != nil {
		t.Fatal(err)
	}
	srv := promtest.New(t, h.series)
	opts := testOptions(srv.URL, ReadRemote)
	opts.Window = h.truth.Window
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	rs := srv.Reads()
	if len(rs) < 20 {
		t.Fatalf("%d remote-read queries: the build did not read by remote read", len(rs))
	}
	if dups := answeredTwice(rs); len(dups) > 0 {
		t.Errorf("%d of %d queries read what an earlier one answered:\n%v", len(dups), len(rs), dups)
	}
}

// answeredTwice names the reads that repeat an earlier read's query and
// range, or send a series an earlier read with an overlapping range sent.
func answeredTwice(rs []promtest.Read) []string {
	var out []string
	type sent struct{ start, end int64 }
	bySeries := map[int][]sent{}
	queries := map[string]bool{}
	for i, r := range rs {
		q := fmt.Sprint(r.Start, r.End, r.Matchers)
		if queries[q] {
			out = append(out, fmt.Sprintf("read %d repeats %v over %d..%d", i, r.Matchers, r.Start, r.End))
		}
		queries[q] = true
		again := 0
		for _, s := range r.Series {
			for _, e := range bySeries[s] {
				if r.Start <= e.end && e.start <= r.End {
					again++
					break
				}
			}
			bySeries[s] = append(bySeries[s], sent{r.Start, r.End})
		}
		if again > 0 {
			out = append(out, fmt.Sprintf("read %d (%v) sends %d series an earlier read sent", i, r.Matchers, again))
		}
	}
	return out
}

// TestAnsweredTwiceFindsRepeats: the check above finds a repeated query
// and a series sent twice over overlapping ranges, and lets disjoint
// ranges and other series pass.
func TestAnsweredTwiceFindsRepeats(t *testing.T) {
	t.Parallel()
	cpu := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: "cpu"}}
	mem := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: "mem"}}
	rs := []promtest.Read{
		{Start: 0, End: 100, Matchers: cpu, Series: []int{1, 2}},
		{Start: 101, End: 200, Matchers: cpu, Series: []int{1, 2}}, // later range: fine
		{Start: 0, End: 100, Matchers: mem, Series: []int{3}},      // other series: fine
		{Start: 0, End: 100, Matchers: cpu, Series: []int{1, 2}},   // repeat
		{Start: 50, End: 60, Matchers: mem, Series: []int{2, 3}},   // series 2 and 3 again
	}
	want := []string{
		"read 3 repeats [{0 __name__ cpu}] over 0..100",
		"read 3 ([{0 __name__ cpu}]) sends 2 series an earlier read sent",
		"read 4 ([{0 __name__ mem}]) sends 2 series an earlier read sent",
	}
	if diff := cmp.Diff(want, answeredTwice(rs)); diff != "" {
		t.Errorf("answeredTwice (-want +got):\n%s", diff)
	}
}
