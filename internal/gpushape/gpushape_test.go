package gpushape

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func mustModel(t *testing.T, name string) Model {
	t.Helper()
	m, ok := Lookup(name)
	if !ok {
		t.Fatalf("Lookup(%q) not found", name)
	}
	return m
}

// The reference enumerates 77 valid non-empty layouts and 28 maximal ones
// on every 7-slice GPU; A30 has 4 maximal layouts.
func TestLayoutCounts(t *testing.T) {
	for _, name := range []string{"A100-40GB", "A100-80GB", "H100-80GB", "H100-94GB", "H100-96GB", "H200-141GB", "B200"} {
		m := mustModel(t, name)
		if got := len(m.Layouts()); got != 77 {
			t.Errorf("%s: %d valid layouts, want 77", name, got)
		}
		if got := len(m.MaximalLayouts()); got != 28 {
			t.Errorf("%s: %d maximal layouts, want 28", name, got)
		}
	}
	var got []string
	for _, l := range mustModel(t, "A30").MaximalLayouts() {
		got = append(got, l.String())
	}
	want := []string{"2g.12gb+2x1g.6gb", "2x2g.12gb", "4g.24gb", "4x1g.6gb"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("A30 maximal layouts (-want +got):\n%s", diff)
	}
}

// The 28 maximal 7-slice layouts of gpu-formats.md §3.1 (1gD = 1g with two
// memory slices), on A100-80GB names.
func TestMaximalLayoutsMatchReference(t *testing.T) {
	ref := `7g | 4g+3g | 4g+2g+1g | 4g+2g+1gD | 4g+1gD+2x1g | 4g+3x1g | 4g+2x1gD
3g+2x2g | 3g+2g+2x1g | 3g+4x1g | 3g+2g+1gD | 3g+1gD+2x1g | 3g+2x1gD | 2x3g
3x2g+1g | 3x2g+1gD | 2x2g+3x1g | 2x2g+1gD+2x1g | 2x2g+2x1gD
2g+5x1g | 2g+1gD+4x1g | 2g+2x1gD+2x1g | 2g+3x1gD
7x1g | 1gD+6x1g | 2x1gD+4x1g | 3x1gD+2x1g | 4x1gD`
	names := map[string]string{"7g": "7g.80gb", "4g": "4g.40gb", "3g": "3g.40gb", "2g": "2g.20gb", "1g": "1g.10gb", "1gD": "1g.20gb"}
	want := map[string]bool{}
	for _, item := range strings.FieldsFunc(ref, func(r rune) bool { return r == '|' || r == '\n' }) {
		l := Layout{}
		for _, part := range strings.Split(strings.TrimSpace(item), "+") {
			n := 1
			if i := strings.Index(part, "x"); i > 0 {
				n = leadingInt(part)
				part = part[i+1:]
			}
			l[names[part]] += n
		}
		want[l.String()] = true
	}
	if len(want) != 28 {
		t.Fatalf("reference parsed into %d layouts", len(want))
	}
	m := mustModel(t, "A100-80GB")
	for _, l := range m.MaximalLayouts() {
		if !want[l.String()] {
			t.Errorf("derived maximal layout %s is not in the reference", l)
		}
		delete(want, l.String())
	}
	for l := range want {
		t.Errorf("reference layout %s not derived", l)
	}
}

