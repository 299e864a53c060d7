package app

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/packing"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

// One source for GPU shapes (issue 27): the files `generate resources`,
// `generate vpa`, `generate timeslicing`, `generate mig` and `generate
// plan` write change a workload's GPU resource only to the shape the
// savings ledger counts for it (Ledger.Shapes), and every MIG or
// time-slice shape the ledger counts for a patchable workload is in its
// patch; `generate plan` drains only nodes a remove-nodes action removes
// (on the demo the plan removes batch-a100-1, which the ledger's A4
// scales with demand instead). On the demo, recommend moves fraud-scorer and intent-classifier
// to nvidia.com/mig-1g.10gb, the plan reverts both (their nodes have MIG
// off) and so does the ledger: no patch may swap them.
func TestGeneratedShapesAgreeWithTheLedger(t *testing.T) {
	t.Parallel()
	d5 := DefaultDemo()
	d5.Scale = 5 // its ledger counts 12 MIG and 25 time-slice shapes
	prep5, err := DemoSnapshot(d5)
	if err != nil {
		t.Fatal(err)
	}
	for name, mem := range map[string]*InMemory{"demo": demoMemory(t), "demo-scale-5": {Prepared: prep5}, "fixture": fixtureMemory(t)} {
		t.Run(name, func(t *testing.T) {
			a, ctx := testApp(), context.Background()
			adv := DefaultAdviseRequest()
			adv.Source = Source{Snapshot: mem}
			ar, err := a.Advise(ctx, adv)
			if err != nil {
				t.Fatal(err)
			}
			shapes := map[string]rightsize.GPURec{}
			removed := map[string]bool{}
			for _, l := range ar.ledgers() {
				for _, a := range l.Actions {
					for _, tg := range a.Targets {
						if a.Kind == "remove-nodes" && tg.Kind == "node" {
							removed[tg.Name] = true
						}
					}
				}
				for k, v := range l.Shapes() {
					shapes[k] = v
				}
				checkShapesAreActions(t, l)
			}
			req := adv.RecommendRequest
			plan := DefaultPlanRequest()
			plan.Source = req.Source
			runs := map[string]func() (*GenerateResult, error){
				"resources":   func() (*GenerateResult, error) { return a.GenerateResources(ctx, req) },
				"vpa":         func() (*GenerateResult, error) { return a.GenerateVPA(ctx, req) },
				"timeslicing": func() (*GenerateResult, error) { return a.GenerateTimeSlicing(ctx, req) },
				"mig":         func() (*GenerateResult, error) { return a.GenerateMIG(ctx, plan) },
				"plan":        func() (*GenerateResult, error) { return a.GeneratePlan(ctx, plan) },
			}
			patched := map[string]string{}
			for run, gen := range runs {
				res, err := gen()
				if err != nil {
					t.Fatalf("%s: %v", run, err)
				}
				for _, f := range res.Files {
					for _, c := range gpuChanges(t, f) {
						if run == "resources" {
							patched[c.workload] = c.resource
						}
						want, ok := shapes[c.workload]
						switch {
						case !ok:
							t.Errorf("%s %s gives %s %s, a GPU shape the ledger does not count (it keeps the current GPUs)", run, f.Path, c.workload, c.resource)
						case want.Resource != c.resource:
							t.Errorf("%s %s gives %s %s, the ledger counts %s", run, f.Path, c.workload, c.resource, want.Resource)
						}
					}
					if run == "timeslicing" && !hasShape(shapes, rightsize.UseTimeSlice) {
						t.Errorf("%s writes %s, and the ledger counts no time-slice shape", run, f.Path)
					}
					if f.Path == "plan/remove-nodes.sh" {
						for _, m := range drainLine.FindAllStringSubmatch(string(f.Data), -1) {
							if !removed[m[1]] {
								t.Errorf("plan/remove-nodes.sh drains %s, which no remove-nodes action of the ledger removes", m[1])
							}
						}
						if name == "demo" && !strings.Contains(string(f.Data), "# batch-a100-1 stays: the savings ledger does not remove it, ") {
							t.Errorf("plan/remove-nodes.sh does not say batch-a100-1 stays (the ledger scales it with demand):\n%s", f.Data)
						}
					}
					if run == "vpa" && strings.Contains(string(f.Data), "nvidia.com/") {
						t.Errorf("vpa %s names a GPU resource: a VPA sizes CPU and memory only", f.Path)
					}
				}
			}
			for w, g := range shapes {
				if g.Action != rightsize.UseMIG && g.Action != rightsize.UseTimeSlice || g.Resource == g.CurrentResource {
					continue
				}
				switch g.OwnerKind {
				case "Deployment", "StatefulSet", "DaemonSet", "CronJob":
				default:
					continue // not patched in place (generate says so)
				}
				if g.Container != "" && patched[w] != g.Resource {
					t.Errorf("the ledger counts %s on %s, generate resources gives it %q", g.Resource, w, patched[w])
				}
			}
			if name == "demo" {
				for _, w := range []string{"inference/Deployment/fraud-scorer", "inference/Deployment/intent-classifier"} {
					if _, ok := shapes[w]; ok || patched[w] != "" {
						t.Errorf("%s: ledger shape %v, patched to %q; want neither (the plan reverts its MIG slice)", w, ok, patched[w])
					}
				}
			}
			t.Logf("%d GPU shape(s) counted by the ledger, %d patched by generate resources", len(shapes), len(patched))
			if name == "demo-scale-5" && (!hasShape(shapes, rightsize.UseMIG) || !hasShape(shapes, rightsize.UseTimeSlice)) {
				t.Errorf("the scale-5 demo's ledger counts no MIG or no time-slice shape: the check above proved nothing")
			}
		})
	}
}

