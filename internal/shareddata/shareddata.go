package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv is the environment variable that turns a missing shared
// folder from a skip into a failure; the Makefile sets it to 1.
const RequireEnv = "GPUWISE_REQUIRE_SHARED"

// Need skips tb when dir, a path into the shared data folder relative to
// the test's package, is missing, or fails it when RequireEnv is "1".
func Need(tb testing.TB, dir string) {
	tb.Helper()
	required := os.Getenv(RequireEnv) == "1"
	msg, missing := check(dir, required)
	switch {
	case !missing:
	case required:
		tb.Fatal(msg)
	default:
		tb.Skip(msg)
	}
}

// check says whether dir is missing and the message to give.
func check(dir string, required bool) (string, bool) {
	if _, err := os.Stat(dir); err == nil {
		return "", false
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if required {
		return fmt.Sprintf("shared data %s is missing and %s=1 requires it: put the shared data beside the repository (see ../shared/data/README.md)", abs, RequireEnv), true
	}
	return fmt.Sprintf("shared data %s not found: skipped (it lives beside the repository; `make test` requires it)", abs), true
}
