package dashboard

import (
	"embed"
	"io/fs"
)

//go:embed assets
var assets embed.FS

// FS is the dashboard's files, index.html at its root.
func FS() fs.FS {
	sub, _ := fs.Sub(assets, "assets") // fails only for an invalid name, and "assets" is valid
	return sub
}
