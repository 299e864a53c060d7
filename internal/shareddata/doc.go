// Package shareddata is test support for the shared data folder beside the
// repository (../shared/data: public traces and price sources too large to
// vendor). Tests that read it call Need: in a plain clone without the
// folder they skip with a message naming it, so `go test ./...` passes;
// under `make test` (which sets GPUWISE_REQUIRE_SHARED=1) a missing folder
// fails the test, so CI never passes by skipping.
//
// It imports the standard library only and is imported by tests only.
package shareddata
