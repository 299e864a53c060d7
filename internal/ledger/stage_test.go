package ledger

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// simulated is the demo week (hourly series, usage detail, every lever's
// data), prepared.
func simulated(t *testing.T) *cluster.Prepared {
	t.Helper()
	s, err := sim.Generate(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The snapshot's owner may release what SnapshotReads says a staged
// build no longer reads: the ledger built on the released snapshot is
// the one built on the whole snapshot, lever for lever. If a lever read
// the series or the usage detail without its traits saying so, the
// ledgers would differ.
func TestAStagedBuildReadsWhatSnapshotReadsSays(t *testing.T) {
	t.Parallel()
	prices := pricing.Embedded()
	o := DefaultOptions()
	whole := simulated(t)
	want, err := Build(Input{Snapshot: whole, Prices: prices}, o)
	if err != nil {
		t.Fatal(err)
	}

	// The test is the snapshot's owner: it keeps the writable snapshot (own)
	// behind the prepared one it hands the ledger, as app.Analysis does.
	own := simulated(t).View()
	s := prepareTest(t, own)
	in := Input{Snapshot: s, Prices: prices}
	if r := SnapshotReads(in, o); !r.Hourly || !r.UsageDetail {
		t.Fatalf("an input with nothing taken reads %+v, want the series and the usage detail", r)
	}
	recs, err := rightsize.Recommend(s, o.Policy, prices)
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := cost.Allocate(s, prices, cost.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	in.Recs, in.Allocation = recs, alloc
	if r := SnapshotReads(in, o); !r.Hourly || r.UsageDetail {
		t.Fatalf("with right-sizing and allocation, before staging: reads %+v, want the series only", r)
	}
	if in, err = Stage(in, o); err != nil {
		t.Fatal(err)
	}
	if r := SnapshotReads(in, o); r != (Reads{}) {
		t.Fatalf("a staged input reads %+v, want nothing released", r)
	}
	own.Hourly = nil
	own.ReleaseUsageDetail()
	got, err := Build(in, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ledgerJSON(t, want), ledgerJSON(t, got)); d != "" {
		t.Errorf("the ledger on the released snapshot differs (-whole +released):\n%s", d)
	}

	// Levers that read no hourly data leave the series alone even unstaged.
	only := o
	only.Levers = []string{LeverRightsize, LeverConsolidate}
	if r := SnapshotReads(Input{Snapshot: whole, Prices: prices, Recs: recs, Allocation: alloc, Hourly: stubHourly{}, Counters: stubCounters{}}, only); r.Hourly {
		t.Errorf("right-size and consolidate with the signals given read the series: %+v", r)
	}
	if _, err := Stage(in, Options{Levers: []string{"magic"}}); err == nil {
		t.Error("Stage took invalid options")
	}
}

// Workers bounds what the build runs at once: one worker (everything in
// turn) builds the ledger a core each does; a negative count is refused.
func TestOneWorkerBuildsTheSameLedger(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	seq, par := DefaultOptions(), DefaultOptions()
	seq.Workers = 1
	if d := cmp.Diff(ledgerJSON(t, build(t, s, par)), ledgerJSON(t, build(t, s, seq))); d != "" {
		t.Errorf("one worker changed the ledger:\n%s", d)
	}
	bad := DefaultOptions()
	bad.Workers = -1
	if err := bad.Validate(); err == nil {
		t.Error("a negative worker count is valid")
	}
}

type stubHourly struct{}

func (stubHourly) GPUActivity() (map[string][]float64, bool) { return nil, false }
func (stubHourly) OOMKills() ([]int, bool)                   { return nil, false }

type stubCounters struct{}

func (stubCounters) Inference() ([]InferenceCount, bool) { return nil, false }
