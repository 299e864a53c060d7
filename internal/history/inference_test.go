package history

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestInferenceAddsIntoHours: cycles' request and token counts add into
// their hour per workload and model name; a server that counts no tokens
// keeps NULL (nil), never 0; recording a cycle twice counts it once; a
// pruned hour is gone.
func TestInferenceAddsIntoHours(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "h.db"))
	f := func(v float64) *float64 { return &v }
	for i := range 7 { // six 10-minute cycles in hour 0, one in hour 1
		c := cycle(t0.Add(time.Duration(i)*10*time.Minute), 10, map[string]float64{"ml/Deployment/chat": 1})
		c.Inference = []Inference{
			{Workload: "ml/Deployment/chat", Server: "vllm", Requests: 100, Tokens: f(5000)},
			{Workload: "ml/Deployment/chat", Model: "llama", Server: "vllm", Requests: 60, Tokens: f(3000)},
			{Workload: "ml/Deployment/asr", Server: "triton", Requests: 10},
		}
		for range 2 {
			if _, err := s.Record(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows, err := s.Inference(ctx, "prod", t0, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	h1 := t0.Add(time.Hour)
	want := []InferenceRow{
		{"prod", t0, Inference{"ml/Deployment/asr", "", "triton", 60, nil}},
		{"prod", t0, Inference{"ml/Deployment/chat", "", "vllm", 600, f(30000)}},
		{"prod", t0, Inference{"ml/Deployment/chat", "llama", "vllm", 360, f(18000)}},
		{"prod", h1, Inference{"ml/Deployment/asr", "", "triton", 10, nil}},
		{"prod", h1, Inference{"ml/Deployment/chat", "", "vllm", 100, f(5000)}},
		{"prod", h1, Inference{"ml/Deployment/chat", "llama", "vllm", 60, f(3000)}},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if err := s.Prune(ctx, h1, t0); err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Inference(ctx, "", t0, t0.Add(2*time.Hour)); len(rows) != 3 || !rows[0].Bucket.Equal(h1) {
		t.Errorf("after pruning hour 0: %d rows, first %v", len(rows), rows)
	}
}
