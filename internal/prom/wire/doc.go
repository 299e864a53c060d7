// Package wire decodes what Prometheus sends: the JSON of its HTTP API
// (query_range matrices and /api/v1/series label sets, read by a small
// streaming lexer), remote read's streamed frames (uvarint length, CRC32-C,
// protobuf ChunkedReadResponse, all decoded by hand) and the TSDB's XOR
// (Gorilla) chunks inside them; and encodes the one message gpuwise sends,
// the remote-read request.
//
// Decoders stream: they hand each series' labels and samples to the
// caller as they are read and keep nothing but the current series, so
// memory grows with neither series nor samples. Answers are untrusted
// input: every length is checked, strings, series counts and frames are
// bounded (Limits), and malformed input is an error, never a panic. Each
// decoder has a fuzz target.
//
// It imports only the standard library; it knows no HTTP, no Prometheus
// metric names and no gpuwise types.
package wire
