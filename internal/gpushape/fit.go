package gpushape

// Fit is the smallest MIG profile of a model that holds a workload, or the
// reason none does.
type Fit struct {
	Profile Profile
	// Fraction is the profile's share of the GPU (see Model.Fraction).
	Fraction float64
}

// SmallestFit returns the smallest profile (by fraction of the GPU, then
// compute slices) whose usable memory holds memMiB and whose compute share
// holds compute (0–1, the workload's busy share of a whole GPU, e.g. p95
// activity). The "+me" variants are skipped: they exist for media work. ok
// is false when no profile smaller than the whole GPU fits, or the model
// has no MIG.
func (m Model) SmallestFit(memMiB int64, compute float64) (Fit, bool) {
	var best Fit
	found := false
	for _, p := range m.Profiles {
		if p.MediaExtensions || p.ComputeSlices >= m.ComputeSlices {
			continue
		}
		if p.MemoryMiB < memMiB || float64(p.ComputeSlices)/float64(m.ComputeSlices) < compute {
			continue
		}
		f := m.Fraction(p)
		if !found || f < best.Fraction || (f == best.Fraction && p.ComputeSlices < best.Profile.ComputeSlices) {
			best, found = Fit{Profile: p, Fraction: f}, true
		}
	}
	return best, found
}
