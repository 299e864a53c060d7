package api

import (
	"strings"
	"testing"
	"time"
)

func TestValidateListsEveryProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		change  func(*Config)
		want    []string
		notWant string
	}{
		{"defaults with a URL are valid", func(c *Config) {}, nil, ""},
		{"no scheme", func(c *Config) { c.URL = "localhost:9090" }, []string{"prometheus: ", "want http(s)://"}, ""},
		{"ftp", func(c *Config) { c.URL = "ftp://prom" }, []string{"is not an http(s) URL"}, ""},
		{"malformed, with a password", func(c *Config) { c.URL = "http://admin:hunter2@prom:9x/" }, []string{"not a valid URL"}, "hunter2"},
		{"a query string with a token", func(c *Config) { c.URL = "http://prom/?token=hunter2" }, []string{"has a query string (not shown)"}, "hunter2"},
		{"a password in a URL with a fragment", func(c *Config) { c.URL = "http://u:hunter2@prom/#x" }, []string{"fragment", "u:xxxxx@prom"}, "hunter2"},
		{"CRLF in a header value", func(c *Config) { c.Headers = map[string]string{"X-Scope-OrgID": "a\r\nX-Evil: hunter2"} }, []string{"control character"}, "hunter2"},
		{"a bad header name", func(c *Config) { c.Headers = map[string]string{"X Org": "a"} }, []string{`"X Org" is not a valid header name`}, ""},
		{"gzip maybe", func(c *Config) { c.Gzip = "maybe" }, []string{`prometheus-gzip: "maybe"`}, ""},
		{"every number out of range at once", func(c *Config) {
			c.Timeout, c.Retries, c.Concurrency, c.MaxResponseBytes = 0, -1, 0, 10
		}, []string{"prometheus-timeout", "prometheus-retries", "prometheus-concurrency", "prometheus-max-response-bytes"}, ""},
		{"token and basic auth", func(c *Config) { c.BearerTokenFile, c.Username = "t", "u" }, []string{"not both"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			cfg.URL = "http://prom:9090"
			tt.change(&cfg)
			err := cfg.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
				t.Errorf("error %q shows the secret %q", err, tt.notWant)
			}
		})
	}
	if _, err := New(Config{URL: "http://p", Timeout: time.Second}); err == nil {
		t.Error("New accepted a config with no defaults filled in")
	}
}

func TestNewRejectsMissingFiles(t *testing.T) {
	t.Parallel()
	for _, change := range []func(*Config){
		func(c *Config) { c.BearerTokenFile = "/nonexistent/token" },
		func(c *Config) { c.Username, c.PasswordFile = "u", "/nonexistent/pw" },
		func(c *Config) { c.URL, c.CAFile = "https://prom", "/nonexistent/ca.pem" },
	} {
		cfg := DefaultConfig()
		cfg.URL = "http://prom"
		change(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "nonexistent") {
			t.Errorf("New(%+v): %v, want the missing file named", cfg, err)
		}
	}
}
