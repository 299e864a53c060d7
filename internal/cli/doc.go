// Package cli owns the gpuwise command line: one Options struct and run
// function per command, flags parsed only here, errors mapped to the
// documented exit codes. It wires adapters (simulator, snapshot files,
// price overrides) to the core engines and the renderers.
package cli