// checkShapesAreActions: every shape Ledger.Shapes gives is an item of a
// shape action of the ledger's plan.
func checkShapesAreActions(t *testing.T, l *ledger.Ledger) {
	t.Helper()
	items := map[string]bool{}
	for _, a := range l.Actions {
		if a.Lever == ledger.LeverShape {
			for _, it := range a.Items {
				items[it.Target] = true
			}
		}
	}
	for w := range l.Shapes() {
		if !items[w] {
			t.Errorf("Shapes gives %s, which no shape action of the ledger lists", w)
		}
	}
	if len(items) != len(l.Shapes()) {
		t.Errorf("%d shape items in the ledger's actions, %d shapes", len(items), len(l.Shapes()))
	}
}

func hasShape(shapes map[string]rightsize.GPURec, a rightsize.GPUAction) bool {
	for _, g := range shapes {
		if g.Action == a {
			return true
		}
	}
	return false
}

type gpuChange struct{ workload, resource string }

var drainLine = regexp.MustCompile(`(?m)^kubectl drain (\S+)`)

var applyPatch = regexp.MustCompile(`kubectl patch (\S+) (\S+) -n (\S+)`)

// gpuChanges are the GPU resources a patch file sets (a null removes
// one and is not a shape).
func gpuChanges(t *testing.T, f generate.File) []gpuChange {
	t.Helper()
	m := applyPatch.FindStringSubmatch(string(f.Data))
	if m == nil {
		return nil
	}
	kinds := map[string]string{"deployment": "Deployment", "statefulset": "StatefulSet", "daemonset": "DaemonSet", "cronjob": "CronJob"}
	workload := fmt.Sprintf("%s/%s/%s", m[3], kinds[m[1]], m[2])
	var doc map[string]any
	if err := yaml.Unmarshal(f.Data, &doc); err != nil {
		t.Fatalf("%s: %v", f.Path, err)
	}
	var out []gpuChange
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, v := range x {
				if strings.HasPrefix(k, "nvidia.com/") && v != nil && (strings.HasSuffix(k, "gpu") || strings.Contains(k, "mig-") || strings.Contains(k, ".shared")) {
					if _, isMap := v.(map[string]any); !isMap {
						out = append(out, gpuChange{workload, k})
						continue
					}
				}
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(doc)
	return dedupe(out)
}

func dedupe(cs []gpuChange) []gpuChange {
	seen := map[gpuChange]bool{}
	var out []gpuChange
	for _, c := range cs {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// TestMIGLayoutsAreTheLedgers (issue 27): `generate mig`, `generate plan`
// and the plan the savings ledger's consolidation action names (its
// command: `generate plan --shapes current` when it packs the current
// shapes) write one MIG layout: the plan packed with the GPU shapes the
// ledger counts. Before, `generate mig` packed every shape recommend
// lists, and on the demo gave mig-a100-1 another layout than the ledger's
// `--shapes current` plan (GPU 3 as 7×1g.10gb, not 4×1g.10gb+1g.20gb+2g.20gb).
func TestMIGLayoutsAreTheLedgers(t *testing.T) {
	t.Parallel()
	a, ctx := testApp(), context.Background()
	mem := demoMemory(t)
	adv := DefaultAdviseRequest()
	adv.Source = Source{Snapshot: mem}
	ar, err := a.Advise(ctx, adv)
	if err != nil {
		t.Fatal(err)
	}
	cited := ""
	for _, act := range ar.Ledger.Actions {
		for _, art := range act.Artefacts {
			if slices.Contains(art.Files, "mig-parted/configmap.yaml") {
				cited = art.Command
			}
		}
	}
	if cited == "" {
		t.Fatal("no action of the demo's ledger re-cuts a MIG GPU: nothing to compare")
	}
	ledgerPlan := DefaultPlanRequest()
	ledgerPlan.Source = adv.Source
	if strings.Contains(cited, "--shapes current") {
		ledgerPlan.Shapes = packing.CurrentShapes
	}
	def := DefaultPlanRequest()
	def.Source = adv.Source
	migFiles := func(res *GenerateResult, err error) map[string]string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range res.Files {
			if strings.HasPrefix(f.Path, "mig-parted/") {
				out[f.Path] = string(f.Data)
			}
		}
		return out
	}
	want := migFiles(a.GeneratePlan(ctx, ledgerPlan))
	if !strings.Contains(want["mig-parted/apply.sh"], "node mig-a100-1 -> ") {
		t.Fatalf("the ledger's plan (%s) re-cuts no GPU of mig-a100-1:\n%s", cited, want["mig-parted/apply.sh"])
	}
	for name, got := range map[string]map[string]string{"generate mig": migFiles(a.GenerateMIG(ctx, def)), "generate plan": migFiles(a.GeneratePlan(ctx, def))} {
		for path, w := range want {
			if got[path] != w {
				t.Errorf("%s %s differs from the ledger's plan (%s):\n%s\nwant:\n%s", name, path, cited, got[path], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s writes %d MIG files, the ledger's plan %d", name, len(got), len(want))
		}
	}
}

// TestResourcePatchMoneyIsTheLedgers (issue 27): the only dollars a
// `generate resources` patch states are the savings ledger's: an action's
// saving, or a figure of the reason the ledger gives for not counting the
// workload's change; a workload a shape or right-size action lists names
// that action. Before, every patch said "saves $X/month" from recommend's
// estimate, which the ledger does not count (on the demo it counts $0 for
// every request change).
func TestResourcePatchMoneyIsTheLedgers(t *testing.T) {
	t.Parallel()
	d5 := DefaultDemo()
	d5.Scale = 5
	prep5, err := DemoSnapshot(d5)
	if err != nil {
		t.Fatal(err)
	}
	dollars := regexp.MustCompile(`-?\$[0-9][0-9,]*\.[0-9]{2}`)
	for name, mem := range map[string]*InMemory{"demo": demoMemory(t), "demo-scale-5": {Prepared: prep5}} {
		t.Run(name, func(t *testing.T) {
			a, ctx := testApp(), context.Background()
			adv := DefaultAdviseRequest()
			adv.Source = Source{Snapshot: mem}
			ar, err := a.Advise(ctx, adv)
			if err != nil {
				t.Fatal(err)
			}
			ledgerText := map[string]string{} // per workload: every ledger figure it may state
			lists := map[string]string{}      // per workload: the shape or right-size action that lists it
			var savings []string
			for _, l := range ar.ledgers() {
				for _, act := range l.Actions {
					savings = append(savings, act.Saving().String())
					if act.Lever == ledger.LeverRightsize || act.Lever == ledger.LeverShape {
						for _, it := range act.Items {
							lists[it.Target] = act.ID
						}
					}
				}
				for _, nc := range l.NotCounted {
					ledgerText[nc.Target] += nc.Reason + " "
				}
			}
			res, err := a.GenerateResources(ctx, adv.RecommendRequest)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, f := range res.Files {
				m := applyPatch.FindStringSubmatch(string(f.Data))
				if m == nil {
					continue
				}
				kinds := map[string]string{"deployment": "Deployment", "statefulset": "StatefulSet", "daemonset": "DaemonSet", "cronjob": "CronJob"}
				w := fmt.Sprintf("%s/%s/%s", m[3], kinds[m[1]], m[2])
				header, _, _ := strings.Cut(string(f.Data), "\napiVersion:")
				for _, d := range dollars.FindAllString(header, -1) {
					if !slices.Contains(savings, d) && !strings.Contains(ledgerText[w], d) {
						t.Errorf("%s states %s, which is no saving of the ledger's actions nor a figure of its reason for %s:\n%s", f.Path, d, w, header)
					}
				}
				if id := lists[w]; id != "" && !strings.Contains(header, "savings ledger: "+id+" (") {
					t.Errorf("%s: the ledger's %s lists %s, the patch does not name it:\n%s", f.Path, id, w, header)
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no patch checked")
			}
			if name == "demo-scale-5" && len(lists) == 0 {
				t.Error("the scale-5 ledger lists no workload in a shape or right-size action: the check above proved nothing")
			}
		})
	}
}
