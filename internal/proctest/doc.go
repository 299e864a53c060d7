// Package proctest starts the processes tests run beside them (a real
// Prometheus, a writer to kill) so that none keeps the integration lock:
// `flock /tmp/gpuwise-integration.lock make …` hands its descriptor to
// make, go test and the test binary, and every process those start
// inherits it unless it is closed on exec. A server that outlived its test
// with it held the lock and blocked every other session's tiers. Tests
// call CloseInherited in TestMain and start servers with Attr (killed when
// the test process dies). Test support only: imported by tests, it
// imports nothing of gpuwise.
package proctest
