package billing_test

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/billing/export"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// testdata/fixture.csv is a hand-written FOCUS 1.2-style export: hourly AWS rows
// (on-demand, savings-plan amortized, a split hour, spot, one outside
// the window), a daily Azure scale-set row in lower case, an unmatched
// GPU instance, an unused commitment and a disk.

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func at(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }

func fixtureNodes() []billing.NodeLife {
	vmss := "azure:///subscriptions/sub/resourceGroups/mc_rg/providers/Microsoft.Compute/virtualMachineScaleSets/AKS-GPU-1/virtualMachines/"
	return []billing.NodeLife{
		{Name: "a", ProviderID: "aws:///us-east-1a/i-0aaa", GPUs: 8, InstanceType: "p5.48xlarge", Capacity: "on-demand"},
		{Name: "b", ProviderID: "aws:///us-east-1a/i-0bbb", Created: at(1.5), GPUs: 8, InstanceType: "p5.48xlarge", Capacity: "spot"},
		{Name: "c", ProviderID: vmss + "0", GPUs: 8},
		{Name: "d", ProviderID: vmss + "1", Deleted: at(1), GPUs: 8},
		{Name: "e", ProviderID: "aws:///us-east-1a/i-0eee", GPUs: 8},
		{Name: "g", ProviderID: "aws:///us-east-1a/i-0ggg", GPUs: 8},
		{Name: "sys", ProviderID: "aws:///us-east-1a/i-0sys"},
	}
}

// flat prices every node at $50/h (the catalog stand-in).
type flat struct{}

func (flat) Price(n pricing.NodeSpec) (pricing.NodePrice, error) {
	p := pricing.SplitPrice(50, n)
	p.Source, p.Origin = "flat", pricing.OriginCatalog
	return p, nil
}

