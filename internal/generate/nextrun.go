package generate

import (
	"fmt"
	"strings"
)

// ForNextRun takes the patches of Jobs out of in and says, for each, what
// to change when the Job next runs. A Job's pod template (spec.template)
// is immutable once the Job exists: the apiserver rejects the patch with
// "spec.template: field is immutable". A Job that a CronJob creates is
// never listed here, because callers patch its owner, the CronJob, whose
// jobTemplate applies to every later run; a Job without one can only be
// changed in the manifest it is created from.
func ForNextRun(in []ResourcePatch) (patches []ResourcePatch, notes []string) {
	for _, rp := range in {
		if rp.Workload.Kind != Job {
			patches = append(patches, rp)
			continue
		}
		changes := make([]string, 0, len(rp.Containers))
		for _, c := range rp.Containers {
			changes = append(changes, c.describe())
		}
		notes = append(notes, fmt.Sprintf("%s: not patched, since a Job's pod template cannot change once the Job exists (spec.template is immutable); set these in its manifest for the next run: %s",
			rp.Workload, strings.Join(changes, "; ")))
	}
	return patches, notes
}

// describe is the change to one container, as a person applies it by hand.
func (c ContainerResources) describe() string {
	var parts []string
	add := func(ok bool, format string, args ...any) {
		if ok {
			parts = append(parts, fmt.Sprintf(format, args...))
		}
	}
	add(c.CPURequestMilli > 0, "requests.cpu %s", milliCPU(c.CPURequestMilli))
	add(c.MemoryRequestBytes > 0, "requests.memory %s", bytesQuantity(c.MemoryRequestBytes))
	add(c.CPULimitMilli > 0, "limits.cpu %s", milliCPU(c.CPULimitMilli))
	add(c.RemoveCPULimit, "no CPU limit")
	add(c.MemoryLimitBytes > 0, "limits.memory %s", bytesQuantity(c.MemoryLimitBytes))
	if g := c.GPU; g != nil {
		add(true, "%s %d in requests and limits", g.Resource, g.Count)
		add(len(g.Remove) > 0, "remove %s", strings.Join(g.Remove, ", "))
	}
	return "container " + c.Name + ": " + strings.Join(parts, ", ")
}
