package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/yaml"
)

// stagedFleet is n Deployments each cutting its CPU request from 1000m by
// (i+1)/2 %, so that their order is known.
func stagedFleet(n int) []Staged {
	out := make([]Staged, n)
	for i := range out {
		name := fmt.Sprintf("w%02d", i)
		out[i] = Staged{Key: "ns/Deployment/" + name,
			Patch:   ResourcePatch{Workload: Workload{Kind: Deployment, Namespace: "ns", Name: name}, Evidence: "test", Containers: []ContainerResources{{Name: "c", CPURequestMilli: int64(995 - 5*i)}}},
			Current: []ContainerValues{{Name: "c", CPURequestMilli: 1000}}}
	}
	return out
}

func waveKeys(ws []Wave) []string {
	var out []string
	for _, w := range ws {
		for _, c := range w.Changes {
			out = append(out, c.Key)
		}
	}
	return out
}

func TestStagePartitionsEveryWorkloadOnceAtThePercent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n, pct, wantSize, wantWaves int
	}{
		{n: 23, pct: 10, wantSize: 3, wantWaves: 8},
		{n: 100, pct: 10, wantSize: 10, wantWaves: 10},
		{n: 23, pct: 1, wantSize: 1, wantWaves: 23},
		{n: 23, pct: 50, wantSize: 12, wantWaves: 2},
		{n: 23, pct: 100, wantSize: 23, wantWaves: 1},
		{n: 3, pct: 10, wantSize: 1, wantWaves: 3},
	} {
		t.Run(fmt.Sprintf("%d workloads at %d%%", tt.n, tt.pct), func(t *testing.T) {
			fleet := stagedFleet(tt.n)
			pl, err := Stage(Rollout{WavePercent: tt.pct, Changes: fleet})
			if err != nil {
				t.Fatal(err)
			}
			if len(pl.Waves) != tt.wantWaves {
				t.Fatalf("%d waves, want %d", len(pl.Waves), tt.wantWaves)
			}
			for i, w := range pl.Waves {
				if w.Number != i+1 || w.Day != i+1 {
					t.Errorf("wave %d: number %d day %d", i, w.Number, w.Day)
				}
				if last := i == len(pl.Waves)-1; len(w.Changes) > tt.wantSize || (!last && len(w.Changes) != tt.wantSize) || len(w.Changes) == 0 {
					t.Errorf("wave %d has %d workloads, want %d (the last at most that)", w.Number, len(w.Changes), tt.wantSize)
				}
			}
			got := waveKeys(pl.Waves)
			want := make([]string, 0, tt.n)
			for _, c := range fleet {
				want = append(want, c.Key)
			}
			// smallest change first: w00 cuts 0.5 %, w01 1 %…
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("workloads in wave order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStageOrdersSafestFirst(t *testing.T) {
	t.Parallel()
	fleet := stagedFleet(5)
	fleet[0].Risk = "high"                                                                      // smallest change, but the ledger grades it high
	fleet[1].Patch.Containers[0].GPU = &GPUChange{Resource: "nvidia.com/mig-1g.10gb", Count: 1} // a shape swap
	fleet[1].Risk = "low"
	fleet[2].Risk = "low"
	fleet[3].Risk = "medium"
	// fleet[4] is not graded: as medium, after w03 by its larger change
	pl, err := Stage(Rollout{WavePercent: 100, Changes: slices.Clone(fleet)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ns/Deployment/w02", "ns/Deployment/w01", "ns/Deployment/w03", "ns/Deployment/w04", "ns/Deployment/w00"}
	if diff := cmp.Diff(want, waveKeys(pl.Waves)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// The waves carry the levers' total to the cent: each action's saving is
// split among its workloads by weight, largest remainder, and a
// workload no wave patches (a bare Job) keeps its share outside the
// waves, named.
func TestWaveDollarsAddUpToTheLeversTotal(t *testing.T) {
	t.Parallel()
	fleet := stagedFleet(17)
	var all []string
	for _, c := range fleet {
		all = append(all, c.Key)
	}
	actions := []LedgerAction{
		{ID: "A1", Cents: 1_000_001, Workloads: all[:7], Weights: []float64{3, 1, 1, 0.3333, 0, -5, 7}},
		{ID: "A2", Cents: 99_999, Workloads: append(slices.Clone(all[5:12]), "ml/Job/once")},
		{ID: "A3", Cents: 0, Workloads: all[12:], Note: "saves nothing on its own"},
		{ID: "A4", Cents: 7, Workloads: []string{all[16], all[0], all[3]}, Weights: []float64{1, 1, 1}},
	}
	total := int64(1_000_001 + 99_999 + 7)
	for _, pct := range []int{1, 7, 10, 33, 100} {
		pl, err := Stage(Rollout{WavePercent: pct, Changes: fleet, Actions: actions, TotalCents: total,
			Outside: map[string]string{"ml/Job/once": "a bare Job"}})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, w := range pl.Waves {
			sum += w.Total()
		}
		if len(pl.Outside) != 1 || pl.Outside[0].Workload != "ml/Job/once" || pl.Outside[0].Why != "a bare Job" {
			t.Fatalf("outside = %+v, want the Job", pl.Outside)
		}
		outside := pl.Outside[0].Cents
		if sum+outside != total {
			t.Errorf("%d%%: waves %d + outside %d = %d cents, want the levers' %d", pct, sum, outside, sum+outside, total)
		}
		if want := int64(99_999 / 8); outside != want && outside != want+1 {
			t.Errorf("the Job's share of A2 is %d cents, want an eighth (%d or %d)", outside, want, want+1)
		}
	}
}

func TestSplitCents(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		total   int64
		weights []float64
		want    []int64
	}{
		{"by weight", 1000, []float64{3, 1}, []int64{750, 250}},
		{"a leftover cent goes to the largest remainder", 100, []float64{1, 1, 1}, []int64{34, 33, 33}},
		{"no positive weight splits equally", 10, []float64{0, -1, 0}, []int64{4, 3, 3}},
		{"a negative weight counts as nothing", 500, []float64{1, -3, 1}, []int64{250, 0, 250}},
		{"nothing to split", 0, []float64{2, 5}, []int64{0, 0}},
		{"remainders decide", 10, []float64{0.55, 0.45}, []int64{6, 4}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitCents(tt.total, tt.weights)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SplitCents(%d, %v) (-want +got):\n%s", tt.total, tt.weights, diff)
			}
		})
	}
}

func TestStageRefusesBadInput(t *testing.T) {
	t.Parallel()
	fleet := stagedFleet(2)
	noCurrent := stagedFleet(1)[0]
	noCurrent.Key, noCurrent.Current = "ns/Deployment/bare", nil
	for _, tt := range []struct {
		name string
		r    Rollout
		want []string
	}{
		{"no percent", Rollout{WavePercent: 0, Changes: fleet}, []string{"--wave-percent 0: want a whole percent from 1 to 100"}},
		{"over 100", Rollout{WavePercent: 101, Changes: fleet}, []string{"--wave-percent 101"}},
		{"a workload twice", Rollout{WavePercent: 10, Changes: append(slices.Clone(fleet), fleet[0])}, []string{"ns/Deployment/w00 staged twice"}},
		{"no values to roll back to", Rollout{WavePercent: 10, Changes: []Staged{noCurrent}}, []string{`ns/Deployment/bare container "c": no current values`}},
		{"actions off the levers' total", Rollout{WavePercent: 10, Changes: fleet, TotalCents: 5, Actions: []LedgerAction{{ID: "A1", Cents: 4, Workloads: []string{fleet[0].Key}}}},
			[]string{"save 4 cents together, not the levers' total 5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Stage(tt.r)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// sampleRollout: the sample patches (a GPU swap, a CronJob, a StatefulSet)
// with the values they replace, and two ledger actions.
func sampleRollout() Rollout {
	ps := samplePatches()
	cur := [][]ContainerValues{
		{{Name: "model", CPURequestMilli: 4000, CPULimitMilli: 4000, MemoryRequestBytes: 16 * gi, MemoryLimitBytes: 16 * gi, GPUResource: "nvidia.com/gpu", GPUCount: 1},
			{Name: "sidecar", CPURequestMilli: 100, MemoryRequestBytes: 128 * mi}},
		{{Name: "embed", CPURequestMilli: 8000, CPULimitMilli: 8000, MemoryRequestBytes: 32 * gi, MemoryLimitBytes: 32 * gi}},
		{{Name: "db", CPURequestMilli: 2000, MemoryRequestBytes: 10 * gi, MemoryLimitBytes: 16 * gi}},
	}
	keys := []string{"ml-serving/Deployment/chat-api", "data/CronJob/nightly-embed", "ml-serving/StatefulSet/vector-db"}
	risk := []string{"medium", "low", "low"}
	r := Rollout{WavePercent: 34, TotalCents: 114_120, Outside: map[string]string{"ml/Job/train-once": "a bare Job: set for its next run"}}
	for i, p := range ps {
		r.Changes = append(r.Changes, Staged{Key: keys[i], Patch: p, Current: cur[i], Risk: risk[i]})
	}
	r.Actions = []LedgerAction{
		{ID: "A2", Title: "Right-size 3 workload(s)", Cents: 10_120, Workloads: []string{keys[1], keys[2], "ml/Job/train-once"}, Weights: []float64{12.75, 88, 10}},
		{ID: "A4", Title: "Move 1 workload(s) to MIG slices", Cents: 104_000, Workloads: keys[:1], Shape: true},
		{ID: "A5", Title: "Time-slice 0 workload(s)", Workloads: nil, Note: "saves nothing on its own, realised by A7 (Remove 1 node, $9.00/month)"},
	}
	return r
}

func TestRolloutGolden(t *testing.T) {
	t.Parallel()
	files, err := RolloutFiles(sampleRollout())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	want := []string{"rollout/wave-01/apply.sh", "rollout/wave-01/check.sh", "rollout/wave-01/rollback.sh",
		"rollout/wave-02/apply.sh", "rollout/wave-02/check.sh", "rollout/wave-02/rollback.sh", "rollout/waves.md"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	var got bytes.Buffer
	if err := WriteStream(&got, files); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/rollout.golden", got.Bytes())
	checkShellSyntax(t, files)
	checkStreamParses(t, got.Bytes())
	for _, f := range files {
		if strings.HasSuffix(f.Path, "check.sh") && regexp.MustCompile(`(?m)^"\$KUBECTL" (patch|apply|delete|label|annotate|scale|edit)`).Match(f.Data) {
			t.Errorf("%s changes the cluster; it must only read", f.Path)
		}
	}
}

var rollbackLine = regexp.MustCompile(`(?m)^"\$KUBECTL" patch (\S+) (\S+) -n (\S+) --type strategic -p '(.*)'$`)
var applyLine = regexp.MustCompile(`(?m)^"\$KUBECTL" patch (\S+) (\S+) -n (\S+) --type strategic --patch-file (\S+)$`)

// Applying a wave's patches and then its rollback.sh gives back the
// objects as the snapshot had them: a GPU swap, a CPU limit added where
// there was none, a CronJob's jobTemplate, a limit raised.
func TestRollbackRestoresTheSnapshotsValues(t *testing.T) {
	t.Parallel()
	r := sampleRollout()
	r.WavePercent = 100
	rolloutFiles, err := RolloutFiles(r)
	if err != nil {
		t.Fatal(err)
	}
	patchFiles, err := Patches(samplePatches())
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string][]byte{}
	for _, f := range append(rolloutFiles, patchFiles...) {
		byPath[f.Path] = f.Data
	}
	// The live objects: what the snapshot's current values say.
	objects := map[string]any{}
	for _, c := range r.Changes {
		objects[c.Patch.Workload.lowerKind()+"/"+c.Patch.Workload.Name] = liveObject(c)
	}
	before := map[string]string{}
	for k, o := range objects {
		before[k] = string(mustJSON(t, o))
	}
	apply := applyLine.FindAllSubmatch(byPath["rollout/wave-01/apply.sh"], -1)
	if len(apply) != 3 {
		t.Fatalf("apply.sh patches %d workloads, want 3", len(apply))
	}
	live := map[string][]byte{}
	for k, v := range before {
		live[k] = []byte(v)
	}
	for _, m := range apply {
		k := string(m[1]) + "/" + string(m[2])
		body, err := yaml.YAMLToJSON(byPath[string(m[4])])
		if err != nil {
			t.Fatal(err)
		}
		live[k] = strategicMerge(t, live[k], body, objects[k])
	}
	for k := range live {
		if string(live[k]) == before[k] {
			t.Fatalf("%s: the forward patch changed nothing; the test would prove nothing", k)
		}
	}
	rollback := rollbackLine.FindAllSubmatch(byPath["rollout/wave-01/rollback.sh"], -1)
	if len(rollback) != 3 {
		t.Fatalf("rollback.sh patches %d workloads, want 3", len(rollback))
	}
	for _, m := range rollback {
		k := string(m[1]) + "/" + string(m[2])
		live[k] = strategicMerge(t, live[k], m[4], objects[k])
	}
	for k := range live {
		want, got := decodeResources(t, []byte(before[k]), objects[k]), decodeResources(t, live[k], objects[k])
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s after apply and rollback (-snapshot +got):\n%s", k, diff)
		}
	}
}

// liveObject is the workload as the cluster holds it before the change.
func liveObject(s Staged) any {
	var cs []corev1.Container
	for _, v := range s.Current {
		req, lim := corev1.ResourceList{}, corev1.ResourceList{}
		set := func(l corev1.ResourceList, name corev1.ResourceName, q *resource.Quantity, v int64) {
			if v > 0 {
				l[name] = *q
			}
		}
		set(req, corev1.ResourceCPU, resource.NewMilliQuantity(v.CPURequestMilli, resource.DecimalSI), v.CPURequestMilli)
		set(lim, corev1.ResourceCPU, resource.NewMilliQuantity(v.CPULimitMilli, resource.DecimalSI), v.CPULimitMilli)
		set(req, corev1.ResourceMemory, resource.NewQuantity(v.MemoryRequestBytes, resource.BinarySI), v.MemoryRequestBytes)
		set(lim, corev1.ResourceMemory, resource.NewQuantity(v.MemoryLimitBytes, resource.BinarySI), v.MemoryLimitBytes)
		if v.GPUResource != "" {
			set(req, corev1.ResourceName(v.GPUResource), resource.NewQuantity(v.GPUCount, resource.DecimalSI), v.GPUCount)
			set(lim, corev1.ResourceName(v.GPUResource), resource.NewQuantity(v.GPUCount, resource.DecimalSI), v.GPUCount)
		}
		cs = append(cs, corev1.Container{Name: v.Name, Image: "x", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}})
	}
	tpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: cs}}
	switch s.Patch.Workload.Kind {
	case CronJob:
		return &batchv1.CronJob{Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tpl}}}}
	case StatefulSet:
		return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Template: tpl}}
	}
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: tpl}}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func strategicMerge(t *testing.T, live, patch []byte, schema any) []byte {
	t.Helper()
	out, err := strategicpatch.StrategicMergePatch(live, patch, schema)
	if err != nil {
		t.Fatalf("strategic merge of %s: %v", patch, err)
	}
	return out
}

