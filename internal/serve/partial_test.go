package serve_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/serve"
)

// What the watched inventory could not read (a forbidden DRA, Kueue or
// controls API: its snapshot's partial list) reaches serve's answers as
// collect's snapshot reaches the CLI's: the report's partial list, the
// X-Gpuwise-Partial header and /api/v1/status's partial.
func TestInventoryPartialNotesAreServed(t *testing.T) {
	opts := serve.DefaultOptions()
	opts.Listen, opts.Window = "127.0.0.1:0", 4*time.Hour
	inv := tiny()
	notes := []string{
		"watching nodepools.karpenter.sh is forbidden (grant list and watch on it, see docs/rbac.md): progress cannot see the autoscaler objects, only their effect",
		"watching workloads.kueue.x-k8s.io is forbidden (grant list and watch on kueue.x-k8s.io workloads, see docs/rbac.md): Kueue queues and workloads are not reported",
	}
	inv.Partial = notes
	in := startWith(t, opts, time.Now, staticInv{inv}, nil)
	if err := in.svc.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	code, hdr, body := in.get(t, "/api/v1/report")
	if code != 200 {
		t.Fatalf("/api/v1/report: %d %s", code, body)
	}
	var rep struct {
		Partial []string `json:"partial"`
	}
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Partial, notes) {
		t.Errorf("report's partial %q, want the inventory's %q", rep.Partial, notes)
	}
	h := hdr.Get(serve.PartialHeader)
	for _, n := range notes {
		if !strings.Contains(h, n[:40]) {
			t.Errorf("%s %q lacks %q", serve.PartialHeader, h, n[:40])
		}
	}
	_, _, body = in.get(t, "/api/v1/status")
	var st struct {
		Partial string `json:"partial"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if !strings.Contains(st.Partial, n) {
			t.Errorf("status partial %q lacks %q", st.Partial, n)
		}
	}
}
