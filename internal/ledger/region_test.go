package ledger

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/ledger/lever"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// regionPrices: the fixture's A100 node is $10/h in us-east-1, $9 in
// us-west-2 and $8 in us-east-2; eu-west-1 ($5, another geography) and a
// Local Zone ($1) are not candidates.
func regionPricesFixture() *pricing.Catalog {
	row := func(region string, usd float64) pricing.Entry {
		return pricing.Entry{Cloud: "aws", Region: region, InstanceType: a100x4, GPUModel: "A100-80GB", GPUCount: 4,
			VCPUs: 32, MemoryGiB: 256, OnDemandUSDPerHour: usd, OnDemandAsOf: "2026-01-21", Source: "test"}
	}
	return pricing.NewCatalog([]pricing.Entry{row("us-east-1", 10), row("us-west-2", 9), row("us-east-2", 8),
		row("eu-west-1", 5), row("us-east-1-atl-1", 1)})
}

func regionOptions(dataGB float64) Options {
	o := options(LeverRegion)
	o.Region.DataGB = dataGB
	return o
}

// Moving the all-month A100 node to us-east-2 saves (10 − 8) × 730 =
// $1,460/month; 20,000 GB at $0.02/GB is $400 once: payback 400/1460
// months, under the 3-month limit.
func TestRegionMoveCounted(t *testing.T) {
	t.Parallel()
	l, err := Build(Input{Snapshot: checkpointed(t, time.Hour, "Deployment", 0), Prices: regionPricesFixture()}, regionOptions(20000))
	if err != nil {
		t.Fatal(err)
	}
	if want := CentsOf(2 * HoursPerMonth); l.Saving() != want || len(l.Actions) != 1 {
		t.Fatalf("region saves %s in %d action(s), want %s in one; not counted %+v", l.Saving(), len(l.Actions), want, l.NotCounted)
	}
	a := l.Actions[0]
	ev := map[string]float64{}
	for _, e := range a.Evidence {
		ev[e.Name] = e.Value
	}
	if a.Kind != lever.KindRegion || !strings.Contains(a.Title, "to us-east-2") || ev["one_time_transfer_usd"] != 400 ||
		ev["transfer_payback_months"] != round2(400.0/(2*HoursPerMonth)) {
		t.Errorf("action %q kind %s evidence %v; want a move to us-east-2, $400 once, payback %.2f months", a.Title, a.Kind, ev, 400.0/(2*HoursPerMonth))
	}
}

// A payback over the limit, or no data size, is not counted, with why.
func TestRegionMoveNotCounted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		dataGB float64
		want   string
	}{
		// 300,000 GB × $0.02 = $6,000 once: 4.1 months to pay back.
		{"payback over the limit", 300000, "usually not worth it: test.a100x4 is $8.00/h in us-east-2, $1,460.00/month less for 1 node(s), but moving 300000 GB at $0.02/GB costs $6,000.00 once and pays back in 4.1 months (limit 3)"},
		{"no data size", 0, "give the data the move takes (--region-data-gb)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, err := Build(Input{Snapshot: checkpointed(t, time.Hour, "Deployment", 0), Prices: regionPricesFixture()}, regionOptions(tc.dataGB))
			if err != nil {
				t.Fatal(err)
			}
			found := slices.ContainsFunc(l.NotCounted, func(nc NotCounted) bool {
				return nc.Lever == LeverRegion && strings.Contains(nc.Reason, tc.want)
			})
			if l.Saving() != 0 || len(l.Actions) != 0 || !found {
				t.Errorf("saves %s in %d actions, not counted %+v; want $0 and %q", l.Saving(), len(l.Actions), l.NotCounted, tc.want)
			}
		})
	}
}

// With no cheaper region in the geography the lever says nothing.
func TestRegionNothingCheaper(t *testing.T) {
	t.Parallel()
	l, err := Build(Input{Snapshot: checkpointed(t, time.Hour, "Deployment", 0), Prices: testPrices()}, regionOptions(100))
	if err != nil {
		t.Fatal(err)
	}
	if l.Saving() != 0 || len(l.Actions) != 0 || len(l.NotCounted) != 0 {
		t.Errorf("saves %s, %d actions, not counted %+v; want nothing", l.Saving(), len(l.Actions), l.NotCounted)
	}
}

// The region lever is off by default and on when the data size is given.
func TestRegionOffByDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dataGB float64
		on     bool
	}{{0, false}, {1, true}} {
		o := DefaultOptions()
		o.Region.DataGB = tc.dataGB
		lvs, err := lever.Levers(o.leverNames())
		if err != nil {
			t.Fatal(err)
		}
		on := slices.ContainsFunc(lvs, func(lv lever.Lever) bool { return lv.Name() == LeverRegion })
		if on != tc.on || len(lvs) != len(LeverNames())-1+btoi(tc.on) {
			t.Errorf("data %g GB: %d levers, region on %v; want on %v", tc.dataGB, len(lvs), on, tc.on)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRegionPolicyRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    capacity.RegionPolicy
		want string
	}{
		{capacity.RegionPolicy{DataGB: -1, MaxPaybackMonths: 3}, "--region-data-gb: -1"},
		{capacity.RegionPolicy{DataGB: math.NaN(), MaxPaybackMonths: 3}, "--region-data-gb: NaN"},
		{capacity.RegionPolicy{DataGB: 1, MaxPaybackMonths: -2}, "--region-max-payback: -2"},
		{capacity.RegionPolicy{DataGB: 1, MaxPaybackMonths: 0}, "--region-max-payback: 0"},
	} {
		o := DefaultOptions()
		o.Region = tc.p
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
}
