package serve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/serve"
)

// The API answers exactly what the CLI prints for the same question: the
// same use cases and the same renderer.
func TestAPIAnswersTheCLIsOutput(t *testing.T) {
	t.Parallel()
	in := demo(t)
	tests := []struct {
		path string
		cli  []string
	}{
		{"/api/v1/report", []string{"demo", "-o", "json"}},
		{"/api/v1/report?by=workload&idle-share=cluster&top=3", []string{"report", "--demo", "-o", "json", "--by", "workload", "--idle-share", "cluster", "--top", "3"}},
		{"/api/v1/report?output=csv&by=node", []string{"report", "--demo", "-o", "csv", "--by", "node"}},
		{"/api/v1/report?output=markdown&idle-threshold=0.05", []string{"report", "--demo", "-o", "markdown", "--idle-threshold", "0.05"}},
		{"/api/v1/report?low-util=30%25:6h", []string{"report", "--demo", "-o", "json", "--low-util", "30%:6h"}},
		{"/api/v1/audit", []string{"audit", "--demo", "-o", "json"}},
		{"/api/v1/audit?output=sarif&dev-namespaces=dev-*", []string{"audit", "--demo", "-o", "sarif", "--dev-namespaces", "dev-*"}},
		{"/api/v1/recommend", []string{"recommend", "--demo", "-o", "json"}},
		{"/api/v1/plan", []string{"plan", "--demo", "-o", "json"}},
		{"/api/v1/plan?shapes=current&output=yaml", []string{"plan", "--demo", "--shapes", "current", "-o", "yaml"}},
		{"/api/v1/report?window=7d", []string{"demo", "-o", "json", "--window", "7d"}},
		{"/api/v1/advise", []string{"advise", "--demo", "-o", "json"}},
		{"/api/v1/advise?levers=rightsize,consolidate&engineer-rate=150&output=markdown", []string{"advise", "--demo", "-o", "markdown", "--levers", "rightsize,consolidate", "--engineer-rate", "150"}},
		{"/api/v1/advise?by=cluster", []string{"advise", "--demo", "--by", "cluster", "-o", "json"}},
		{"/api/v1/advise?by=cluster&output=csv", []string{"advise", "--demo", "--by", "cluster", "-o", "csv"}},
		{"/api/v1/plan?by=cluster&shapes=current", []string{"plan", "--demo", "--by", "cluster", "--shapes", "current", "-o", "json"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, hdr, got := in.get(t, tt.path)
			if code != http.StatusOK {
				t.Fatalf("status %d: %s", code, got)
			}
			want := cliOut(t, tt.cli...)
			if !bytes.Equal(got, want) {
				t.Errorf("answer differs from gpuwise %s (%d vs %d bytes)", strings.Join(tt.cli, " "), len(got), len(want))
			}
			if p := hdr.Get(serve.PartialHeader); p != "" {
				t.Errorf("demo answer marked partial: %s", p)
			}
		})
	}
}

