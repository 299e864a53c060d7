// Package wiretest writes what Prometheus sends by remote read — XOR
// chunks in streamed frames — and reads back the
// remote-read requests gpuwise sends, for tests of the decoders and of
// everything that reads Prometheus (fake servers included). Test support
// only: no production code imports it.
package wiretest
