package ledger

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

func TestScratchDemo(t *testing.T) {
	cfg := sim.DefaultConfig()
	s, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Build(Input{Snapshot: ps, Prices: pricing.Embedded()}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(l, "", "  ")
	os.WriteFile("/tmp/ledgerscratch/demo.json", b, 0o644)
}

func TestScratchFixture(t *testing.T) {
	l := build(t, fixture(t), DefaultOptions())
	b, _ := json.MarshalIndent(l, "", "  ")
	os.WriteFile("/tmp/ledgerscratch/fixture.json", b, 0o644)
}
