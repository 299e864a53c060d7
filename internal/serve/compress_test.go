package serve_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"
)

// Answers are gzipped for clients that ask, to the same bytes; /metrics
// is compressed once (inside its queue), errors never.
func TestCompressedAnswers(t *testing.T) {
	t.Parallel()
	in := demo(t)
	raw := func(path, enc string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", in.srv.URL+path, nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		resp, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	for _, path := range []string{"/api/v1/report?by=workload", "/", "/app.js", "/api/v1/history?kind=namespace&from=2026-11-01T00:00:00Z&to=2026-11-08T00:00:00Z"} {
		plainResp, plain := raw(path, "")
		if plainResp.Header.Get("Content-Encoding") != "" || plainResp.StatusCode != 200 {
			t.Fatalf("%s without Accept-Encoding: %d, encoding %q", path, plainResp.StatusCode, plainResp.Header.Get("Content-Encoding"))
		}
		resp, body := raw(path, "br, gzip")
		if resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: encoding %q, want gzip", path, resp.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, plain) {
			t.Errorf("%s: gzipped answer differs from the plain one (%d vs %d bytes, %v)", path, len(got), len(plain), err)
		}
		if len(plain) > 10000 && len(body)*2 > len(plain) {
			t.Errorf("%s: %d bytes gzipped from %d", path, len(body), len(plain))
		}
	}
	if resp, _ := raw("/api/v1/report?by=nope", "gzip"); resp.StatusCode != 400 || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("an error answer: %d, encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	if resp, _ := raw("/api/v1/report", "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 got %q", resp.Header.Get("Content-Encoding"))
	}
	resp, body := raw("/metrics", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("/metrics encoding %q", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := io.ReadAll(zr); !bytes.Contains(m, []byte("gpuwise_")) {
		t.Errorf("/metrics gzipped twice or empty: %.100q", m)
	}
}
