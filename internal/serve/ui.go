package serve

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/gpuwise/gpuwise/internal/dashboard"
)

// UI is the file system served at /: the dashboard (internal/dashboard).
func UI() fs.FS { return dashboard.FS() }

// uiHandler serves ui at /; unknown paths are 404.
func uiHandler(ui fs.FS) http.Handler { return http.FileServerFS(ui) }

// teamHandler serves the dashboard's page at /team/VALUE: index.html with
// its links one folder up (the page's own base; base-uri is 'none'), the
// script reading the team from the path.
func teamHandler(ui fs.FS) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(ui, "index.html")
		if err != nil {
			http.NotFound(w, r)
			return
		}
		page := strings.NewReplacer(`href="style.css"`, `href="../style.css"`, `src="app.js"`, `src="../app.js"`,
			`href="./"`, `href="../"`, `href="openapi.json"`, `href="../openapi.json"`, `href="?view=`, `href="../?view=`).Replace(string(b))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	})
}
