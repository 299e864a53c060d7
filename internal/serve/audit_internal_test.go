package serve

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
)

// /api/v1/audit with its defaults answers the audit the cycle ran (at
// 10,000 GPUs seconds to compute again); any other setting computes its
// own, in a compute slot.
func TestTheDefaultAuditIsTheCyclesOwn(t *testing.T) {
	t.Parallel()
	s := &Service{compute: newComputeQueue(1, time.Minute)}
	release, err := s.compute.acquire(context.Background()) // no slot free: computing would wait
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	st := &State{Audit: &app.AuditResult{}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := newQuery(url.Values{}, route{})
	if got, err := s.auditFor(ctx, q, app.DefaultAuditRequest(), st); err != nil || got != st.Audit {
		t.Errorf("the default audit: %p, %v; want the cycle's %p", got, err, st.Audit)
	}
	for name, req := range map[string]func(r *app.AuditRequest){
		"dev-namespaces": func(r *app.AuditRequest) { r.Audit.DevNamespaces = []string{"dev-*"} },
		"allow-agent":    func(r *app.AuditRequest) { r.Audit.NodeAgents = append(r.Audit.NodeAgents, "x/*") },
		"window":         func(r *app.AuditRequest) { r.Window = 48 * time.Hour },
	} {
		r := app.DefaultAuditRequest()
		req(&r)
		if got, err := s.auditFor(ctx, q, r, st); got == st.Audit || !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %p, %v; want it computed (waiting for a slot: canceled)", name, got, err)
		}
	}
	if _, err := s.auditFor(ctx, q, app.DefaultAuditRequest(), &State{}); !errors.Is(err, context.Canceled) {
		t.Errorf("without the cycle's audit: %v, want it computed", err)
	}
}
