package serve_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/app"
	"github.com/gpuwise/gpuwise/internal/serve"
)

var update = flag.Bool("update", false, "rewrite golden files and docs/metrics.md")

// planted is a secret that must never come back in an answer or a log.
const planted = "PLANTED-s3cr3t-7f3a9c2e41"

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// paths are requests covering every route, good and bad.
var paths = []string{"/healthz", "/readyz", "/metrics", "/openapi.json", "/api/v1/status", "/api/v1/report",
	"/api/v1/audit", "/api/v1/recommend", "/api/v1/plan", "/api/v1/history?kind=namespace",
	"/api/v1/compare", "/", "/api/v1/nope"}

// Bearer auth: the API, /metrics and / need the token; the probes do not;
// a wrong token is 401; the token appears in no answer and no log line.
func TestBearerAuthAndNoSecretInAnswersOrLogs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := liveOptions("")
	opts.BearerTokenFile = writeFile(t, dir, "token", planted+"\n")
	in := small(t, opts, true)
	for _, p := range paths {
		public := p == "/healthz" || p == "/readyz"
		code, _, body := in.get(t, p)
		if public != (code != http.StatusUnauthorized) {
			t.Errorf("GET %s without a token: %d", p, code)
		}
		checkNoSecret(t, p, body)
		code, _, body = in.get(t, p, "Authorization", "Bearer wrong-"+planted[:10])
		if !public && code != http.StatusUnauthorized {
			t.Errorf("GET %s with a wrong token: %d", p, code)
		}
		checkNoSecret(t, p, body)
		code, hdr, body := in.get(t, p, "Authorization", "Bearer "+planted)
		if code == http.StatusUnauthorized {
			t.Errorf("GET %s with the token: 401", p)
		}
		checkNoSecret(t, p, body)
		for k, vs := range hdr {
			checkNoSecret(t, p+" header "+k, []byte(strings.Join(vs, " ")))
		}
	}
	checkNoSecret(t, "the log", []byte(in.log.String()))
	if !strings.Contains(in.log.String(), "status=401") {
		t.Error("401 answers are not logged")
	}
}

func checkNoSecret(t *testing.T, where string, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte(planted)) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString([]byte(planted)))) {
		t.Errorf("%s contains the planted secret", where)
	}
	// The basic-auth pairs the tests use, as an Authorization header
	// carries them (issue 31 M2).
	for _, user := range []string{"gpuwise", "finops"} {
		pair := []byte(user + ":" + planted)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if bytes.Contains(b, []byte(enc.EncodeToString(pair))) {
				t.Errorf("%s contains the planted basic credential in base64", where)
			}
		}
	}
}

// Issue 31 M2: a Prometheus error that echoes the Authorization header
// showed the basic credential in base64 in serve's JSON log; bearer tokens
// were redacted, the base64 form not.
func TestBasicCredentialEchoedByPrometheusIsRedactedInTheLog(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		a := r.Header.Get("Authorization")
		fmt.Fprintf(w, "proxy says: bad gateway for Authorization %q (%s)", a, strings.TrimRight(a, "="))
	}))
	t.Cleanup(echo.Close)
	opts := liveOptions("")
	opts.Inventory = serve.InventoryPrometheus
	src := app.DefaultPromSource()
	src.Client.URL, src.Client.Username, src.Client.PasswordFile = echo.URL, "gpuwise", writeFile(t, t.TempDir(), "pw", planted+"\n")
	src.Client.Timeout, src.Client.Retries = 2*time.Second, 0
	opts.Prometheus = &src
	in := startWith(t, opts, time.Now, nil, nil)
	err := in.svc.Cycle(context.Background())
	if err == nil || !strings.Contains(err.Error(), "proxy says") {
		t.Fatalf("cycle error %v: want the proxy's 502 message", err)
	}
	checkNoSecret(t, "the cycle's error", []byte(err.Error()))
	for _, p := range paths {
		_, _, body := in.get(t, p)
		checkNoSecret(t, p, body)
	}
	log := in.log.String()
	checkNoSecret(t, "the log", []byte(log))
	if !strings.Contains(log, "proxy says") {
		t.Errorf("the log does not carry the server's error: %s", log)
	}
}

// Basic auth takes a user:password file; the password never shows.
func TestBasicAuth(t *testing.T) {
	t.Parallel()
	opts := liveOptions("")
	opts.BasicAuthFile = writeFile(t, t.TempDir(), "users", "# users\nfinops:"+planted+"\n")
	in := small(t, opts, true)
	basic := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	tests := []struct {
		auth string
		want int
	}{{"", 401}, {basic("finops", "nope-nope"), 401}, {basic("root", planted), 401}, {basic("finops", planted), 200}}
	for _, tt := range tests {
		code, hdr, body := in.get(t, "/api/v1/status", "Authorization", tt.auth)
		if code != tt.want {
			t.Errorf("auth %q: %d, want %d", tt.auth, code, tt.want)
		}
		if code == 401 && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("401 without a Basic challenge")
		}
		checkNoSecret(t, "status", body)
	}
	checkNoSecret(t, "the log", []byte(in.log.String()))
}

