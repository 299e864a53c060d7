// Command gpuwise finds and recovers the money Kubernetes clusters burn on
// idle GPUs. See README.md.
package main

import (
	"os"

	"github.com/gpuwise/gpuwise/internal/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], cli.StdStreams()))
}