// Parameters are checked the way the flags are: every problem in one 400.
func TestAPIRefusesBadParameters(t *testing.T) {
	t.Parallel()
	in := demo(t)
	tests := []struct {
		path string
		want []string
	}{
		{"/api/v1/report?by=team&idle-share=all", []string{`by: "team"`, `idle share: "all"`}},
		{"/api/v1/report?idle-threshold=0.095", []string{"not a whole percent"}},
		{"/api/v1/report?idle-threshold=high&top=many", []string{`idle-threshold: "high" is not a number`, `top: "many" is not a whole number`}},
		{"/api/v1/report?window=1d", []string{"window: 1d is not this service's window (7d, 2026-11-01T00:00:00Z..2026-11-08T00:00:00Z)", "/api/v1/showback", "range=1d"}},
		{"/api/v1/report?window=48h", []string{"window: 2d is not this service's window", "computed from the window's samples", "serve --window"}},
		{"/api/v1/advise?range=24h", []string{"range: 24h is not this service's window", "/api/v1/history (range=24h)"}},
		{"/api/v1/audit?from=2026-11-02T00:00:00Z&to=2026-11-08T00:00:00Z", []string{"from..to: 2026-11-02T00:00:00Z..2026-11-08T00:00:00Z is not this service's window"}},
		{"/api/v1/recommend?range=5x", []string{`range: "5x" is not a range: write 24h, 7d, 30d, 90d`}},
		{"/api/v1/plan?range=7d&from=1d", []string{"range: give range or from and to, not both"}},
		{"/api/v1/history?range=100d", []string{`range: "100d" is not a range`}},
		{"/api/v1/history?from=yesterday", []string{`from: "yesterday" is neither an RFC 3339 time`}},
		{"/api/v1/showback?by=label:cost-centre", []string{"by: the history keeps no rows by label:cost-centre (it keeps label:cost-center, label:environment, label:team)"}},
		{"/api/v1/showback?by=pods&idle-share=node&compare=last&output=pdf", []string{`by: "pods"`, "idle-share: node needs each group's split by node", `compare: "last" is not previous, none or a baseline`, `output: "pdf"`}},
		{"/api/v1/compare?period=7d&range=1d", []string{"range: give range or period, not both"}},
		{"/api/v1/report?window=soon", []string{`window: "soon" is not a positive duration`}},
		{"/api/v1/report?output=pdf", []string{`output format "pdf"`}},
		{"/api/v1/report?bogus=1", []string{`unknown parameter "bogus"`}},
		{"/api/v1/audit?dev-namespaces=dev-[", []string{`"dev-[" is not a valid glob`}},
		{"/api/v1/plan?shapes=tiny", []string{"tiny"}},
		{"/api/v1/advise?levers=magic&engineer-rate=-3", []string{`unknown lever "magic"`, "engineer rate: -3 $/hour"}},
		{"/api/v1/advise?engineer-rate=cheap", []string{`engineer-rate: "cheap" is not a number`}},
		{"/api/v1/advise?by=namespace", []string{`by: "namespace": advise and plan split by cluster only`}},
		{"/api/v1/plan?by=team", []string{`by: "team"`}},
		{"/api/v1/history?kind=pods&step=week", []string{`kind: "pods"`, `step: "week"`}},
		{"/api/v1/history?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z", []string{"is not after from"}},
		{"/api/v1/compare?period=-1d", []string{"period:"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, _, body := in.get(t, tt.path)
			var e struct{ Error, Kind string }
			if err := json.Unmarshal(body, &e); err != nil || code != http.StatusBadRequest || e.Kind != "usage" {
				t.Fatalf("status %d, body %s", code, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(e.Error, w) {
					t.Errorf("error %q lacks %q", e.Error, w)
				}
			}
		})
	}
}

// Every route of the OpenAPI document is served, and nothing under /api
// is served that the document does not list.
func TestEveryRouteIsInTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	in := demo(t)
	code, _, body := in.get(t, "/openapi.json")
	if code != http.StatusOK {
		t.Fatalf("openapi.json: %d", code)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("not an OpenAPI 3 document: %v", err)
	}
	for path, ops := range doc.Paths {
		if _, ok := ops["post"]; ok { // a write: served, and refused here (no credentials)
			resp, err := in.srv.Client().Post(in.srv.URL+path, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s (documented) without credentials: %d, want 403", path, resp.StatusCode)
			}
			continue
		}
		get, ok := ops["get"]
		if !ok {
			t.Errorf("%s: no get operation", path)
			continue
		}
		// a required parameter is given its documented example; without
		// it the route answers 400 naming the parameter
		var op struct {
			Parameters []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
				Example  string `json:"example"`
			} `json:"parameters"`
		}
		if err := json.Unmarshal(get, &op); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		vals := url.Values{}
		for _, p := range op.Parameters {
			if !p.Required {
				continue
			}
			if p.Example == "" {
				t.Errorf("%s: required parameter %s has no example", path, p.Name)
			}
			vals.Set(p.Name, p.Example)
			if code, _, b := in.get(t, path); code != http.StatusBadRequest || !strings.Contains(string(b), p.Name+":") {
				t.Errorf("GET %s without its required %s: %d %s, want a 400 naming it", path, p.Name, code, b)
			}
		}
		full := path
		if len(vals) > 0 {
			full += "?" + vals.Encode()
		}
		if code, _, b := in.get(t, full); code != http.StatusOK {
			t.Errorf("GET %s (documented): %d %s", full, code, b)
		}
	}
	for _, path := range []string{"/api/v1/reports", "/api/v1/advice", "/api/v2/report", "/api/v1/report/x"} {
		if _, ok := doc.Paths[path]; ok {
			continue
		}
		if code, _, _ := in.get(t, path); code != http.StatusNotFound {
			t.Errorf("GET %s (not documented): %d, want 404", path, code)
		}
	}
	for _, want := range []string{"/healthz", "/readyz", "/metrics", "/api/v1/report", "/api/v1/audit", "/api/v1/recommend", "/api/v1/plan", "/api/v1/advise", "/api/v1/history", "/api/v1/compare", "/"} {
		if doc.Paths[want] == nil {
			t.Errorf("%s missing from the document", want)
		}
	}
}