func readFixture(t *testing.T) *billing.Bill {
	f, err := os.Open("testdata/fixture.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := billing.NewBill()
	if err := export.Read(b, "fixture.csv", f, export.DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	return b
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.10f, want %.10f", what, got, want)
	}
}

// Every figure below is worked out by hand from the fixture's rows.
func TestMatchFixture(t *testing.T) {
	b := readFixture(t)
	m := b.Bind(t0, at(3), fixtureNodes())
	// a: 55.04 + 30 (savings plan) + 20 + 10 (a split hour) over 3 h.
	a := m.Node("a")
	near(t, "a usd", a.USD, 115.04)
	near(t, "a committed", a.CommittedUSD, 50)
	near(t, "a billed hours", a.BilledHours, 3)
	// b joined at 01:30: the 01:00 hour's $10 is all its own (partial
	// hour); the 03:00 row is outside the window.
	bb := m.Node("b")
	near(t, "b usd", bb.USD, 20)
	near(t, "b hours", bb.Hours, 1.5)
	near(t, "b billed hours", bb.BilledHours, 1.5)
	if !bb.Spot {
		t.Error("b: spot not seen")
	}
	// c and d share the scale set's $240 day by node-hours: c 24 h, d 1 h
	// (deleted 01:00) of 25; in the window c has 3 h, d 1 h.
	near(t, "c usd", m.Node("c").USD, 240*3.0/25)
	near(t, "d usd", m.Node("d").USD, 240*1.0/25)
	if !m.Node("c").Shared || m.Node("c").ResourceID == "" {
		t.Errorf("c: %+v", m.Node("c"))
	}
	if e := m.Node("e"); e.BilledHours != 0 || e.USD != 0 {
		t.Errorf("e has no bill line: %+v", e)
	}

	pr := &billing.Pricer{Fallback: flat{}, Match: m}
	spec := func(name string) pricing.NodeSpec {
		return pricing.NodeSpec{Name: name, GPUCount: 8, CPUCores: 192, MemoryGiB: 2048}
	}
	var costs []billing.NodeCost
	for _, n := range []string{"a", "b", "c", "d", "e", "g"} {
		p, err := pr.Price(spec(n))
		if err != nil {
			t.Fatal(err)
		}
		sum := p.GPUUSDPerHour*8 + p.CPUUSDPerCoreHour*192 + p.MemoryUSDPerGiBHour*2048
		near(t, n+" split sum", sum, p.NodeUSDPerHour)
		costs = append(costs, billing.NodeCost{Node: n, Hours: m.Node(n).Hours, USDPerHour: p.NodeUSDPerHour, Priced: true,
			PriceSource: p.Source, PriceOrigin: p.Origin, PriceAsOf: p.AsOf})
	}
	pa, _ := pr.Price(spec("a"))
	near(t, "a rate", pa.NodeUSDPerHour, 115.04/3)
	if pa.Origin != pricing.OriginBill || pa.AsOf != "2026-11-01" {
		t.Errorf("a price %+v", pa)
	}
	// g: billed $40 for 1 of 3 h, the catalog's $50 for the other 2.
	pg, _ := pr.Price(spec("g"))
	near(t, "g rate", pg.NodeUSDPerHour, (40+50*2)/3.0)
	// A what-if: a on spot is not a's on-demand bill but the bill's spot
	// rate of p5.48xlarge (b: $20 over 1.5 h); a on-demand is its own.
	what := spec("a")
	what.InstanceType, what.Capacity = "p5.48xlarge", pricing.Spot
	ps, _ := pr.Price(what)
	near(t, "a on spot", ps.NodeUSDPerHour, 20/1.5)
	if ps.Origin != pricing.OriginBill || !strings.Contains(ps.Source, "spot") {
		t.Errorf("a on spot: %+v", ps)
	}
	what.Capacity = pricing.OnDemand
	pod, _ := pr.Price(what)
	near(t, "a on demand", pod.NodeUSDPerHour, 115.04/3)
	what.InstanceType = "p4d.24xlarge"
	if p4, _ := pr.Price(what); p4.Origin != pricing.OriginCatalog {
		t.Errorf("a as another type priced from its bill: %+v", p4)
	}
	pe, _ := pr.Price(spec("e"))
	if pe.Origin != pricing.OriginCatalog || pe.NodeUSDPerHour != 50 {
		t.Errorf("e (no bill) price %+v", pe)
	}

	rc := m.Reconcile(costs, nil, func(_, it string) bool { return strings.HasPrefix(it, "p") })
	matched := 115.04 + 20 + 240*4.0/25 + 40
	near(t, "matched", rc.MatchedUSD, matched)
	near(t, "bill", rc.BillUSD, matched+32.77)
	near(t, "unmatched", rc.UnmatchedBillUSD, 32.77)
	near(t, "difference", rc.DifferenceUSD, 0)
	near(t, "unbilled (e 3 h, g 2 h at $50)", rc.UnbilledNodeUSD, 150+100)
	near(t, "gpuwise node", rc.GPUwiseNodeUSD, matched+250)
	near(t, "committed", rc.CommittedUSD, 50)
	near(t, "unused commitment", rc.UnusedCommitmentUSD, 7.5)
	if len(rc.UnmatchedGPULines) != 1 || rc.UnmatchedGPULines[0].ResourceID != "i-0fff" || rc.UnmatchedGPULines[0].InstanceType != "p4d.24xlarge" {
		t.Errorf("unmatched GPU lines %+v", rc.UnmatchedGPULines)
	}
	if strings.Join(rc.NodesWithoutBill, ",") != "e" {
		t.Errorf("nodes without bill %v", rc.NodesWithoutBill)
	}
	// The savings plan covered a's 01:00 hour ($30 amortized for $55.04
	// list) and part of its 02:00 hour ($20 for $36.69): realised discount
	// 1 − 50/91.73; a's committed share 50 of its 115.04.
	amortized, list, ids, ok := m.Commitments()
	near(t, "committed amortized", amortized, 50)
	near(t, "committed list", list, 55.04+36.69)
	if !ok || strings.Join(ids, ",") != "arn:aws:savingsplans::1:savingsplan/sp1" {
		t.Errorf("commitments %v ok %v", ids, ok)
	}
	d, src, ok := pr.CommitmentDiscount()
	near(t, "realised discount", d, 1-50/91.73)
	if !ok || !strings.Contains(src, "bill fixture.csv, arn:aws:savingsplans::1:savingsplan/sp1: $50.00 amortized for $91.73 list, charges up to 2026-11-01") {
		t.Errorf("discount source %q", src)
	}
	near(t, "a committed share", pr.CommittedShare("a"), 50/115.04)
	near(t, "b committed share", pr.CommittedShare("b"), 0)
	// Property: the bill's window total is matched + CPU nodes + unmatched.
	near(t, "bill = matched + cpu + unmatched", rc.BillUSD, rc.MatchedUSD+rc.CPUNodesUSD+rc.UnmatchedBillUSD)
}

// A charge outside every node's life is unmatched: pro rata to the window.
func TestUnmatchedProRata(t *testing.T) {
	b := readFixture(t)
	m := b.Bind(at(0.5), at(1.5), nil)
	rc := m.Reconcile(nil, nil, nil)
	// a: half of hour 0 (27.52) + half of hour 1 (15); b: half of hour 1
	// (5); f and g: half of hour 0; Azure: 1/24 of the day.
	near(t, "bill", rc.BillUSD, 27.52+15+5+32.77/2+20+10)
	near(t, "unmatched", rc.UnmatchedBillUSD, rc.BillUSD)
}
