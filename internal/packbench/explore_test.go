package packbench

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestExplore prints mean alloc@130 per policy and mix when
// PACKBENCH_EXPLORE is set (a comma list of mixes, or "all").
func TestExplore(t *testing.T) {
	want := os.Getenv("PACKBENCH_EXPLORE")
	if want == "" {
		t.Skip("set PACKBENCH_EXPLORE")
	}
	d := mustDefault(t)
	pols := strings.Split(os.Getenv("PACKBENCH_POLICIES"), ",")
	if pols[0] == "" {
		pols = Policies
	}
	for _, m := range Mixes {
		if want != "all" && !strings.Contains(","+want+",", ","+m.Name+",") {
			continue
		}
		pods := m.Apply(d.nodes, d.pods)
		line := fmt.Sprintf("%-11s", m.Name)
		for _, pol := range pols {
			var sa, sf float64
			for _, seed := range protocolSeeds {
				res, err := Run(Config{Nodes: d.nodes, Pods: pods, Policy: pol, Seed: seed, Tune: DefaultTune})
				if err != nil {
					t.Fatal(err)
				}
				a, f := Curves(res, 130)
				sa += a.Value[130]
				sf += f.Value[130]
			}
			line += fmt.Sprintf("  %s %.2f/%.2f", pol, sa/10, sf/10)
		}
		t.Log(line)
	}
}