// decodeResources is each container's requests and limits, canonical.
func decodeResources(t *testing.T, obj []byte, schema any) map[string]map[string]string {
	t.Helper()
	var spec corev1.PodSpec
	switch schema.(type) {
	case *batchv1.CronJob:
		var cj batchv1.CronJob
		if err := json.Unmarshal(obj, &cj); err != nil {
			t.Fatal(err)
		}
		spec = cj.Spec.JobTemplate.Spec.Template.Spec
	default:
		var d appsv1.Deployment // StatefulSet's template sits at the same path
		if err := json.Unmarshal(obj, &d); err != nil {
			t.Fatal(err)
		}
		spec = d.Spec.Template.Spec
	}
	out := map[string]map[string]string{}
	for _, c := range spec.Containers {
		m := map[string]string{}
		for n, q := range c.Resources.Requests {
			m["requests."+string(n)] = q.String()
		}
		for n, q := range c.Resources.Limits {
			m["limits."+string(n)] = q.String()
		}
		out[c.Name] = m
	}
	return out
}

// RecommendedRollout stages the patches RecommendedResources writes, with
// the snapshot's values and right-sizing's weights: chat (MIG swap) is
// the only patch, and its GPU goes back on rollback.
func TestRecommendedRollout(t *testing.T) {
	t.Parallel()
	led := RolloutLedger{TotalCents: 500, Risk: map[string]string{"ml/Deployment/chat": "medium"},
		Actions: []LedgerAction{{ID: "A1", Cents: 500, Workloads: []string{"ml/Deployment/chat", "ml/Pod/debug"}}}}
	files, notes, err := RecommendedRollout(recsFixture(), nil, led, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 {
		t.Errorf("notes %q, want the bare pod's", notes)
	}
	byPath := map[string]string{}
	for _, f := range files {
		byPath[f.Path] = string(f.Data)
	}
	if _, ok := byPath["patches/ml/deployment-chat.yaml"]; !ok {
		t.Fatalf("no patch for chat among %d files", len(files))
	}
	rb := byPath["rollout/wave-01/rollback.sh"]
	for _, want := range []string{`"cpu":"4"`, `"memory":"16Gi"`, `"nvidia.com/gpu":"1"`, `"nvidia.com/mig-1g.10gb":null`, `"limits":{"cpu":"200m","memory":null`} {
		if !strings.Contains(rb, want) {
			t.Errorf("rollback.sh lacks %s:\n%s", want, rb)
		}
	}
	md := byPath["rollout/waves.md"]
	// chat weighs 1234.50, debug 0 (and has no patch): all of A1 is chat's
	for _, want := range []string{"| 1 | 1 | 1 | $5.00 |", "| ml/Pod/debug | a Pod cannot be patched in place", "| **total** | | | **$5.00** |"} {
		if !strings.Contains(md, want) {
			t.Errorf("waves.md lacks %q:\n%s", want, md)
		}
	}
}

// A right-size action weighs a workload by its containers' estimate, a
// shape action by its GPU shape's.
func TestFreesWeighsByLever(t *testing.T) {
	t.Parallel()
	ix := indexRecs(recsFixture())
	if got := ix.frees("ml/Deployment/chat", false); got != 1234.5 {
		t.Errorf("right-size weight %v, want the containers' 1234.5", got)
	}
	if got := ix.frees("ml/Deployment/chat", true); got != 100 {
		t.Errorf("shape weight %v, want the GPU rec's 100", got)
	}
}

func TestParseWaveHistory(t *testing.T) {
	t.Parallel()
	good := "# gpuwise wave history\n" +
		"2026-12-02T14:00:00Z\tapplied\twave-01\tns/Deployment/a\n" +
		"2026-12-02T14:00:01Z\tapplied\twave-01\tns/CronJob/b\n\n" +
		"2026-12-03T09:00:00Z\trolled-back\twave-01\tns/CronJob/b\n" +
		"2026-12-03T10:00:00Z\tapplied\twave-02\tns/StatefulSet/c\r\n"
	got, err := ParseWaveHistory("h.tsv", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ns/Deployment/a":  "applied in wave-01 at 2026-12-02T14:00:00Z (wave history)",
		"ns/StatefulSet/c": "applied in wave-02 at 2026-12-03T10:00:00Z (wave history)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	bad := "2026-12-02T14:00:00Z\tapplied\twave-01\n" +
		"yesterday\tapplied\twave-01\tns/Deployment/a\n" +
		"2026-12-02T14:00:00Z\tdone\twave-01\tns/Deployment/a\n" +
		"2026-12-02T14:00:00Z\tapplied\twave-01\ta\n"
	_, err = ParseWaveHistory("h.tsv", []byte(bad))
	for _, w := range []string{"h.tsv line 1: 3 tab-separated fields", "h.tsv line 2: time \"yesterday\"", "h.tsv line 3: event \"done\"", "h.tsv line 4: workload \"a\""} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %q", err, w)
		}
	}
}

