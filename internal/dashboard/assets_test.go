package dashboard_test

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/dashboard"
)

// The page works offline: no asset names anything outside the service.
func TestAssetsNameNothingOutsideTheService(t *testing.T) {
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|integrity=`)
	err := fs.WalkDir(dashboard.FS(), ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(dashboard.FS(), path)
		if err != nil {
			return err
		}
		for _, m := range external.FindAllString(string(b), -1) {
			if m != "//www.w3.org" && !strings.HasPrefix(m, "http://www.w3.org") {
				t.Errorf("%s names %q: the dashboard must work offline", path, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every API path the script calls is a route of the service.
func TestScriptCallsOnlyServedRoutes(t *testing.T) {
	d := start(t)
	js, err := fs.ReadFile(dashboard.FS(), "app.js")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(d.url + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	calls := regexp.MustCompile(`"(api/v1/[a-z]+)`).FindAllStringSubmatch(string(js), -1)
	if len(calls) < 5 {
		t.Fatalf("found %d API calls in app.js", len(calls))
	}
	for _, c := range calls {
		if _, ok := doc.Paths["/"+c[1]]; !ok {
			t.Errorf("app.js calls %s, which the service does not serve", c[1])
		}
	}
}

// / serves the page and its files with their types; the dashboard is
// what serve answers at / (also with --demo).
func TestServedAtRoot(t *testing.T) {
	d := start(t)
	for path, typ := range map[string]string{"/": "text/html", "/app.js": "javascript", "/style.css": "text/css"} {
		resp, err := http.Get(d.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), typ) {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if path == "/" && !strings.Contains(string(b), `src="app.js"`) {
			t.Errorf("GET / is not the dashboard: %.200s", b)
		}
	}
}