// The history holds the demo week hour by hour; the hours add up to the
// week's report, and the comparison of the week's halves is a diff.
func TestDemoHistory(t *testing.T) {
	t.Parallel()
	in := demo(t)
	code, _, body := in.get(t, "/api/v1/history?kind=namespace&from=2026-11-01T00:00:00Z&to=2026-11-08T00:00:00Z&step=day")
	if code != http.StatusOK {
		t.Fatalf("history: %d %s", code, body)
	}
	var h struct {
		Coverage struct{ Cycles int }
		Points   []struct {
			Key               string
			GPUAllocatedHours float64 `json:"gpu_allocated_hours"`
			GPUActiveHours    float64 `json:"gpu_active_hours"`
		}
	}
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Totals struct {
			GPUHours struct{ Allocated, Active float64 } `json:"gpu_hours"`
		}
	}
	json.Unmarshal(cliOut(t, "demo", "-o", "json"), &rep)
	var alloc, active float64
	for _, p := range h.Points {
		alloc += p.GPUAllocatedHours
		active += p.GPUActiveHours
	}
	if h.Coverage.Cycles != 168 || !near(alloc, rep.Totals.GPUHours.Allocated) || !near(active, rep.Totals.GPUHours.Active) {
		t.Errorf("%d cycles; history %.3f allocated, %.3f active; the report %.3f, %.3f",
			h.Coverage.Cycles, alloc, active, rep.Totals.GPUHours.Allocated, rep.Totals.GPUHours.Active)
	}
	code, _, body = in.get(t, "/api/v1/compare?kind=workload&period=3d")
	if code != http.StatusOK || !bytes.Contains(body, []byte(`"gpu_utilization_change_points"`)) {
		t.Errorf("compare: %d %s", code, body)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-6*(1+b) && d > -1e-6*(1+b) }

// The history's fleet at the week's last hour is the fleet /metrics
// exports at the window's end (gpuwise_window_end_gpus), in every answer
// whatever its kind.
func TestDemoHistoryRecordsTheFleet(t *testing.T) {
	t.Parallel()
	in := demo(t)
	code, _, body := in.get(t, "/api/v1/history?kind=namespace&from=2026-11-07T23:00:00Z&to=2026-11-08T00:00:00Z")
	if code != http.StatusOK {
		t.Fatalf("history: %d %s", code, body)
	}
	var h struct {
		Fleet []struct {
			Bucket  string
			Model   string `json:"gpu_model"`
			Sharing string
			GPUs    int
		}
	}
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range h.Fleet {
		if f.Bucket != "2026-11-07T23:00:00Z" {
			t.Errorf("fleet bucket %s outside the hour asked for", f.Bucket)
		}
		got[f.Model+"/"+f.Sharing] += f.GPUs
	}
	want := map[string]int{}
	re := regexp.MustCompile(`(?m)^gpuwise_window_end_gpus\{[^}]*gpu_model="([^"]+)",sharing="([^"]+)"[^}]*\} (\d+)$`)
	for _, m := range re.FindAllStringSubmatch(string(mustGet(t, in, "/metrics")), -1) {
		n, _ := strconv.Atoi(m[3])
		want[m[1]+"/"+m[2]] += n
	}
	if len(want) == 0 {
		t.Fatal("no gpuwise_window_end_gpus on /metrics")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history fleet against /metrics (-metrics +history):\n%s", diff)
	}
}
