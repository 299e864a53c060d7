package cluster

// Prepared is a snapshot that Prepare accepted, with its index, read-only
// by its type. Engines and use cases take it rather than a bare
// *Snapshot: none computes on an unchecked snapshot, none rebuilds the
// index, and none can write it — the snapshot is unexported and reached
// through accessors, so no holder can assign a field of it (drop its
// series, append a note, swap its pods).
//
// The one writer is its owner: whoever read the *Snapshot and handed it
// to Prepare keeps that pointer and is the only one that can release
// parts of it (app.Analysis, for a snapshot one command read, once the
// savings ledger says which parts its build still reads). Everyone else
// holds only the *Prepared.
//
// Go has no read-only slices: the slices and pointers the accessors
// return alias the snapshot, and writing through them is a bug that the
// type does not stop. The use-case tests (app's TestUseCasesLeaveTheSnapshot)
// fingerprint the snapshot's content before and after every use case and
// fail on any change.
type Prepared struct {
	s  *Snapshot
	ix *Index
}

// Index maps the snapshot's node names and unit IDs to its objects.
func (p *Prepared) Index() *Index { return p.ix }

// Window is the snapshot's time window.
func (p *Prepared) Window() Window { return p.s.Window }

// Source says where the snapshot came from.
func (p *Prepared) Source() string { return p.s.Source }

// ActivityMetric names the DCGM field that activity came from.
func (p *Prepared) ActivityMetric() string { return p.s.ActivityMetric }

// Nodes are the snapshot's nodes (read-only).
func (p *Prepared) Nodes() []Node { return p.s.Nodes }

// Pods are the snapshot's pods (read-only).
func (p *Prepared) Pods() []Pod { return p.s.Pods }

// Hourly is the snapshot's hour-by-hour series (nil: none; read-only).
func (p *Prepared) Hourly() *Hourly { return p.s.Hourly }

// HourSums are the hourly series' raw sums, where the source kept them
// (read-only).
func (p *Prepared) HourSums() *HourSums { return p.s.HourSums }

// Notes are the snapshot's data-quality notes (read-only).
func (p *Prepared) Notes() []string { return p.s.Notes }

// Partial says what the source could not read (read-only).
func (p *Prepared) Partial() []string { return p.s.Partial }

// Unknown names the facts the source could not read (read-only).
func (p *Prepared) Unknown() []string { return p.s.Unknown }

// DRA is the cluster's DRA drivers, device classes and claims (nil: none
// read; read-only).
func (p *Prepared) DRA() *DRAInfo { return p.s.DRA }

// Knows says whether the source read the fact (Snapshot.Knows).
func (p *Prepared) Knows(fact string) bool { return p.s.Knows(fact) }

// Interruptions are the snapshot's interruptions (Interruptions).
func (p *Prepared) Interruptions() []Interruption { return Interruptions(p.s) }

// View is a shallow copy of the snapshot, for a reader that takes a
// *Snapshot (the file writer, the manifests, the admission preview):
// assigning one of its fields changes the copy only; its slices and
// pointers alias the snapshot and are read-only, as every accessor's.
func (p *Prepared) View() *Snapshot {
	c := *p.s
	return &c
}

// KueueAdmitted is Snapshot.KueueAdmitted of the snapshot.
func (p *Prepared) KueueAdmitted() map[string]string { return p.s.KueueAdmitted() }

// Kueue is the cluster's Kueue objects (nil: none read; read-only).
func (p *Prepared) Kueue() *KueueInfo { return p.s.Kueue }
