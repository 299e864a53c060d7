package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

func sample() *cluster.Snapshot {
	return &cluster.Snapshot{
		Window: ct.Window(10), Source: "test", ActivityMetric: "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
		Nodes: []cluster.Node{ct.Node("n1").GPUs(1, "H100-80GB").Obj(), ct.Node("n2").MIG("A100-80GB", "3g.40gb", "1g.10gb").Obj()},
		Pods: []cluster.Pod{
			ct.Pod("ml", "a").On("n1").Label("team", "x").Life(ct.At(1), ct.At(5)).Holds("n1/gpu0", 0.37, 3600).Obj(),
			ct.Pod("ml", "b").On("n2").Holds("n2/gpu0/3g.40gb-0", -1, 0).Obj(),
		},
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.json.gz")
	want := sample()
	if err := WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Compare through JSON: accumulators keep unexported histograms.
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if diff := cmp.Diff(string(wj), string(gj)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if q := got.Pods[0].GPUs[0].Activity.Quantile(0.5); q != 0.37 {
		t.Errorf("activity p50 after round trip = %v, want 0.37", q)
	}
}

func TestReadRejects(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	tests := []struct {
		name, data, wantErr string
	}{
		{"future version", `{"kind":"gpuwise.snapshot","version":99,"snapshot":{}}`, "version 99 is not supported"},
		{"wrong kind", `{"kind":"something","version":1,"snapshot":{}}`, `kind is "something"`},
		{"no snapshot", `{"kind":"gpuwise.snapshot","version":1}`, "no snapshot"},
		{"unknown field", `{"kind":"gpuwise.snapshot","version":1,"snapshot":{"nodez":[]}}`, "unknown field"},
		{"truncated json", `{"kind":"gpuwise.snapshot","vers`, "unexpected EOF"},
		{"corrupt gzip", string([]byte{0x1f, 0x8b, 0, 1, 2}), "gzip"},
		{"histogram out of range", `{"kind":"gpuwise.snapshot","version":1,"snapshot":{"pods":[{"namespace":"a","name":"b","owner":{"kind":"","name":""},"containers":[],"gpus":[{"unit":"u","activity":{"seconds":1,"samples":1,"active_seconds":0,"max":0,"histogram":[[400,1]]}}]}]}}`, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inputs := [][]byte{[]byte(tt.data), gz(tt.data)}
			if tt.name == "corrupt gzip" {
				inputs = inputs[:1]
			}
			for _, data := range inputs {
				_, err := Read(bytes.NewReader(data))
				if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Read = %v, want ErrFormat containing %q", err, tt.wantErr)
				}
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, sample())
	f.Add(b.Bytes())
	j, _ := json.Marshal(document{Kind: Kind, Version: Version, Snapshot: sample()})
	f.Add(j)
	f.Add([]byte(`{"kind":"gpuwise.snapshot","version":1,"snapshot":{"window":{"start":"2026-01-01T00:00:00Z","end":"2025-01-01T00:00:00Z"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever decodes must be safe to check, and whatever passes the
		// check must allocate and reconcile without panicking.
		p, err := cluster.Prepare(s)
		if err != nil {
			return
		}
		opts := cost.DefaultOptions()
		a, err := cost.Allocate(p, pricing.Embedded(), opts)
		if err != nil {
			t.Fatalf("Allocate on a prepared snapshot: %v", err)
		}
		if _, err := cost.NewReport(a, cost.DefaultReportOptions()); err != nil {
			t.Fatalf("NewReport on a prepared snapshot: %v", err)
		}
	})
}