func TestValid(t *testing.T) {
	m := mustModel(t, "A100-80GB")
	cases := []struct {
		layout Layout
		errHas string
	}{
		{Layout{"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}, ""},
		{Layout{"4g.40gb": 1, "3g.40gb": 1}, ""},
		{Layout{"1g.10gb": 7}, ""},
		{Layout{"1g.10gb": 6, "1g.10gb+me": 1}, ""},
		{Layout{"1g.10gb+me": 2}, "maximum of 1"},
		{Layout{"1g.10gb": 8}, "maximum of 7"},
		{Layout{"4g.40gb": 1, "3g.40gb": 1, "1g.10gb": 1}, "compute slices"},
		{Layout{"3g.40gb": 2, "1g.10gb": 1}, "no placement"},
		// Compute fits (6/7) but memory does not: 2g starts at 0, 2 or 4 and
		// 3g at 0 or 4, so 3g+2x2g+... is fine while 4g+2x2g is not.
		{Layout{"4g.40gb": 1, "2g.20gb": 1, "1g.20gb": 1, "1g.10gb": 0}, ""},
		{Layout{"1g.20gb": 4, "1g.10gb": 1}, "no placement"},
		{Layout{"3g.20gb": 1}, "no MIG profile"},
		{Layout{}, "empty"},
		{Layout{"1g.10gb": -1}, "negative"},
	}
	for _, c := range cases {
		err := m.Valid(c.layout)
		switch {
		case c.errHas == "" && err != nil:
			t.Errorf("Valid(%v) = %v, want nil", c.layout, err)
		case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
			t.Errorf("Valid(%v) = %v, want error containing %q", c.layout, err, c.errHas)
		}
	}
	if _, err := mustModel(t, "L4").Place(Layout{"1g.6gb": 1}); err == nil {
		t.Error("L4 accepted a MIG layout")
	}
}

func TestPlaceGivesNonOverlappingStarts(t *testing.T) {
	m := mustModel(t, "H100-80GB")
	for _, l := range m.Layouts() {
		pl, err := m.Place(l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		var used uint32
		for _, p := range pl {
			prof, _ := m.Profile(p.Profile)
			mask := (uint32(1)<<prof.MemorySlices - 1) << p.Start
			if used&mask != 0 || p.Start+prof.MemorySlices > m.MemorySlices {
				t.Fatalf("%s: overlapping placement %v", l, pl)
			}
			if !containsInt(prof.Starts, p.Start) {
				t.Fatalf("%s: %s placed at %d, allowed %v", l, p.Profile, p.Start, prof.Starts)
			}
			used |= mask
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestProfilesPerModel(t *testing.T) {
	cases := map[string]string{
		"A100-40GB":  "1g.5gb 1g.5gb+me 1g.10gb 2g.10gb 3g.20gb 4g.20gb 7g.40gb",
		"A100-80GB":  "1g.10gb 1g.10gb+me 1g.20gb 2g.20gb 3g.40gb 4g.40gb 7g.80gb",
		"H100-94GB":  "1g.12gb 1g.12gb+me 1g.24gb 2g.24gb 3g.47gb 4g.47gb 7g.94gb",
		"H200-141GB": "1g.18gb 1g.18gb+me 1g.35gb 2g.35gb 3g.71gb 4g.71gb 7g.141gb",
		"B200":       "1g.23gb 1g.23gb+me 1g.45gb 2g.45gb 3g.90gb 4g.90gb 7g.180gb",
		"A30":        "1g.6gb 1g.6gb+me 2g.12gb 4g.24gb",
		"L4":         "",
	}
	for name, want := range cases {
		m := mustModel(t, name)
		var got []string
		for _, p := range m.Profiles {
			got = append(got, p.Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s profiles = %v, want %s", name, got, want)
		}
	}
}

func TestSmallestFit(t *testing.T) {
	a100 := mustModel(t, "A100-80GB")
	cases := []struct {
		model   Model
		memMiB  int64
		compute float64
		want    string // "" = no fit
	}{
		{a100, 6 * 1024, 0.05, "1g.10gb"},
		{a100, 12 * 1024, 0.10, "1g.20gb"}, // memory needs two slices, compute one
		{a100, 12 * 1024, 0.25, "2g.20gb"}, // two compute slices
		{a100, 30 * 1024, 0.10, "3g.40gb"}, // 3g (4/8) is smaller than 4g (4/7)
		{a100, 30 * 1024, 0.50, "4g.40gb"}, // 3/7 < 0.5 compute
		{a100, 45 * 1024, 0.10, ""},        // > 40 GB: only the whole GPU
		{a100, 1024, 0.90, ""},             // busy: only the whole GPU
		{mustModel(t, "A30"), 5 * 1024, 0.2, "1g.6gb"},
		{mustModel(t, "L4"), 1024, 0.01, ""}, // no MIG
	}
	for _, c := range cases {
		fit, ok := c.model.SmallestFit(c.memMiB, c.compute)
		got := ""
		if ok {
			got = fit.Profile.Name
		}
		if got != c.want {
			t.Errorf("%s SmallestFit(%d MiB, %.2f) = %q, want %q", c.model.Name, c.memMiB, c.compute, got, c.want)
		}
	}
}

func TestFromNodeLiveDataWins(t *testing.T) {
	// A GB200-like product: not in the table, advertises its own names.
	n := &cluster.Node{Name: "gb-1", GPUModel: "GB200", Labels: map[string]string{
		"nvidia.com/mig-1g.24gb.memory": "20480",
		"nvidia.com/mig-2g.47gb.memory": "45056",
	}, GPUs: []cluster.GPU{{Index: 0, Model: "GB200", MemoryMiB: 189471, Sharing: cluster.MIG}}}
	m, notes, reason, ok := FromNode(n)
	if !ok {
		t.Fatalf("FromNode: %s", reason)
	}
	if p, ok := m.Profile("1g.24gb"); !ok || p.MemoryMiB != 20480 || p.MaxCount != 7 {
		t.Errorf("1g.24gb = %+v, %v", p, ok)
	}
	if err := m.Valid(Layout{"2g.47gb": 3, "1g.24gb": 1}); err != nil {
		t.Errorf("live profiles: %v", err)
	}
	if len(notes) == 0 {
		t.Error("no note that the model is planned from live data only")
	}

	// A known model whose node reports other names and memory.
	n = &cluster.Node{Name: "h100-1", GPUModel: "H100-80GB", Labels: map[string]string{
		"nvidia.com/mig-1g.10gb.memory": "9856",
	}, GPUs: []cluster.GPU{{Index: 0, Model: "H100-80GB", MemoryMiB: 81559}}}
	m, _, _, ok = FromNode(n)
	if p, _ := m.Profile("1g.10gb"); !ok || p.MemoryMiB != 9856 || m.MemoryMiB != 81559 {
		t.Errorf("live memory not applied: profile %+v, model %d MiB", p, m.MemoryMiB)
	}
	if base := mustModel(t, "H100-80GB"); base.Profiles[0].MemoryMiB == 9856 {
		t.Error("FromNode modified the built-in table")
	}

	// Unknown and silent: no guess.
	_, _, reason, ok = FromNode(&cluster.Node{Name: "x", GPUModel: "MI300X"})
	if ok || !strings.Contains(reason, "MI300X") {
		t.Errorf("unknown model: ok=%v reason=%q", ok, reason)
	}
}

func TestCanonicalProfile(t *testing.T) {
	for in, want := range map[string]string{
		"nvidia.com/mig-1g.10gb":    "1g.10gb",
		"nvidia.com/mig-1g.10gb.me": "1g.10gb+me",
		"mig-3g.40gb":               "3g.40gb",
		"1g.10gb+me":                "1g.10gb+me",
	} {
		if got := CanonicalProfile(in); got != want {
			t.Errorf("CanonicalProfile(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDriverNote(t *testing.T) {
	m := mustModel(t, "A100-80GB")
	if m.DriverNote(Layout{"4g.40gb": 1, "3g.40gb": 1}) == "" {
		t.Error("4g+3g has no driver note")
	}
	if m.DriverNote(Layout{"3g.40gb": 2}) != "" {
		t.Error("2x3g has a driver note")
	}
}
