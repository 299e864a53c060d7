package export

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/billing/billingtest"
)

func readBoth(t *testing.T, csvText string) (fromCSV, fromParquet *billing.Bill) {
	t.Helper()
	fromCSV = billing.NewBill()
	if err := Read(fromCSV, "x.csv", strings.NewReader(csvText), DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	var pq bytes.Buffer
	if err := billingtest.ParquetFromCSV(&pq, strings.NewReader(csvText)); err != nil {
		t.Fatal(err)
	}
	fromParquet = billing.NewBill()
	if err := Read(fromParquet, "x.parquet", bytes.NewReader(pq.Bytes()), DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	return fromCSV, fromParquet
}

// The same export as CSV and as Parquet (typed doubles and timestamps)
// reads into the same bill, FOCUS and CUR 2.0 alike.
func TestParquetReadsAsCSV(t *testing.T) {
	fixture, err := os.ReadFile("../testdata/fixture.csv")
	if err != nil {
		t.Fatal(err)
	}
	nodes := []billing.NodeLife{{Name: "a", ProviderID: "aws:///us-east-1a/i-0aaa", GPUs: 8},
		{Name: "b", ProviderID: "aws:///us-east-1a/i-0bbb", Created: at(1.5), GPUs: 8},
		{Name: "c", ProviderID: "azure:///subscriptions/sub/resourceGroups/mc_rg/providers/Microsoft.Compute/virtualMachineScaleSets/AKS-GPU-1/virtualMachines/0", GPUs: 8}}
	for name, text := range map[string]string{"focus": string(fixture), "cur2": curFixture} {
		c, p := readBoth(t, text)
		if p.Files[0].Rows != c.Files[0].Rows || p.Files[0].Format != c.Files[0].Format {
			t.Fatalf("%s: files %+v vs %+v", name, p.Files, c.Files)
		}
		mc, mp := c.Bind(t0, at(3), nodes), p.Bind(t0, at(3), nodes)
		for _, n := range nodes {
			near(t, name+" "+n.Name, mp.Node(n.Name).USD, mc.Node(n.Name).USD)
		}
		rc, rp := mc.Reconcile(nil, nil, nil), mp.Reconcile(nil, nil, nil)
		near(t, name+" bill", rp.BillUSD, rc.BillUSD)
		near(t, name+" unused", rp.UnusedCommitmentUSD, rc.UnusedCommitmentUSD)
		if rc.BillUSD == 0 {
			t.Errorf("%s: empty bill", name)
		}
	}
}

func TestParquetGeneratedAndCorrupt(t *testing.T) {
	// 100,000 hourly rows of 1,000 instances at $2.50.
	var text strings.Builder
	text.WriteString("ProviderName,ServiceName,ServiceCategory,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BillingPeriodStart,BilledCost,EffectiveCost,ListCost,ResourceId\n")
	for i := 0; i < 100_000; i++ {
		s := t0.Add(time.Duration(i/1000) * time.Hour)
		fmt.Fprintf(&text, "AWS,EC2,Compute,Usage,%s,%s,%s,2.5,2.5,2.5,%s\n", s.Format(time.RFC3339), s.Add(time.Hour).Format(time.RFC3339),
			t0.Format(time.RFC3339), instanceID(i%1000))
	}
	var pq bytes.Buffer
	if err := billingtest.ParquetFromCSV(&pq, strings.NewReader(text.String())); err != nil {
		t.Fatal(err)
	}
	b := billing.NewBill()
	if err := Read(b, "gen.parquet", bytes.NewReader(pq.Bytes()), DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	in := b.Inspect(nil)
	if in.Rows != 100_000 || in.ComputeResources != 1000 {
		t.Fatalf("rows %d, resources %d", in.Rows, in.ComputeResources)
	}
	near(t, "effective", in.Providers[0].EffectiveCost, 2.5*100_000)
	m := b.Bind(t0, t0.Add(100*time.Hour), []billing.NodeLife{{Name: "n", ProviderID: "aws:///z/" + instanceID(7), GPUs: 8}})
	near(t, "node", m.Node("n").USD, 2.5*100)
	lim := DefaultLimits()
	lim.MaxRows = 10
	if err := Read(billing.NewBill(), "gen.parquet", bytes.NewReader(pq.Bytes()), lim); err == nil || !strings.Contains(err.Error(), "row limit") {
		t.Errorf("row limit: %v", err)
	}
	cut := pq.Bytes()[:pq.Len()/2]
	if err := Read(billing.NewBill(), "cut.parquet", bytes.NewReader(cut), DefaultLimits()); err == nil {
		t.Error("a truncated Parquet file read without error")
	}
	if err := Read(billing.NewBill(), "stream.parquet", bytes.NewBufferString("PAR1xxxx"), DefaultLimits()); err == nil || !strings.Contains(err.Error(), "from a file") {
		t.Errorf("stream: %v", err)
	}
}

func instanceID(i int) string { return fmt.Sprintf("i-0bench%011d", i) }
