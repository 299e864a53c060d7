package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// kubeconfigFor writes a kubeconfig pointing at server with a bearer token.
func kubeconfigFor(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t0k3n}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`, server)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// apiServer answers every request with status and body, or, with status
// 200, empty lists of whatever was asked for; as a cluster without Kueue,
// KEDA, the VPA, Karpenter or Kyverno, 404 for their API groups.
func apiServer(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			fmt.Fprint(w, body)
			return
		}
		if slices.ContainsFunc([]string{"kueue.x-k8s.io", "keda.sh", "autoscaling.k8s.io", "karpenter.sh", "policies.kyverno.io", "kyverno.io"},
			func(g string) bool { return strings.HasPrefix(r.URL.Path, "/apis/"+g+"/") }) {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
			return
		}
		kind := map[string][2]string{"nodes": {"NodeList", "v1"}, "pods": {"PodList", "v1"},
			"replicasets": {"ReplicaSetList", "apps/v1"}, "jobs": {"JobList", "batch/v1"}}
		parts := strings.Split(r.URL.Path, "/")
		k := kind[parts[len(parts)-1]]
		fmt.Fprintf(w, `{"kind":%q,"apiVersion":%q,"metadata":{},"items":[]}`, k[0], k[1])
	}))
	t.Cleanup(srv.Close)
	return srv
}

const forbidden = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,
"message":"nodes is forbidden: User \"system:serviceaccount:x:y\" cannot list resource \"nodes\" in API group \"\" at the cluster scope",
"details":{"kind":"nodes"}}`

const unauthorized = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401,"message":"Unauthorized"}`

func TestKubeErrorsMapToExitCodes(t *testing.T) {
	t.Parallel()
	garbage := filepath.Join(t.TempDir(), "garbage")
	os.WriteFile(garbage, []byte("{{{ not yaml"), 0o600)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	tests := []struct {
		name       string
		kubeconfig string
		extra      []string
		wantCode   int
		wantMsg    []string
	}{
		{"missing kubeconfig file", "/nonexistent/kubeconfig", nil, ExitUsage, []string{"/nonexistent/kubeconfig"}},
		{"invalid kubeconfig", garbage, nil, ExitInput, []string{garbage}},
		{"unknown context", kubeconfigFor(t, "https://127.0.0.1:1"), []string{"--context", "nope"}, ExitUsage, []string{`context "nope" not found`}},
		{"unreachable server", kubeconfigFor(t, closedURL), nil, ExitUnreachable, []string{"cannot reach the Kubernetes API at " + closedURL}},
		{"expired credentials", kubeconfigFor(t, apiServer(t, 401, unauthorized).URL), nil, ExitDenied, []string{"401", "rejected the credentials"}},
		{"RBAC forbidden", kubeconfigFor(t, apiServer(t, 403, forbidden).URL), nil, ExitDenied,
			[]string{`forbids "list" on nodes`, "deploy/rbac/clusterrole.yaml"}},
		{"server error", kubeconfigFor(t, apiServer(t, 503, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":503,"reason":"ServiceUnavailable"}`).URL),
			nil, ExitUnreachable, []string{"cannot reach"}},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"audit", "collect"} {
			t.Run(tt.name+"/"+cmd, func(t *testing.T) {
				args := append([]string{cmd, "--kubeconfig", tt.kubeconfig, "--request-timeout", "5s"}, tt.extra...)
				if cmd == "collect" {
					args = append(args, "-o", filepath.Join(t.TempDir(), "s.json.gz"))
				}
				_, errOut, code := run(t, args...)
				if code != tt.wantCode {
					t.Errorf("exit %d, want %d: %s", code, tt.wantCode, errOut)
				}
				for _, m := range tt.wantMsg {
					if !strings.Contains(errOut, m) {
						t.Errorf("stderr lacks %q: %s", m, errOut)
					}
				}
			})
		}
	}
}

func TestCollectWritesSnapshot(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "snap.json.gz")
	_, errOut, code := run(t, "collect", "--kubeconfig", kubeconfigFor(t, apiServer(t, 200, "").URL), "-o", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Source, "kubeconfig context ctx") || s.Window.End.Sub(s.Window.Start).Hours() != 24 {
		t.Errorf("source %q window %v", s.Source, s.Window)
	}
}

func TestCollectNeedsOutput(t *testing.T) {
	t.Parallel()
	if _, _, code := run(t, "collect"); code != ExitUsage {
		t.Errorf("exit %d, want %d", code, ExitUsage)
	}
}
