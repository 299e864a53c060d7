package ledger

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"

	"github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
)

// savings maps action keys to their saving in cents.
func savings(l *Ledger) map[string]Cents {
	out := map[string]Cents{}
	for _, a := range l.Actions {
		out[a.Key] = a.Saving()
	}
	return out
}

func TestFixtureSavingsKnownByConstruction(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), upToConsolidation())
	if l.Before() != 2_628_000 || l.After() != 1_314_000 {
		t.Errorf("before %s after %s, want $26,280.00 and $13,140.00", l.Before(), l.After())
	}
	want := map[string]Cents{
		"consolidate:remove-nodes:test.a100x4/on-demand/A100-80GB": 730_000,
		"consolidate:remove-nodes:test.l4x2/on-demand/L4":          146_000,
		"consolidate:repack:rightsize":                             146_000,
		"consolidate:repack:shape":                                 292_000,
		"rightsize:resize":                                         0,
		"shape:mig":                                                0,
	}
	if diff := cmp.Diff(want, savings(l)); diff != "" {
		t.Errorf("action savings (-want +got):\n%s", diff)
	}
	if got := l.SavingUSDMonth; got != 13140 {
		t.Errorf("saving_usd_month = %v, want 13140", got)
	}
	if err := l.Reconcile(); err != nil {
		t.Error(err)
	}
}

// TestOverlapIsNotDoubleCounted: each lever with consolidation, alone,
// claims the A and first L node again; added up they claim $30,660 of a
// $26,280 cluster. The ledger counts each node once.
func TestOverlapIsNotDoubleCounted(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	var naive Cents
	for _, c := range []struct {
		levers []string
		want   Cents
	}{
		{[]string{"consolidate"}, 876_000},
		{[]string{"rightsize", "consolidate"}, 1_022_000},
		{[]string{"shape", "consolidate"}, 1_168_000},
	} {
		got := build(t, s, options(c.levers...)).Saving()
		if got != c.want {
			t.Errorf("levers %v save %s, want %s", c.levers, got, c.want)
		}
		naive += got
	}
	if all := build(t, s, upToConsolidation()).Saving(); naive != 3_066_000 || all != 1_314_000 {
		t.Errorf("naive sum %s, ledger %s; want $30,660.00 and $13,140.00", naive, all)
	}
}

func TestPrerequisitesCarryTheMoney(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), upToConsolidation())
	byKey := map[string]Action{}
	for _, a := range l.Actions {
		byKey[a.Key] = a
	}
	resize, mig := byKey["rightsize:resize"], byKey["shape:mig"]
	repackRS, repackAll := byKey["consolidate:repack:rightsize"], byKey["consolidate:repack:shape"]
	if diff := cmp.Diff([]string{resize.ID}, repackRS.Prerequisites); diff != "" {
		t.Errorf("repack:rightsize prerequisites (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{resize.ID, mig.ID}, repackAll.Prerequisites); diff != "" {
		t.Errorf("repack:rightsize+shape prerequisites (-want +got):\n%s", diff)
	}
	targets := func(a Action) []string {
		var out []string
		for _, it := range a.Items {
			out = append(out, it.Target)
		}
		return out
	}
	if diff := cmp.Diff([]string{"batch/Deployment/l-0", "batch/Deployment/l-1", "batch/Deployment/l-2", "batch/Deployment/l-3"}, targets(resize)); diff != "" {
		t.Errorf("resized workloads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"inference/Deployment/h-0", "inference/Deployment/h-1"}, targets(mig)); diff != "" {
		t.Errorf("MIG workloads (-want +got):\n%s", diff)
	}
	if mig.SavingUSDMonth != 0 || !slices.Equal(mig.RealisedBy, []string{repackAll.ID}) || mig.PaybackDays != nil || mig.EffortHours != 2.5 {
		t.Errorf("shape:mig: saving %v, realised by %v, payback %v, effort %v; want $0 realised by the shape repack, no payback, 0.5 + 2 × 1 h",
			mig.SavingUSDMonth, mig.RealisedBy, mig.PaybackDays, mig.EffortHours)
	}
	pos := map[string]int{}
	for i, a := range l.Actions {
		pos[a.ID] = i
	}
	for _, a := range l.Actions {
		for _, p := range a.Prerequisites {
			if pos[p] > pos[a.ID] {
				t.Errorf("%s comes before its prerequisite %s", a.ID, p)
			}
		}
	}
}

// TestUnrealisedItemsLeaveTheGroup: a third H100 workload, a bare pod the
// planner will not move, gets a MIG shape too; the MIG action keeps the
// two workloads the re-pack uses and the third is not counted, with the
// planner's reason. The money is the same: its node stays.
func TestUnrealisedItemsLeaveTheGroup(t *testing.T) {
	t.Parallel()
	s := fixture(t).View()
	s.Nodes = append(s.Nodes, node("h3", h100x1, 1, "H100-80GB", 8, 64))
	bare := pod("notebooks", "h-2", "h3", 0, 0.05, 5120, 1000, 8, -1, 0)
	bare.Owner = cluster.Owner{Kind: "Pod", Name: "h-2"}
	s.Pods = append(s.Pods, bare)
	l := build(t, prepareTest(t, s), upToConsolidation())
	if l.Saving() != 1_314_000 {
		t.Errorf("saving %s, want $13,140.00", l.Saving())
	}
	for _, a := range l.Actions {
		if a.Key == "shape:mig" && (len(a.Items) != 2 || a.Title != "Move 2 workload(s) to MIG slices") {
			t.Errorf("MIG action %q with %d items, want the 2 the re-pack uses", a.Title, len(a.Items))
		}
	}
	found := false
	for _, n := range l.NotCounted {
		if n.Target == "notebooks/Pod/h-2" && n.Lever == LeverShape {
			found = strings.Contains(n.Reason, "bare pod")
		}
	}
	if !found {
		t.Errorf("the bare pod's MIG shape is not listed as not counted with the planner's reason: %+v", l.NotCounted)
	}
}

// TestShapeAloneSavesNothing: without consolidation nothing realises a
// MIG shape; it is not counted, and says why.
func TestShapeAloneSavesNothing(t *testing.T) {
	t.Parallel()
	l := build(t, fixture(t), options("rightsize", "shape"))
	if l.Saving() != 0 || len(l.Actions) != 0 {
		t.Fatalf("saving %s with %d actions, want $0 and none", l.Saving(), len(l.Actions))
	}
	var shapes int
	for _, n := range l.NotCounted {
		if n.Lever == LeverShape && strings.HasPrefix(n.Target, "inference/") {
			shapes++
			if !strings.Contains(n.Reason, "saves nothing on its own") {
				t.Errorf("%s: reason %q", n.Target, n.Reason)
			}
		}
	}
	if shapes != 2 {
		t.Errorf("%d shape changes not counted, want 2", shapes)
	}
}

func TestReconcileRefusesALedgerOffByACent(t *testing.T) {
	t.Parallel()
	for name, tamper := range map[string]func(l *Ledger){
		"an action's model a cent richer": func(l *Ledger) { l.Actions[0].ModelBeforeUSDMonth += 0.01 },
		"after a cent lower":              func(l *Ledger) { l.after-- },
		"bridge rounding of 2 cent":       func(l *Ledger) { l.Bridge.rounding = 2 },
	} {
		l := build(t, fixture(t), upToConsolidation())
		tamper(l)
		if err := l.Reconcile(); err == nil || !strings.Contains(err.Error(), "does not reconcile") {
			t.Errorf("%s: Reconcile = %v, want a refusal", name, err)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		o    func(*Options)
		want []string
	}{
		{"defaults", func(*Options) {}, nil},
		{"unknown lever", func(o *Options) { o.Levers = []string{"consolidate", "spot-magic"} }, []string{`levers: unknown lever "spot-magic": want one of rightsize, shape, consolidate`}},
		{"negative rate", func(o *Options) { o.EngineerUSDPerHour = -5 }, []string{"engineer rate: -5 $/hour is not a non-negative amount"}},
		// Issue 31 low item: --engineer-rate 1e308 printed garbage and +Inf days.
		{"engineer-rate 1e308 garbage output and +Inf days", func(o *Options) { o.EngineerUSDPerHour = 1e308 }, []string{"engineer rate: 1e+308 $/hour is above the maximum, 10000 $/hour"}},
		{"engineer rate at the maximum", func(o *Options) { o.EngineerUSDPerHour = MaxEngineerUSDPerHour }, nil},
		{"both", func(o *Options) { o.Levers = []string{"x"}; o.EngineerUSDPerHour = math.NaN() }, []string{`unknown lever "x"`, "engineer rate: NaN"}},
	} {
		o := DefaultOptions()
		c.o(&o)
		err := o.Validate()
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v, want it to contain %q", c.name, err, w)
			}
		}
		if _, err := Build(Input{Snapshot: fixture(t), Prices: testPrices()}, o); err == nil {
			t.Errorf("%s: Build accepted invalid options", c.name)
		}
	}
}

