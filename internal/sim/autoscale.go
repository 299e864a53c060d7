package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/rolling"
)

// autoscale takes node i and its pods away every night from t: the node
// goes at the first night's start, and each morning a copy starts that
// the pods go on on, gone again at the next night.
func autoscale(s *cluster.Snapshot, i int, t time.Time) ([]move, error) {
	old := s.Nodes[i]
	days := dayTimes(s, t)
	if len(days) == 0 || !days[0].start.Before(s.Window.End) {
		return nil, fmt.Errorf("sim: change %s of %s at %s: no night (00:00–%02d:00 UTC) left in the window", Autoscale, old.Name, t.UTC().Format(time.RFC3339), NightHours)
	}
	first := days[0].start
	s.Nodes[i].Deleted, s.Nodes[i].EndReason = first, cluster.NodeScaledDown
	var pods []cluster.Pod // the node's pods at the first night
	var from []string
	for j := range s.Pods {
		p := &s.Pods[j]
		if p.Node == old.Name && !p.Start.After(first) && aliveFrom(p, first) {
			pods, from = append(pods, *p), append(from, rolling.PodKey(p))
			p.End, p.Phase, p.EndReason = first, "Succeeded", ""
		}
	}
	var out []move
	for k, d := range days {
		if !d.morning.Before(s.Window.End) {
			break
		}
		n := old
		n.Name, n.Created, n.Deleted, n.EndReason, n.ProviderID = fmt.Sprintf("%s-up%d", old.Name, k+1), d.morning, time.Time{}, "", ""
		if d.next.Before(s.Window.End) {
			n.Deleted, n.EndReason = d.next, cluster.NodeScaledDown
		}
		rename := renameUnits(&n, old)
		s.Nodes = append(s.Nodes, n)
		for j, p := range pods {
			if !p.End.IsZero() && !p.End.After(d.morning) {
				continue
			}
			c := p
			c.Name, c.UID, c.Start, c.End, c.Node = fmt.Sprintf("%s-up%d", p.Name, k+1), fmt.Sprintf("%s-up%d", p.UID, k+1), d.morning, p.End, n.Name
			if !n.Deleted.IsZero() && (c.End.IsZero() || c.End.After(n.Deleted)) {
				c.End, c.Phase = n.Deleted, "Succeeded"
			}
			c.OOMKills = 0
			c.GPUs = slices.Clone(p.GPUs)
			for g := range c.GPUs {
				c.GPUs[g].UnitID = rename[c.GPUs[g].UnitID]
			}
			s.Pods = append(s.Pods, c)
			m := moved(from[j], &c, p.GPUs, d.morning)
			m.until = n.Deleted
			out = append(out, move{from: from[j], at: d.start, until: d.morning}, m)
		}
	}
	for j := range pods {
		nightSeries(s, &pods[j], days)
	}
	return out, nil
}

// night is one night from t: its start, the morning after and the next
// night's start.
type night struct{ start, morning, next time.Time }

func dayTimes(s *cluster.Snapshot, t time.Time) []night {
	var out []night
	mid := t.UTC().Truncate(24 * time.Hour)
	if mid.Before(t) {
		mid = mid.Add(24 * time.Hour)
	}
	for ; mid.Before(s.Window.End); mid = mid.Add(24 * time.Hour) {
		out = append(out, night{start: mid, morning: mid.Add(NightHours * time.Hour), next: mid.Add(24 * time.Hour)})
	}
	return out
}

// renameUnits gives n's GPUs unit ids of its own and returns old → new.
func renameUnits(n *cluster.Node, old cluster.Node) map[string]string {
	rename := map[string]string{}
	n.GPUs = slices.Clone(old.GPUs)
	for g := range n.GPUs {
		n.GPUs[g].Units = slices.Clone(old.GPUs[g].Units)
		for u := range n.GPUs[g].Units {
			id := n.GPUs[g].Units[u].ID
			nid := strings.Replace(id, old.Name, n.Name, 1)
			if nid == id {
				nid = n.Name + "/" + id
			}
			rename[id] = nid
			n.GPUs[g].Units[u].ID = nid
		}
	}
	return rename
}

// nightSeries takes a pod out of its workload's series in the nights:
// one pod fewer, the GPU series scaled to the pods left (none left: GPU
// series zero, the others without data).
func nightSeries(s *cluster.Snapshot, p *cluster.Pod, days []night) {
	wh := s.Hourly.Find(p.WorkloadKey())
	if wh == nil {
		return
	}
	end := endOf(s, p) // p is the pod as it was before the nights cut it
	for _, d := range days {
		for h := hourOf(s, d.start); h < hourOf(s, d.morning) && h < s.Window.HourCount(); h++ {
			i := h - wh.From
			lo := s.Window.Start.Add(time.Duration(h) * time.Hour)
			if i < 0 || i >= len(wh.Pods) || !lo.Before(end) {
				continue
			}
			pods := float64(wh.Pods[i])
			left := math.Max(pods-1, 0)
			for _, ns := range wh.Series() {
				sr := *ns.Series
				if sr == nil || i >= len(sr) {
					continue
				}
				switch {
				case ns.Name == "pods":
					sr[i] = float32(left)
				case left < 0.5 && gpuSeries(ns.Name):
					sr[i] = 0
				case left < 0.5:
					sr[i] = float32(math.NaN())
				case gpuSeries(ns.Name) && pods > 0:
					sr[i] *= float32(left / pods)
				}
			}
		}
	}
}

// gpuSeries: the series without gaps besides pods (GPU-hours).
func gpuSeries(name string) bool {
	switch name {
	case "gpu_held", "gpu_measured", "gpu_active", "gpu_idle":
		return true
	}
	return false
}
