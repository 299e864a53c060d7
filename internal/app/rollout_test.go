package app

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/ledger"
)

var (
	waveApplyLine = regexp.MustCompile(`(?m)^"\$KUBECTL" patch \S+ \S+ -n \S+ --type strategic --patch-file (\S+)$`)
	wavesTotal    = regexp.MustCompile(`\| \*\*total\*\* \| \| \| \*\*(\S+)\*\* \|`)
)

// On real data (the demo, the demo at --scale 5 whose ledger counts MIG
// and time-slice shapes; the fixture has no patch) the rollout applies every patch
// generate resources writes in exactly one wave, no wave is larger than
// 10 % of them (rounded up), and waves.md's total is the right-size and
// shape levers' total in the savings ledger, to the cent ($0.00 on both:
// those levers save nothing on their own, consolidation realises them,
// and waves.md names the action that does).
func TestRolloutCoversEveryPatchAndTheLeversTotal(t *testing.T) {
	t.Parallel()
	d5 := DefaultDemo()
	d5.Scale = 5
	prep5, err := DemoSnapshot(d5)
	if err != nil {
		t.Fatal(err)
	}
	for name, mem := range map[string]*InMemory{"demo": demoMemory(t), "demo-scale-5": {Prepared: prep5}} {
		t.Run(name, func(t *testing.T) {
			a, ctx := testApp(), context.Background()
			adv := DefaultAdviseRequest()
			adv.Source = Source{Snapshot: mem}
			ar, err := a.Advise(ctx, adv)
			if err != nil {
				t.Fatal(err)
			}
			var levers ledger.Cents
			for _, l := range ar.ledgers() {
				for _, lr := range l.Levers {
					if lr.Name == ledger.LeverRightsize || lr.Name == ledger.LeverShape {
						levers += lr.Saving()
					}
				}
			}
			res, err := a.GenerateResources(ctx, adv.RecommendRequest)
			if err != nil {
				t.Fatal(err)
			}
			patches, applied, waves := map[string]bool{}, map[string]int{}, 0
			var md string
			for _, f := range res.Files {
				switch {
				case strings.HasPrefix(f.Path, "patches/"):
					patches[f.Path] = true
				case strings.HasSuffix(f.Path, "/apply.sh"):
					waves++
					for _, m := range waveApplyLine.FindAllStringSubmatch(string(f.Data), -1) {
						applied[m[1]]++
					}
				case f.Path == "rollout/waves.md":
					md = string(f.Data)
				}
			}
			if len(patches) == 0 {
				t.Fatal("no patches: the test would prove nothing")
			}
			for p := range patches {
				if applied[p] != 1 {
					t.Errorf("%s is applied by %d waves, want 1", p, applied[p])
				}
			}
			if len(applied) != len(patches) {
				t.Errorf("the waves apply %d patch files, generate wrote %d", len(applied), len(patches))
			}
			if size := (len(patches) + 9) / 10; waves != (len(patches)+size-1)/size {
				t.Errorf("%d waves for %d patches, want waves of %d", waves, len(patches), size)
			}
			if name == "demo-scale-5" && !strings.Contains(md, "saves nothing on its own, realised by ") {
				t.Error("waves.md does not name the action that realises the shape actions")
			}
			m := wavesTotal.FindStringSubmatch(md)
			if m == nil || m[1] != levers.String() {
				t.Errorf("waves.md total %v, want the levers' %s", m, levers)
			}
			t.Logf("%d patches in %d waves, levers' total %s", len(patches), waves, levers)
		})
	}
}
