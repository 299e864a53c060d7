package cluster

import "time"

// FinishedJobs are the bare Jobs (workload keys "namespace/Job/name") of
// the snapshot that had pods and whose every pod ended by the window's
// end, with when the last one ended: a VPA for one would watch no pod.
// A Job a CronJob creates is its CronJob's run, not a workload of its own
// (Owner resolves it), and is never here.
func FinishedJobs(s *Snapshot) map[string]time.Time {
	out := map[string]time.Time{}
	running := map[string]bool{}
	for i := range s.Pods {
		p := &s.Pods[i]
		if p.Owner.Kind != "Job" {
			continue
		}
		k := p.WorkloadKey()
		if p.End.IsZero() || p.End.After(s.Window.End) {
			running[k] = true
			continue
		}
		if p.End.After(out[k]) {
			out[k] = p.End
		}
	}
	for k := range running {
		delete(out, k)
	}
	return out
}
