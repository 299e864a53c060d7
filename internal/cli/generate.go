package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/rightsize"
)

func newGenerateCmd(s Streams) *cobra.Command {
	gen := &cobra.Command{
		Use:   "generate",
		Short: "Write the manifests and commands that implement the recommendations (never applies them)",
		Long: "generate turns `gpuwise recommend`'s results into files a platform engineer reviews and applies:\n" +
			"strategic-merge resource patches, VPA objects in updateMode \"Off\", a device-plugin time-slicing\n" +
			"ConfigMap with its node label commands, and a mig-parted ConfigMap with nvidia.com/mig.config\n" +
			"label commands. Every file is validated against the upstream schema before it is written.\n" +
			"Without -d the files are printed as one multi-document YAML stream.",
		Args: cobra.NoArgs,
	}
	gen.AddCommand(newGenerateResourcesCmd(s), newGenerateVPACmd(s), newGenerateTimeSlicingCmd(s), newGenerateMIGCmd(s), newGeneratePlanCmd(s))
	return gen
}

// generateOptions are the flags every generate subcommand takes.
type generateOptions struct {
	recommendFlags
	dir string
}

// artefacts turns recommendations into files; notes say what was left out
// and why.
type artefacts func(r *rightsize.Result, s *cluster.Snapshot, p rightsize.Policy) (files []generate.File, notes []string, err error)

func newGenerateSubCmd(s Streams, use, short string, build artefacts) *cobra.Command {
	o := &generateOptions{}
	cmd := &cobra.Command{
		Use:   use + " [--from FILE | --prometheus URL | --demo | --context CTX] [-d DIR]",
		Short: short,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runGenerate(cmd.Context(), o, s, build) },
	}
	o.recommendFlags.register(cmd.Flags())
	cmd.Flags().StringVarP(&o.dir, "dir", "d", "", "write one file per artefact under this directory (default: a YAML stream on stdout)")
	return cmd
}

func runGenerate(ctx context.Context, o *generateOptions, s Streams, build artefacts) error {
	r, snap, partial, err := o.recommend(ctx)
	if err != nil {
		return err
	}
	files, notes, err := build(r, snap.Snapshot, o.loaded)
	if err != nil {
		return fmt.Errorf("generating: %w", err)
	}
	if err := emitArtefacts(s, o.dir, files, notes); err != nil {
		return err
	}
	return partial
}

// emitArtefacts prints the notes, then writes the files under dir, or as
// one YAML stream on stdout when dir is empty.
func emitArtefacts(s Streams, dir string, files []generate.File, notes []string) error {
	for _, n := range notes {
		fmt.Fprintln(s.Err, "gpuwise: note: "+n)
	}
	if len(files) == 0 {
		fmt.Fprintln(s.Err, "gpuwise: note: nothing to generate")
		return nil
	}
	if dir != "" {
		if err := generate.WriteDir(dir, files); err != nil {
			return inputError(err)
		}
		fmt.Fprintf(s.Err, "gpuwise: wrote %d files under %s\n", len(files), dir)
		return nil
	}
	return generate.WriteStream(s.Out, files)
}

func newGenerateResourcesCmd(s Streams) *cobra.Command {
	return newGenerateSubCmd(s, "resources", "Strategic-merge patches of CPU, memory and GPU resources per workload",
		func(r *rightsize.Result, _ *cluster.Snapshot, _ rightsize.Policy) ([]generate.File, []string, error) {
			patches, notes := resourcePatches(r)
			files, err := generate.Patches(patches)
			return files, notes, err
		})
}

func newGenerateVPACmd(s Streams) *cobra.Command {
	return newGenerateSubCmd(s, "vpa", `VerticalPodAutoscaler objects in updateMode "Off" for the right-sized workloads`,
		func(r *rightsize.Result, _ *cluster.Snapshot, p rightsize.Policy) ([]generate.File, []string, error) {
			vpas, notes := vpaObjects(r, p)
			files, err := generate.VPAs(vpas)
			return files, notes, err
		})
}

func newGenerateTimeSlicingCmd(s Streams) *cobra.Command {
	return newGenerateSubCmd(s, "timeslicing", "Device-plugin time-slicing ConfigMap and node label commands for dev GPUs",
		func(r *rightsize.Result, snap *cluster.Snapshot, _ rightsize.Policy) ([]generate.File, []string, error) {
			ts, notes := timeSlicing(r, snap)
			if len(ts.Configs) == 0 {
				return nil, notes, nil
			}
			files, err := generate.TimeSlicingConfig(ts)
			return files, notes, err
		})
}

