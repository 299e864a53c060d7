package kube

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLowExecCredentialPluginFailureIsDenied (issue 31, low): a kubeconfig
// whose exec credential plugin fails gives no credentials, which is an
// access error (exit 5 in README's table), not an unreachable server
// (exit 4, as it was: client-go reports it as a transport error).
func TestLowExecCredentialPluginFailureIsDenied(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the request reached the server without credentials: %v", r.Header)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "kc")
	os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: a, cluster: {server: "`+srv.URL+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false, interactiveMode: Never}}}]
contexts: [{name: ca, context: {cluster: a, user: u}}]
current-context: ca
`), 0o600)
	c, err := Connect(Options{Kubeconfig: path, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Snapshot(context.Background(), time.Now(), time.Hour)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Kind != Unauthorized {
		t.Fatalf("Snapshot: %v (%#v); want an Unauthorized APIError", err, ae)
	}
	if msg := err.Error(); !strings.Contains(msg, "exec credential plugin gave no credentials") || !strings.Contains(msg, "/bin/false failed with exit code 1") {
		t.Errorf("error %q: want the plugin and its failure named", msg)
	}
}
