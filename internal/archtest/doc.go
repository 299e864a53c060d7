// Package archtest holds the import-rule test: the layering of
// docs/architecture.md checked against `go list -deps -json ./...` on
// every `go test ./...`. It has no code of its own.
package archtest