func newGenerateMIGCmd(s Streams) *cobra.Command {
	return newGenerateSubCmd(s, "mig", "mig-parted ConfigMap (config.yaml) and nvidia.com/mig.config label commands",
		func(r *rightsize.Result, snap *cluster.Snapshot, _ rightsize.Policy) ([]generate.File, []string, error) {
			m, notes := migLayouts(r, snap)
			if len(m.Nodes) == 0 {
				return nil, notes, nil
			}
			files, err := generate.MIGPartedConfig(m)
			return files, notes, err
		})
}

// patchable maps an owner kind to a kind a patch can target.
func patchable(ns, kind, name string) (generate.Workload, bool) {
	switch k := generate.WorkloadKind(kind); k {
	case generate.Deployment, generate.StatefulSet, generate.DaemonSet, generate.Job, generate.CronJob:
		return generate.Workload{Kind: k, Namespace: ns, Name: name}, true
	}
	return generate.Workload{}, false
}

// resourcePatches is one patch per workload: its containers' new requests
// (memory request = limit; a CPU limit below the new request is raised to
// it) and, for MIG and time-slice shapes, the GPU resource swap.
func resourcePatches(r *rightsize.Result) ([]generate.ResourcePatch, []string) {
	var notes []string
	by := map[string]*generate.ResourcePatch{}
	var order []string
	saved := map[string]float64{}
	get := func(key, ns, kind, name string) *generate.ResourcePatch {
		if p, seen := by[key]; seen {
			return p
		}
		w, ok := patchable(ns, kind, name)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s: a %s cannot be patched in place; change the object that creates it", key, kind))
			by[key] = nil
			return nil
		}
		by[key] = &generate.ResourcePatch{Workload: w}
		order = append(order, key)
		return by[key]
	}
	for _, c := range r.Containers {
		p := get(c.Workload, c.Namespace, c.OwnerKind, c.OwnerName)
		if p == nil || (c.CPUMilli == c.CurrentCPUMilli && c.MemoryBytes == c.CurrentMemoryBytes && c.MemoryBytes == c.CurrentMemoryLimit) {
			continue
		}
		cr := generate.ContainerResources{Name: c.Container, CPURequestMilli: c.CPUMilli,
			MemoryRequestBytes: c.MemoryBytes, MemoryLimitBytes: c.MemoryBytes}
		if c.CurrentCPULimit > 0 && c.CurrentCPULimit < c.CPUMilli {
			cr.CPULimitMilli = c.CPUMilli
		}
		p.Containers = append(p.Containers, cr)
		if c.Priced {
			saved[c.Workload] += c.MonthlySavingsUSD
		}
	}
	for _, g := range r.GPU {
		if (g.Action != rightsize.UseMIG && g.Action != rightsize.UseTimeSlice) || g.Resource == g.CurrentResource || g.Container == "" {
			continue
		}
		p := get(g.Workload, g.Namespace, g.OwnerKind, g.OwnerName)
		if p == nil {
			continue
		}
		change := &generate.GPUChange{Resource: g.Resource, Count: 1}
		if g.CurrentResource != "" {
			change.Remove = []string{g.CurrentResource}
		}
		attachGPU(p, g.Container, change)
		if g.Priced {
			saved[g.Workload] += g.MonthlySavingsUSD
		}
	}
	var out []generate.ResourcePatch
	for _, k := range order {
		p := by[k]
		if len(p.Containers) == 0 {
			continue
		}
		p.Evidence = fmt.Sprintf("gpuwise recommend: requests from measured usage (docs/recommendations.md); saves %s/month", usdText(saved[k]))
		out = append(out, *p)
	}
	return out, notes
}

func attachGPU(p *generate.ResourcePatch, container string, change *generate.GPUChange) {
	for i := range p.Containers {
		if p.Containers[i].Name == container {
			p.Containers[i].GPU = change
			return
		}
	}
	p.Containers = append(p.Containers, generate.ContainerResources{Name: container, GPU: change})
}

