package packbench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// parseGW reads "balance=1,lookahead=2,..." over the default params.
func parseGW(s string) gpuwiseParams {
	p := defaultGpuwiseParams
	for kv := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		f, _ := strconv.ParseFloat(v, 64)
		switch k {
		case "scale":
			p.scale = f
		case "balance":
			p.balance = f
		case "lookahead":
			p.lookahead = f
		case "chances":
			p.chances = f
		case "fluid":
			p.fluid = f
		case "frag":
			p.frag = f
		case "potential":
			p.potential = f
		}
	}
	return p
}

// TestGrid compares gpuwise parameter variants with FGD when PACKBENCH_GRID
// is set: variants separated by ";" (parseGW syntax, "" for the defaults),
// on the first PACKBENCH_SEEDS protocol seeds (3) and PACKBENCH_MIXES (a
// comma list, or all); PACKBENCH_PERSEED=1 also prints per-seed values. It
// prints mean alloc@130 per mix and the smallest gain over FGD.
func TestGrid(t *testing.T) {
	spec := os.Getenv("PACKBENCH_GRID")
	if spec == "" {
		t.Skip()
	}
	d := mustDefault(t)
	ns, _ := strconv.Atoi(os.Getenv("PACKBENCH_SEEDS"))
	if ns == 0 {
		ns = 3
	}
	seeds := protocolSeeds[:ns]
	if f, err := strconv.Atoi(os.Getenv("PACKBENCH_FIRSTSEED")); err == nil {
		seeds = nil
		for i := range ns {
			seeds = append(seeds, int64(f+i))
		}
	}
	variants := append([]string{"FGD"}, strings.Split(spec, ";")...)
	mixes := Mixes
	if w := os.Getenv("PACKBENCH_MIXES"); w != "" && w != "all" {
		mixes = nil
		for n := range strings.SplitSeq(w, ",") {
			m, _ := MixByName(n)
			mixes = append(mixes, m)
		}
	}
	type job struct{ v, m, s int }
	res := make([][][]float64, len(variants))
	for v := range variants {
		res[v] = make([][]float64, len(mixes))
		for m := range mixes {
			res[v][m] = make([]float64, len(seeds))
		}
	}
	podsOf := make([][]Pod, len(mixes))
	for m, mx := range mixes {
		podsOf[m] = mx.Apply(d.nodes, d.pods)
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for j := range jobs {
				pods := podsOf[j.m]
				cfg := Config{Nodes: d.nodes, Pods: pods, Policy: FGD, Seed: seeds[j.s], Tune: DefaultTune}
				r, _, err := run(cfg, func(c *cluster, typ []typicalPod) (policy, error) {
					if variants[j.v] == "FGD" {
						return fgd{typical: typ}, nil
					}
					return newGpuwiseWith(c, pods, parseGW(variants[j.v]))
				})
				if err != nil {
					panic(err)
				}
				a, _ := Curves(r, 130)
				res[j.v][j.m][j.s] = a.Value[130]
			}
		})
	}
	for v := range variants {
		for m := range mixes {
			for s := range seeds {
				jobs <- job{v, m, s}
			}
		}
	}
	close(jobs)
	wg.Wait()
	hdr := fmt.Sprintf("%-40s", "variant")
	for _, m := range mixes {
		hdr += fmt.Sprintf(" %10s", m.Name)
	}
	fmt.Println(hdr + "   minΔ")
	for v := range variants {
		line := fmt.Sprintf("%-40s", variants[v])
		minD := 100.0
		for m := range mixes {
			var s, f float64
			for i := range seeds {
				s += res[v][m][i]
				f += res[0][m][i]
			}
			line += fmt.Sprintf(" %10.2f", s/float64(len(seeds)))
			minD = min(minD, (s-f)/float64(len(seeds)))
		}
		fmt.Println(line + fmt.Sprintf("   %+.2f", minD))
		if os.Getenv("PACKBENCH_PERSEED") != "" {
			for m := range mixes {
				fmt.Println("   ", mixes[m].Name, res[v][m])
			}
		}
	}
}
