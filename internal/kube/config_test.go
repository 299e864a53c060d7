package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With no kubeconfig anywhere and no service account, the error says
// where it looked; it is Missing so the CLI reports a usage problem.
func TestConnectWithoutAnyConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", filepath.Join(home, "absent"))
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	_, err := Connect(Options{})
	var ce *ConfigError
	if !errors.As(err, &ce) || !ce.Missing || !strings.Contains(err.Error(), "pass --kubeconfig") {
		t.Fatalf("got %v, want a missing-config error", err)
	}
}

func TestConnectUsesContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kc")
	os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: a, cluster: {server: "https://a.example:6443"}}, {name: b, cluster: {server: "https://b.example:6443"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: ca, context: {cluster: a, user: u}}, {name: cb, context: {cluster: b, user: u}}]
current-context: ca
`), 0o600)
	c, err := Connect(Options{Kubeconfig: path, Context: "cb"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Server != "https://b.example:6443" || c.Source != "kubeconfig context cb" {
		t.Errorf("server %q source %q", c.Server, c.Source)
	}
}
