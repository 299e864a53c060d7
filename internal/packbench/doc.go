// Package packbench replays the FGD paper's placement benchmark (Weng et
// al., "Beware of Fragmentation", USENIX ATC'23) on the openb trace: the
// seeded arrival sequence inflated to 130% of cluster GPU capacity, one pod
// at a time, no migration, no departures, pods that fit nowhere dropped;
// and the allocation and fragmentation curves over arrived demand, rounded
// the way the authors' pandas scripts round them, so that the published
// per-seed cells can be checked bit for bit.
//
// It owns the protocol (NewWorkload, Run), the placement policies
// (BestFit, FGD and gpuwise's own Gpuwise, with the bin-packing LP that
// prices its requests), the derived workload mixes (Mixes), the curves
// (Curves) and UpperBound, the most any policy can allocate. The protocol
// is documented in ../shared/reference/fgd-protocol.md;
// docs/performance.md has the results.
//
// It is a benchmark harness for gpuwise-lab and tests: the shipped gpuwise
// binary must not import it. It imports only the standard library and the
// trace adapter, whose openb rows NodesFromOpenB and PodsFromOpenB convert
// at the boundary into the package's own Node and Pod.
package packbench