// A wave history takes the workloads it says are applied out of the new
// waves; the pace stays a share of every staged workload, and their ledger
// cents still count toward the total.
func TestStageSkipsAppliedWorkloads(t *testing.T) {
	t.Parallel()
	fleet := stagedFleet(10)
	var all []string
	for _, c := range fleet {
		all = append(all, c.Key)
	}
	applied := map[string]string{all[0]: "applied in wave-01", all[1]: "applied in wave-01", all[2]: "applied in wave-02"}
	pl, err := Stage(Rollout{WavePercent: 20, Changes: fleet, TotalCents: 1001, Applied: applied,
		Actions: []LedgerAction{{ID: "A1", Cents: 1001, Workloads: all}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all[3:], waveKeys(pl.Waves)); diff != "" {
		t.Errorf("waves (-want +got):\n%s", diff)
	}
	if len(pl.Waves) != 4 || len(pl.Waves[0].Changes) != 2 {
		t.Errorf("%d waves, the first of %d; want 4 of 2 (20 %% of 10)", len(pl.Waves), len(pl.Waves[0].Changes))
	}
	var sum int64
	for _, w := range pl.Waves {
		sum += w.Total()
	}
	for _, a := range pl.Applied {
		sum += a.Cents
	}
	if len(pl.Applied) != 3 || sum != 1001 {
		t.Errorf("applied %+v, waves and applied carry %d cents; want 3 and 1001", pl.Applied, sum)
	}
}