// vpaObjects is one recommendation-only VPA per right-sized workload, with
// the policy's minimums.
func vpaObjects(r *rightsize.Result, pol rightsize.Policy) ([]generate.VPA, []string) {
	var notes []string
	by := map[string]*generate.VPA{}
	var order []string
	for _, c := range r.Containers {
		v, seen := by[c.Workload]
		if !seen {
			w, ok := patchable(c.Namespace, c.OwnerKind, c.OwnerName)
			if !ok {
				notes = append(notes, fmt.Sprintf("%s: a VPA cannot target a %s", c.Workload, c.OwnerKind))
				by[c.Workload] = nil
				continue
			}
			v = &generate.VPA{Workload: w, MinCPUMilli: pol.CPU.MinMilli, MinMemoryBytes: pol.Memory.MinBytes,
				Evidence: "gpuwise recommend sized these containers; compare with the VPA recommender's numbers"}
			by[c.Workload] = v
			order = append(order, c.Workload)
		}
		if v != nil {
			v.Containers = append(v.Containers, c.Container)
		}
	}
	out := make([]generate.VPA, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out, notes
}

// timeSlicing gives each node whose GPU pods all belong to dev workloads
// recommended for time-slicing the config "ts-N", N the fewest replicas
// any of them was given. Nodes that also run other GPU workloads are left
// out: time-slicing applies to every GPU of a node and would mix them
// (gpuwise plan moves workloads first).
func timeSlicing(r *rightsize.Result, snap *cluster.Snapshot) (generate.TimeSlicing, []string) {
	ts := generate.TimeSlicing{}
	replicas := map[string]int{}
	for _, g := range r.GPU {
		if g.Action == rightsize.UseTimeSlice {
			replicas[g.Workload] = g.Replicas
		}
	}
	var notes []string
	perNode := map[string]int{}
	for _, node := range gpuNodesOf(r, rightsize.UseTimeSlice) {
		n, others := 0, []string{}
		for _, p := range runningGPUPods(snap, node) {
			if want, ok := replicas[p.WorkloadKey()]; ok {
				n = minPositive(n, want)
			} else {
				others = append(others, p.WorkloadKey())
			}
		}
		if len(others) > 0 {
			notes = append(notes, fmt.Sprintf("node %s left out of time-slicing: it also runs %s; move the dev workloads to a dev pool first (gpuwise plan)",
				node, strings.Join(slices.Compact(slices.Sorted(slices.Values(others))), ", ")))
			continue
		}
		if n >= 2 {
			perNode[node] = n
		}
	}
	configs := map[int]bool{}
	for _, node := range slices.Sorted(maps.Keys(perNode)) {
		n := perNode[node]
		name := fmt.Sprintf("ts-%d", n)
		if !configs[n] {
			configs[n] = true
			ts.Configs = append(ts.Configs, generate.SharingConfig{Name: name, RenameByDefault: true, FailRequestsGreaterThanOne: true,
				Resources: []generate.SharedResource{{Name: "nvidia.com/gpu", Replicas: n}}})
		}
		ts.Nodes = append(ts.Nodes, generate.NodeConfig{Node: node, Config: name})
	}
	sort.Slice(ts.Configs, func(i, j int) bool { return ts.Configs[i].Name < ts.Configs[j].Name })
	return ts, notes
}

// migLayouts lays out, per node with a MIG recommendation, one MIG
// instance per running GPU pod: the recommended profile for MIG workloads,
// the current profile for other pods on MIG slices (they keep it until
// they move), packed first fit, largest first, onto as few GPUs as
// possible; pods on whole GPUs keep whole GPUs. A node where that does not
// fit is left to gpuwise plan.
func migLayouts(r *rightsize.Result, snap *cluster.Snapshot) (generate.MIGParted, []string) {
	var m generate.MIGParted
	var notes []string
	rec := map[string]string{}
	for _, g := range r.GPU {
		if g.Action == rightsize.UseMIG {
			rec[g.Workload] = g.Profile
		}
	}
	units := map[string]cluster.Unit{}
	nodes := map[string]*cluster.Node{}
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		nodes[n.Name] = n
		for _, g := range n.GPUs {
			for _, u := range g.Units {
				units[u.ID] = u
			}
		}
	}
	for _, name := range gpuNodesOf(r, rightsize.UseMIG) {
		n := nodes[name]
		if n == nil {
			continue
		}
		var profiles []string
		whole := 0
		for _, p := range runningGPUPods(snap, name) {
			for _, h := range p.GPUs {
				switch u := units[h.UnitID]; {
				case rec[p.WorkloadKey()] != "":
					profiles = append(profiles, rec[p.WorkloadKey()])
				case u.Kind == cluster.MIGSlice:
					profiles = append(profiles, gpushape.CanonicalProfile(u.Profile))
				default:
					whole++
				}
			}
		}
		mn, err := nodeMIG(n, profiles, whole)
		if err != "" {
			notes = append(notes, "node "+name+" left out of MIG: "+err)
			continue
		}
		m.Nodes = append(m.Nodes, mn)
		notes = append(notes, partlyUsed(mn)...)
	}
	return m, notes
}