// Bad credential files fail at start naming the file, never the content.
func TestBadCredentialFilesNameTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		set  func(*serve.Options)
		want string
	}{
		{"short token", func(o *serve.Options) { o.BearerTokenFile = writeFile(t, dir, "short", "abc") }, "shorter than 16"},
		{"missing token", func(o *serve.Options) { o.BearerTokenFile = filepath.Join(dir, "none") }, "none"},
		{"bad users", func(o *serve.Options) { o.BasicAuthFile = writeFile(t, dir, "users", "finops "+planted+"\n") }, "line 1"},
	} {
		opts := liveOptions("")
		tt.set(&opts)
		svc, err := serve.New(context.Background(), opts, serve.Deps{App: app.New(time.Now), Inventory: staticInv{tiny()}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = svc.Handler(nil)
		svc.Close()
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), planted) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// A Prometheus password planted in its file shows in no answer or log
// while Prometheus cannot be reached and the service serves its error.
func TestPrometheusPasswordNeverShows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	opts := liveOptions("")
	opts.Inventory = serve.InventoryPrometheus
	src := app.DefaultPromSource()
	src.Client.URL, src.Client.Username, src.Client.PasswordFile = "http://gpuwise:"+planted+"@"+addr, "gpuwise", writeFile(t, dir, "pw", planted)
	src.Client.Timeout, src.Client.Retries = 2*time.Second, 0
	opts.Prometheus = &src
	in := startWith(t, opts, time.Now, nil, nil)
	err = in.svc.Cycle(context.Background())
	if err == nil {
		t.Fatal("a cycle against a closed port succeeded")
	}
	checkNoSecret(t, "the cycle's error", []byte(err.Error()))
	for _, p := range paths {
		_, hdr, body := in.get(t, p)
		checkNoSecret(t, p, body)
		checkNoSecret(t, p+" headers", []byte(strings.Join(hdr.Values(serve.PartialHeader), " ")))
	}
	checkNoSecret(t, "the log", []byte(in.log.String()))
	if !strings.Contains(in.log.String(), "cycle failed") {
		t.Errorf("the failed cycle is not logged: %s", in.log.String())
	}
}

// TLS from a certificate and key file. It asks /healthz: /readyz waits
// for the first cycle, which races the request on a loaded machine.
func TestServesTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certPEM, keyPEM := selfSigned(t)
	opts := liveOptions("")
	opts.TLSCertFile, opts.TLSKeyFile = writeFile(t, dir, "tls.crt", string(certPEM)), writeFile(t, dir, "tls.key", string(keyPEM))
	svc := small(t, opts, false).svc
	h, err := svc.Handler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, ln, h) }()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	resp, err := client.Get("https://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Errorf("status %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
}

func selfSigned(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gpuwise"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// Shutdown waits for a request in flight, then Serve returns.
func TestGracefulShutdownFinishesRequestsInFlight(t *testing.T) {
	t.Parallel()
	opts := liveOptions("")
	svc := small(t, opts, true).svc
	h, err := svc.Handler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The handler says when the request arrived and takes a while more,
	// so that shutdown surely starts with it in flight (a fixed sleep
	// before cancel raced the request on a loaded machine).
	arrived := make(chan struct{}, 1)
	var once sync.Once
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { arrived <- struct{}{} })
		time.Sleep(200 * time.Millisecond)
		h.ServeHTTP(w, r)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Serve(ctx, ln, slow) }()
	url := "http://" + ln.Addr().String() + "/api/v1/plan"
	got := make(chan int, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			got <- -1
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	<-arrived
	cancel()
	if code := <-got; code != http.StatusOK {
		t.Errorf("request in flight at shutdown: %d", code)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(opts.ShutdownTimeout + 5*time.Second):
		t.Fatal("Serve did not return after shutdown")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Error("the listener still accepts after shutdown")
	}
}

// docs/metrics.md is generated from the metric tables.
func TestMetricsReference(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := serve.WriteMetricsReference(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "metrics.md")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Errorf("%s is out of date: go test ./internal/serve -run TestMetricsReference -update", path)
	}
	// Every family the demo exports is in the reference.
	metrics := string(mustGet(t, demo(t), "/metrics"))
	for _, l := range strings.Split(metrics, "\n") {
		if name, ok := strings.CutPrefix(l, "# TYPE gpuwise_"); ok {
			name = "gpuwise_" + strings.Fields(name)[0]
			if !strings.Contains(b.String(), "`"+name+"`") {
				t.Errorf("%s is exported but not in docs/metrics.md", name)
			}
		}
	}
}

// Issue 31 low item: missing TLS files exited 1 ("a bug"); they are an
// input error (exit 3) naming the files.
func TestMissingTLSFilesExit3(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := liveOptions("")
	opts.TLSCertFile, opts.TLSKeyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	svc := small(t, opts, false).svc
	h, err := svc.Handler(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = svc.Serve(context.Background(), ln, h)
	if app.KindOf(err) != app.Input || !strings.Contains(fmt.Sprint(err), opts.TLSCertFile) {
		t.Errorf("Serve with missing TLS files: %v (kind %v), want an input error naming %s", err, app.KindOf(err), opts.TLSCertFile)
	}
}
