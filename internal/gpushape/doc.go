// Package gpushape knows the shapes a GPU can be cut into: the GPU models
// gpuwise recommends and plans for (memory, MIG capability), each model's
// MIG profiles with their compute and memory slices, and the placement
// rules that decide which sets of profiles fit on one GPU.
//
// Valid layouts are derived in code from the placement table, never listed
// by hand: a layout is valid when its GPU instances can be placed on the
// memory-slice axis without overlap and within the compute slices. Live
// node data (GFD labels, advertised nvidia.com/mig-* resources) wins over
// the built-in table: see FromNode.
//
// The package is pure: no I/O, no clock.
package gpushape
