package cluster_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
)

var nan = float32(math.NaN())

// sameSeries compares series treating NaN as equal to NaN.
var sameSeries = cmp.Comparer(func(a, b float32) bool { return a == b || (a != a && b != b) })

func TestSeriesJSONRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   cluster.Series
		want string
	}{
		{"nil is null", nil, "null"},
		{"empty", cluster.Series{}, "[]"},
		{"gaps are null", cluster.Series{0, 0.5, nan, 1e9, 3.1415927}, "[0,0.5,null,1e+09,3.1415927]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			if err != nil || string(b) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tt.want)
			}
			var back cluster.Series
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.in, back, sameSeries); diff != "" || (tt.in == nil) != (back == nil) {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSeriesJSONRejects(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`[1,`, `[1 2]`, `{"a":1}`, `[NaN]`, `[1e40]`, `["1"]`, `[1]x`, `[Infinity]`, `[-]`} {
		var s cluster.Series
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", bad, s)
		}
	}
}

// FuzzSeriesJSON: whatever the input, the parser returns an error or a
// series that encodes and decodes to itself.
func FuzzSeriesJSON(f *testing.F) {
	for _, seed := range []string{`[0,0.5,null,1e+09]`, `null`, `[]`, ` [ 1 , null ] `, `[1e-45]`, `[-0]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s cluster.Series
		if err := s.UnmarshalJSON(data); err != nil {
			return
		}
		b, err := s.MarshalJSON()
		if err != nil {
			t.Fatalf("re-encoding %v: %v", s, err)
		}
		var back cluster.Series
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatalf("decoding %s: %v", b, err)
		}
		if diff := cmp.Diff(s, back, sameSeries); diff != "" {
			t.Fatalf("round trip of %s (-first +second):\n%s", data, diff)
		}
	})
}

// hourlySnapshot is a 3-hour window with one GPU workload "a/Deployment/w".
func hourlySnapshot(w ...cluster.WorkloadHours) cluster.Snapshot {
	return cluster.Snapshot{Window: ct.Window(3), Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj()},
		Pods:   []cluster.Pod{ct.Pod("a", "w").On("n1").Holds("n1/gpu0", 0, 1).Obj()},
		Hourly: &cluster.Hourly{IdleThreshold: 0.1, Workloads: w}}
}

func goodHours() cluster.WorkloadHours {
	return cluster.WorkloadHours{Workload: "a/Deployment/w", From: 1,
		Pods: cluster.Series{1, 1}, GPUHeld: cluster.Series{1, 0.5}, GPUMeasured: cluster.Series{1, 0.5},
		GPUActive: cluster.Series{0.2, 0.1}, GPUIdle: cluster.Series{0.5, 0},
		CPUThrottled: cluster.Series{0.4, nan}, Requests: cluster.Series{10, nan}}
}

func TestPrepareAcceptsGoodHourly(t *testing.T) {
	t.Parallel()
	s := hourlySnapshot(goodHours())
	if _, err := cluster.Prepare(&s); err != nil {
		t.Errorf("Prepare = %v, want nil", err)
	}
}

func TestPrepareRejectsBadHourly(t *testing.T) {
	t.Parallel()
	edit := func(f func(w *cluster.WorkloadHours)) cluster.WorkloadHours {
		w := goodHours()
		f(&w)
		return w
	}
	tests := []struct {
		name    string
		hours   []cluster.WorkloadHours
		wantErr string
	}{
		{"unknown workload", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.Workload = "a/Deployment/gone" })}, `"a/Deployment/gone" has series but no pod`},
		{"listed twice", []cluster.WorkloadHours{goodHours(), goodHours()}, "out of order or listed twice"},
		{"past the window", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.From = 2 })}, "lie outside the window's 3 hours"},
		{"lengths differ", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.GPUIdle = cluster.Series{0} })}, "gpu_idle has 1 hours, pods has 2"},
		{"negative", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.Requests[0] = -1 })}, "requests hour 0: -1 is negative"},
		{"gap in held", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.GPUHeld[1] = nan })}, "gpu_held hour 1: no value (NaN)"},
		{"no held series", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.GPUHeld = nil })}, "gpu_held and gpu_measured are required"},
		{"active beyond measured", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.GPUActive[1] = 0.9 })}, "hour 2: gpu_active 0.9 exceeds gpu_measured 0.5"},
		{"infinite", []cluster.WorkloadHours{edit(func(w *cluster.WorkloadHours) { w.PCIeRx = cluster.Series{float32(math.Inf(1)), 0} })}, "is negative or infinite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := hourlySnapshot(tt.hours...)
			_, err := cluster.Prepare(&s)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Prepare = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
	s := hourlySnapshot(goodHours())
	s.Hourly.IdleThreshold = 2
	if _, err := cluster.Prepare(&s); err == nil || !strings.Contains(err.Error(), "idle threshold 2") {
		t.Errorf("threshold 2: Prepare = %v", err)
	}
}

func TestHourlyBuilderSpreadsOverHours(t *testing.T) {
	t.Parallel()
	w := cluster.Window{Start: ct.At(0), End: ct.At(0).Add(150 * time.Minute)} // 2.5 h: the last hour is partial
	b := cluster.NewHourlyBuilder(w, 0.1)
	a := b.Workload("a/Deployment/w")
	span := func(at, dt float64) cluster.Span {
		sp := b.Spans(at, dt, nil)
		if len(sp) != 1 {
			t.Fatalf("Spans(%g, %g) = %v, want one span", at, dt, sp)
		}
		return sp[0]
	}
	a.Life(1800, 9000, 0.5)                         // 00:30 to 02:30, half a GPU
	idle, busy := span(3000, 1200), span(4200, 600) // 00:50–01:10 straddles the hour
	a.GPUs(idle, 0.5, 0.5*0.05, 0.5)
	a.GPUs(busy, 0.5, 0.5*0.8, 0)
	a.Throttle(idle, 0.1, 0.05) // 120 periods, 60 throttled over 1200 s
	a.Serve(span(7200, 1800), cluster.ServerTriton, 90.0/1800, -1, -1, 2)
	a.Memory(span(100, 60), 0.5) // a peak in hour 0
	a.OOMKills(7300, 1)
	got := b.Build()
	want := []cluster.WorkloadHours{{
		Workload: "a/Deployment/w", From: 0, Server: cluster.ServerTriton,
		Pods:        cluster.Series{0.5, 1, 0.5},
		GPUHeld:     cluster.Series{0.25, 0.5, 0.25},
		GPUMeasured: cluster.Series{0.5 * 600 / 3600, 0.5 * 1200 / 3600, 0},
		GPUActive:   cluster.Series{0.5 * 600 * 0.05 / 3600, 0.5 * (600*0.05 + 600*0.8) / 3600, 0},
		GPUIdle:     cluster.Series{0.5 * 600 / 3600, 0.5 * 600 / 3600, 0},
		// 60 of 120 periods throttled, half in each hour.
		CPUThrottled:  cluster.Series{0.5, 0.5, nan},
		MemoryOfLimit: cluster.Series{0.5, nan, nan},
		OOMKills:      cluster.Series{0, 0, 1},
		Requests:      cluster.Series{0, 0, 90},
		QueueDepth:    cluster.Series{0, 0, 2}, // 2 waiting for the whole half hour
	}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float32) bool {
		return a == b || (a != a && b != b) || math.Abs(float64(a-b)) < 1e-6
	})); diff != "" {
		t.Errorf("Build (-want +got):\n%s", diff)
	}
}

func TestSpans(t *testing.T) {
	t.Parallel()
	b := cluster.NewHourlyBuilder(cluster.Window{Start: ct.At(0), End: ct.At(3)}, 0.1)
	for _, tt := range []struct {
		t, dt   float64
		seconds []float64
	}{
		{100, 300, []float64{300}},
		{3500, 300, []float64{300}},         // straddles: one span, both hours
		{-100, 300, []float64{200}},         // clipped at the start
		{10700, 300, []float64{100}},        // clipped at the end
		{1000, 7200, []float64{6200, 1000}}, // longer than an hour: hours 0–1, then 2
		{20000, 10, nil},                    // outside
	} {
		var got []float64
		for _, sp := range b.Spans(tt.t, tt.dt, nil) {
			got = append(got, sp.Seconds())
		}
		if diff := cmp.Diff(tt.seconds, got); diff != "" {
			t.Errorf("Spans(%g, %g) seconds (-want +got):\n%s", tt.t, tt.dt, diff)
		}
	}
}

func TestHourlyFind(t *testing.T) {
	t.Parallel()
	h := &cluster.Hourly{Workloads: []cluster.WorkloadHours{{Workload: "a"}, {Workload: "b"}, {Workload: "c"}}}
	for _, k := range []string{"a", "b", "c"} {
		if w := h.Find(k); w == nil || w.Workload != k {
			t.Errorf("Find(%q) = %v", k, w)
		}
	}
	if h.Find("bb") != nil || (*cluster.Hourly)(nil).Find("a") != nil {
		t.Error("Find found a workload that is not there")
	}
}

// TestBinsFoldLikeSpans: a series binned sparse and folded later gives the
// series the span methods give, sample by sample.
func TestBinsFoldLikeSpans(t *testing.T) {
	t.Parallel()
	w := cluster.Window{Start: ct.At(0), End: ct.At(5)}
	direct, later := cluster.NewHourlyBuilder(w, 0.1), cluster.NewHourlyBuilder(w, 0.1)
	var measured, active, idle, pcie, pcieSec, used, ran, mem cluster.Bins
	var kills cluster.Bins
	d := direct.Workload("a/Job/j")
	samples := []struct{ t, dt, v float64 }{{7000, 300, 0.05}, {7300, 300, 0.5}, {10700, 300, 0.02}, {3500, 300, 0.9}}
	for _, x := range samples {
		sp := direct.Spans(x.t, x.dt, nil)[0]
		idleF := 0.0
		if direct.IsIdle(x.v) {
			idleF = 1
		}
		d.GPUs(sp, 0.5, 0.5*x.v, 0.5*idleF)
		d.Links(sp, 2e9, 1, 0, 0)
		d.CPU(sp, 3, 4)
		d.Memory(sp, 0.75)
		measured.Add(sp, 1)
		active.Add(sp, x.v)
		idle.Add(sp, idleF)
		pcie.Add(sp, 2e9)
		pcieSec.Add(sp, 1)
		used.Add(sp, 3)
		ran.Add(sp, 1)
		mem.Peak(sp, 0.75*8<<30)
	}
	d.OOMKills(7400, 1)
	kills.Count(2, 1)
	for _, b := range []*cluster.HourlyBuilder{direct, later} {
		b.Workload("a/Job/j").Life(3000, 11000, 0.5)
	}
	l := later.Workload("a/Job/j")
	l.AddGPUBins(0.5, &measured, &active, &idle)
	l.AddLinkBins(&pcie, &pcieSec, nil, nil)
	l.AddCPUBins(&used, &ran, 4)
	l.AddMemoryBins(&mem, 8<<30)
	l.AddOOMBins(&kills)
	if diff := cmp.Diff(direct.Build(), later.Build(), cmp.Comparer(func(a, b float32) bool {
		return a == b || (a != a && b != b) || math.Abs(float64(a-b)) <= 1e-6*math.Max(1, math.Abs(float64(a)))
	})); diff != "" {
		t.Errorf("folded bins differ from spans (-spans +bins):\n%s", diff)
	}
	// The first sample came in hour 1, a later one in hour 0: the bins grew
	// backwards.
	if diff := cmp.Diff(cluster.Bins{From: 0, S: []float64{100, 400, 500, 200}}, measured); diff != "" {
		t.Errorf("measured bins (-want +got):\n%s", diff)
	}
}
