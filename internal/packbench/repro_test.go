package packbench

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gpuwise/gpuwise/internal/shareddata"
	"github.com/gpuwise/gpuwise/internal/trace"
)

// openbDir is the shared copy of the openb trace, relative to this package.
const openbDir = "../../../shared/data/openb"

// protocolSeeds are the protocol's seeds.
var protocolSeeds = []int64{42, 43, 44, 45, 46, 47, 48, 49, 50, 51}

// publishedPolicy maps our policy names to the published sc_policy values.
var publishedPolicy = map[string]string{BestFit: "05-BestFit", FGD: "06-FGD"}

type defaultTrace struct {
	nodes []Node
	pods  []Pod
}

var loadDefault = sync.OnceValues(func() (defaultTrace, error) {
	if _, err := os.Stat(openbDir); err != nil {
		return defaultTrace{}, fmt.Errorf("the openb trace must be at %s (the shared data directory beside the repository, see ../shared/data/README.md): %w", openbDir, err)
	}
	nf, err := os.Open(filepath.Join(openbDir, "openb_node_list_gpu_node.csv"))
	if err != nil {
		return defaultTrace{}, err
	}
	defer nf.Close()
	nrows, err := trace.ReadOpenBNodes(nf)
	if err != nil {
		return defaultTrace{}, err
	}
	pf, err := os.Open(filepath.Join(openbDir, "openb_pod_list_default.csv"))
	if err != nil {
		return defaultTrace{}, err
	}
	defer pf.Close()
	prows, err := trace.ReadOpenBPods(pf)
	if err != nil {
		return defaultTrace{}, err
	}
	nodes, err := NodesFromOpenB(nrows)
	if err != nil {
		return defaultTrace{}, err
	}
	return defaultTrace{nodes: nodes, pods: PodsFromOpenB(prows)}, nil
})

func mustDefault(tb testing.TB) defaultTrace {
	tb.Helper()
	shareddata.Need(tb, openbDir)
	d, err := loadDefault()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// published reads a published results file: policy → seed → column cells
// (as written, so that the comparison is on the printed text).
func published(tb testing.TB, name string) map[string]map[int64][]string {
	tb.Helper()
	f, err := os.Open(filepath.Join(openbDir, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	first := 0
	for i, h := range rows[0] {
		if h == "0" {
			first = i
		}
	}
	out := map[string]map[int64][]string{}
	for _, row := range rows[1:] {
		seed, err := strconv.ParseInt(row[3], 10, 64)
		if err != nil {
			tb.Fatal(err)
		}
		if out[row[1]] == nil {
			out[row[1]] = map[int64][]string{}
		}
		out[row[1]][seed] = row[first:]
	}
	return out
}

// cellEqual compares our value with a published cell by value.
func cellEqual(got float64, want string) bool {
	w, err := strconv.ParseFloat(strings.TrimSpace(want), 64)
	return err == nil && w == got
}

// testSeeds are the protocol's seeds, or two of them under -race.
func testSeeds() []int64 {
	if raceEnabled {
		return []int64{42, 48}
	}
	return protocolSeeds
}

// TestReproducesPublishedCells checks every published per-seed cell of
// BestFit and FGD, allocation and fragmentation, on the default trace.
func TestReproducesPublishedCells(t *testing.T) {
	t.Parallel()
	d := mustDefault(t)
	alloc := published(t, "fgd_results_alloc_default.csv")
	frag := published(t, "fgd_results_frag_default.csv")
	for _, pol := range []string{BestFit, FGD} {
		t.Run(pol, func(t *testing.T) {
			t.Parallel()
			var matchA, matchF, total int
			for _, seed := range testSeeds() {
				res, err := Run(Config{Nodes: d.nodes, Pods: d.pods, Policy: pol, Seed: seed, Tune: DefaultTune})
				if err != nil {
					t.Fatal(err)
				}
				a, f := Curves(res, 130)
				wa, wf := alloc[publishedPolicy[pol]][seed], frag[publishedPolicy[pol]][seed]
				for col := 0; col <= 130; col++ {
					total++
					if a.Has[col] && cellEqual(a.Value[col], wa[col]) {
						matchA++
					} else {
						t.Logf("seed %d alloc column %d: got %v, published %s", seed, col, a.Value[col], wa[col])
					}
					if f.Has[col] && cellEqual(f.Value[col], wf[col]) {
						matchF++
					} else {
						t.Logf("seed %d frag column %d: got %v, published %s", seed, col, f.Value[col], wf[col])
					}
				}
			}
			t.Logf("%s: alloc %d/%d, frag %d/%d cells match", pol, matchA, total, matchF, total)
			if matchA != total || matchF != total {
				t.Errorf("%s: alloc %d/%d, frag %d/%d cells match the published results", pol, matchA, total, matchF, total)
			}
		})
	}
}
