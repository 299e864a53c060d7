package serve

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed ui
var uiFiles embed.FS

// UI is the file system served at /: a placeholder page now, the
// dashboard later (it replaces the files under ui/ or sets Options.UI).
func UI() fs.FS {
	sub, _ := fs.Sub(uiFiles, "ui") // fails only for an invalid name, and "ui" is valid
	return sub
}

// uiHandler serves ui at /; unknown paths are 404.
func uiHandler(ui fs.FS) http.Handler { return http.FileServerFS(ui) }