// nodeMIG lays profiles out on a node's GPUs; whole is how many of its
// pods keep whole GPUs.
func nodeMIG(n *cluster.Node, profiles []string, whole int) (generate.MIGNode, string) {
	model, _, reason, ok := gpushape.FromNode(n)
	if !ok {
		return generate.MIGNode{}, reason
	}
	sort.SliceStable(profiles, func(i, j int) bool { return profileSize(model, profiles[i]) > profileSize(model, profiles[j]) })
	var gpus []gpushape.Layout
	for _, p := range profiles {
		placed := false
		for _, l := range gpus {
			l[p]++
			if model.Valid(l) == nil {
				placed = true
				break
			}
			if l[p]--; l[p] == 0 {
				delete(l, p)
			}
		}
		if !placed {
			gpus = append(gpus, gpushape.Layout{p: 1})
		}
	}
	if len(gpus)+whole > len(n.GPUs) {
		return generate.MIGNode{}, fmt.Sprintf("its MIG workloads need %d GPUs and %d pods keep whole GPUs, but it has %d", len(gpus), whole, len(n.GPUs))
	}
	mn := generate.MIGNode{Node: n.Name, Config: "gpuwise-" + n.Name}
	for i, l := range gpus {
		mn.Groups = append(mn.Groups, generate.MIGDeviceGroup{Model: model.Name, Devices: []int{n.GPUs[i].Index}, Layout: l})
	}
	if rest := n.GPUs[len(gpus):]; len(rest) > 0 {
		g := generate.MIGDeviceGroup{Model: model.Name}
		for _, gpu := range rest {
			g.Devices = append(g.Devices, gpu.Index)
		}
		mn.Groups = append(mn.Groups, g)
	}
	return mn, ""
}

// partlyUsed notes the MIG GPUs whose layout leaves compute slices free:
// cutting them saves money only once other MIG workloads are packed onto
// the free slices, which is what gpuwise plan does across nodes.
func partlyUsed(mn generate.MIGNode) []string {
	var notes []string
	for _, g := range mn.Groups {
		m, ok := gpushape.Lookup(g.Model)
		if !ok || len(g.Layout) == 0 {
			continue
		}
		if l := gpushape.Layout(g.Layout); !m.Full(l) {
			notes = append(notes, fmt.Sprintf("node %s GPU %v: %s uses %d of %d compute slices; the free slices save money only when other MIG workloads move there (see gpuwise plan)",
				mn.Node, g.Devices, l, m.ComputeUsed(l), m.ComputeSlices))
		}
	}
	return notes
}

func profileSize(m gpushape.Model, name string) int {
	if p, ok := m.Profile(name); ok {
		return p.MemorySlices*10 + p.ComputeSlices
	}
	return 0
}

// gpuNodesOf lists the nodes of every workload with the action.
func gpuNodesOf(r *rightsize.Result, action rightsize.GPUAction) []string {
	seen := map[string]bool{}
	for _, g := range r.GPU {
		if g.Action == action {
			for _, np := range g.Nodes {
				seen[np.Node] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// runningGPUPods are the GPU pods on a node at the end of the window.
func runningGPUPods(s *cluster.Snapshot, node string) []*cluster.Pod {
	var out []*cluster.Pod
	for i := range s.Pods {
		p := &s.Pods[i]
		if p.Node == node && len(p.GPUs) > 0 && (p.End.IsZero() || !p.End.Before(s.Window.End)) {
			out = append(out, p)
		}
	}
	return out
}

func minPositive(a, b int) int {
	if a == 0 || b < a {
		return b
	}
	return a
}
