// Package cli owns the gpuwise command line: flags, help text and exit
// codes. Each command turns its flags into an app request, calls the use
// case (package app) and renders the result; it computes nothing itself.
// Flags are parsed only here; errors are mapped to the documented exit
// codes from app's error kinds. It must not call engines or adapters
// directly: every front end goes through app, so the coming service
// behaves exactly like the CLI.
package cli
