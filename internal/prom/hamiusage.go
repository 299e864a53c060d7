package prom

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/prom/query"
	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// HAMi's vGPU monitor (its device plugin's DaemonSet) exports each
// container's SM utilization of its vGPU, 0-100 (github.com/Project-HAMi/
// HAMi cmd/vGPUmonitor/metrics.go at 4707fb0): the current name, then the
// legacy one (--legacy-metrics), with their label names. Read only when
// the scheduler's grants show HAMi GPUs, as the activity of the vGPUs
// DCGM does not measure (dcgm-exporter sees the physical GPU, and often
// cannot attribute a HAMi vGPU to its pod).
var hamiUtilMetrics = []hamiMetric{
	{name: "hami_container_device_utilization_ratio", ns: "namespace", pod: "pod", ctr: "container", uuid: "device_uuid"},
	{name: "Device_utilization_desc_of_container", ns: "podnamespace", pod: "podname", ctr: "ctrname", uuid: "deviceuuid"},
}

// hamiUsage is the vGPU monitor's series, keyed holdKey{pod,
// hamiUtilKey(uuid, container)}.
type hamiUsage struct {
	u       *gpuUsage
	queries int
	failed  []query.Failure
}

func hamiUtilKey(uuid, ctr string) string { return "hami/" + uuid + "/" + ctr }

// readHAMiUsage reads the vGPU monitor's utilization over the window.
func (r *reader) readHAMiUsage(ctx context.Context) hamiUsage {
	hu := hamiUsage{u: newGPUUsage(r.opts.Step.Seconds(), false, unitIndex{})}
	hu.u.clock = r.clock
	var tasks []query.Task
	for _, m := range hamiUtilMetrics {
		sel := m.name + "{" + m.pod + `!=""}`
		open := func() query.Batch {
			b := hu.u.batch(activityField, 0.01)().(*gpuBatch)
			return &hamiUtilBatch{gpuBatch: b, m: m}
		}
		mode := r.readMode(ctx, sel)
		if mode == ReadRange {
			tasks = append(tasks, r.spanTasks(fmt.Sprintf("avg_over_time(%s[%s])", sel, query.Lookback(r.opts.Step)), open, nil)...)
			continue
		}
		ms := []wire.Matcher{{Type: wire.MatchEqual, Name: "__name__", Value: m.name}, {Type: wire.MatchNotEqual, Name: m.pod, Value: ""}}
		keep := func(name []byte) bool {
			switch string(name) {
			case m.ns, m.pod, m.ctr, m.uuid:
				return true
			}
			return false
		}
		tasks = append(tasks, rawOrRemote(mode == ReadRemote, sel, ms, keep, r.rawDays(sel, open, nil))...)
	}
	hu.queries, hu.failed = len(tasks), r.q.Run(ctx, tasks, 0)
	return hu
}

// hamiUtilBatch routes the vGPU monitor's series to (pod, GPU,
// container).
type hamiUtilBatch struct {
	*gpuBatch
	m hamiMetric
}

func (b *hamiUtilBatch) Series(l wire.Labels) query.Target {
	ns, pod, uuid := l.Get(b.m.ns), l.Get(b.m.pod), l.Get(b.m.uuid)
	if ns == "" || pod == "" || uuid == "" {
		return query.Target{}
	}
	return query.Target{Acc: b.acc(holdKey{ns + "/" + pod, hamiUtilKey(uuid, l.Get(b.m.ctr))}, 0.01)}
}

// measureHAMi gives the HAMi vGPUs DCGM left unmeasured the vGPU
// monitor's utilization of their pod's container on that GPU (the first
// container by name when several share it), and their hourly series; it
// counts them in a note. u is the DCGM usage the hourly series read.
func measureHAMi(s *cluster.Snapshot, hu hamiUsage, u *gpuUsage) []string {
	var notes []string
	if len(hu.failed) > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d reads of HAMi's vGPU monitor failed (%v): the HAMi vGPUs DCGM does not measure stay unmeasured where they are missing", len(hu.failed), hu.queries, hu.failed[0].Err))
	}
	if hu.u == nil || len(hu.u.holds) == 0 || u == nil {
		return notes
	}
	byPodGPU := map[[2]string][]string{} // (pod, uuid) → container keys
	for k := range hu.u.holds {
		rest, ok := strings.CutPrefix(k.unit, "hami/")
		if !ok {
			continue
		}
		uuid, _, _ := strings.Cut(rest, "/")
		byPodGPU[[2]string{k.pod, uuid}] = append(byPodGPU[[2]string{k.pod, uuid}], k.unit)
	}
	ix := cluster.NewIndex(s)
	n := 0
	for i := range s.Pods {
		p := &s.Pods[i]
		for j := range p.GPUs {
			h := &p.GPUs[j]
			ref, ok := ix.Units[h.UnitID]
			if !ok || ref.GPU.Sharing != cluster.HAMi || h.Activity != nil {
				continue
			}
			keys := byPodGPU[[2]string{p.Key(), ref.GPU.UUID}]
			if len(keys) == 0 {
				continue
			}
			slices.Sort(keys)
			ser := hu.u.holds[holdKey{p.Key(), keys[0]}]
			if ser == nil || ser.act == nil || ser.act.Seconds <= 0 {
				continue
			}
			h.Activity = ser.act
			u.holds[holdKey{p.Key(), h.UnitID}] = ser
			n++
		}
	}
	if n == 0 {
		return notes
	}
	return append(notes, fmt.Sprintf("%d HAMi vGPU(s) DCGM did not measure are measured by HAMi's vGPU monitor (hami_container_device_utilization_ratio: the container's SM utilization of its vGPU, 0-100, read as activity)", n))
}