// TestBridgeToTheReport: a node gone half way through the window is in
// the report ($2 × 84 h → $730.00/month) and not the ledger; a node that
// joined for the last 42 h is in the ledger at $1,460.00 and in the
// report at $365.00.
func TestBridgeToTheReport(t *testing.T) {
	t.Parallel()
	s := fixture(t).View()
	gone := node("gone", l4x2, 2, "L4", 8, 32)
	gone.Deleted = clustertest.At(84)
	late := node("late", l4x2, 2, "L4", 8, 32)
	late.Created = clustertest.At(126)
	s.Nodes = append(s.Nodes, gone, late)
	p := prepareTest(t, s)
	l := build(t, p, DefaultOptions())
	b := l.Bridge
	want := Bridge{ReportUSDMonth: 26280 + 730 + 365, WindowHours: 168, LedgerBeforeUSDMonth: 26280 + 1460,
		PartWindowUSDMonth: 1095, PartWindowNodes: 1, DepartedUSDMonth: 730, DepartedNodes: 1}
	if diff := cmp.Diff(want, b, cmp.AllowUnexported(Bridge{})); diff != "" && !onlyUnexported(want, b) {
		t.Errorf("bridge (-want +got):\n%s", diff)
	}
	opts := cost.DefaultOptions()
	a, _ := cost.Allocate(p, testPrices(), opts)
	r, err := cost.NewReport(a, cost.DefaultReportOptions())
	if err != nil {
		t.Fatal(err)
	}
	if CentsOf(r.Totals.MonthlyCost) != CentsOf(b.ReportUSDMonth) {
		t.Errorf("bridge starts from %v/month, the cost report says %v", b.ReportUSDMonth, r.Totals.MonthlyCost)
	}
	if !strings.Contains(b.Text(), "report $27,375.00/month = ledger before $27,740.00 − $1,095.00 for 1 node(s) that ran part of the window + $730.00 for 1 node(s) gone before its end") {
		t.Errorf("bridge text %q", b.Text())
	}
}

// onlyUnexported reports whether two bridges agree on every exported
// field.
func onlyUnexported(a, b Bridge) bool {
	a.report, a.part, a.departed, a.rounding = 0, 0, 0, 0
	b.report, b.part, b.departed, b.rounding = 0, 0, 0, 0
	return a == b
}
