package serve

import (
	"io/fs"
	"net/http"

	"github.com/gpuwise/gpuwise/internal/dashboard"
)

// UI is the file system served at /: the dashboard (internal/dashboard).
func UI() fs.FS { return dashboard.FS() }

// uiHandler serves ui at /; unknown paths are 404.
func uiHandler(ui fs.FS) http.Handler { return http.FileServerFS(ui) }
