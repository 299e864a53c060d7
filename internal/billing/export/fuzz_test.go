package export

import (
	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/billing/billingtest"
	"os"

	"bytes"
	"compress/gzip"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the readers (CSV, gzip CSV, Parquet
// by content): they may refuse, never panic, and a file they accept
// inspects and binds.
func FuzzRead(f *testing.F) {
	fixture, err := os.ReadFile("../testdata/fixture.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	f.Add([]byte(curFixture))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(fixture)
	zw.Close()
	f.Add(gz.Bytes())
	f.Add([]byte("PAR1garbage"))
	var pq bytes.Buffer
	if err := billingtest.ParquetFromCSV(&pq, bytes.NewReader(fixture)); err != nil {
		f.Fatal(err)
	}
	f.Add(pq.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := DefaultLimits()
		lim.MaxBytes, lim.MaxRows = 1<<20, 10000
		b := billing.NewBill()
		if err := Read(b, "fuzz", bytes.NewReader(data), lim); err != nil {
			return
		}
		b.Inspect(nil)
		b.Bind(t0, at(3), []billing.NodeLife{{Name: "a", ProviderID: "aws:///us-east-1a/i-0aaa", GPUs: 8},
			{Name: "c", ProviderID: "azure:///subscriptions/sub/resourceGroups/mc_rg/providers/Microsoft.Compute/virtualMachineScaleSets/AKS-GPU-1/virtualMachines/0", GPUs: 8}}).Reconcile(nil, nil, nil)
	})
}
