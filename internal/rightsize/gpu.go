package rightsize

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// gpuCase is everything one workload's shape decision reads.
type gpuCase struct {
	w        *workload
	u        *gpuUsage
	model    gpushape.Model
	need     float64 // MiB: peak × (1 + memory headroom)
	p95      float64 // activity percentile, share of a whole GPU
	compute  float64 // p95 × (1 + compute headroom)
	rate     float64 // current GPU $/h per physical GPU
	priced   bool
	dev      bool
	capacity pricing.CapacityType
}

// option is one shape that fits, with its saving.
type option struct {
	Alternative
	resource string
	hami     *HAMiAsk // the ask, for UseHAMiShare
	// gain ranks options: the monthly saving when priced, else the GPU
	// share freed per pod.
	gain float64
}

func (e *engine) gpu(w *workload, r *Result) {
	u := e.gpuUsage(w)
	if u == nil {
		return
	}
	if u.dra {
		defer draFix(r, len(r.GPU))
	}
	rec := GPURec{
		Workload: w.key, Namespace: w.namespace, OwnerKind: w.kind, OwnerName: w.name,
		Pods: round4(w.avgPods), GPUsPerPod: u.gpusPerPod, CurrentModel: u.node.GPUModel,
		CurrentResource: u.resource, Container: gpuContainer(w.latest()), CurrentFraction: round4(u.fraction / float64(u.gpusPerPod)), Nodes: u.nodes,
	}
	if rec.CurrentModel == "" && len(u.node.GPUs) > 0 {
		rec.CurrentModel = u.node.GPUs[0].Model
	}
	skip := func(reason string) {
		r.Skipped = append(r.Skipped, Skip{Workload: w.key, Kind: "gpu", Reason: reason})
	}
	rate, priced := e.rate(w, func(p *pricing.NodePrice) float64 { return p.GPUUSDPerHour })
	if u.gpusPerPod > 1 {
		rec.Action, rec.Resource, rec.Fraction, rec.Priced = KeepWhole, u.resource, 1, priced
		rec.Template, rec.Runs = w.template, w.nRuns
		rec.Confidence, rec.ConfidenceReason = High, "a rule, not a measurement: a sharded job keeps whole GPUs whatever its usage"
		rec.Reason = fmt.Sprintf("multi-GPU pods (%d GPUs each): a sharded job keeps whole GPUs; never MIG or time-slicing", u.gpusPerPod)
		r.GPU = append(r.GPU, rec)
		return
	}
	model, notes, reason, ok := gpushape.FromNode(u.node)
	if !ok {
		skip(reason + "; no shape is guessed for an unknown GPU model (add it to gpushape or label the node with nvidia.com/gpu.product)")
		return
	}
	e.note(notes...)
	if why := e.gpuData(u); why != "" {
		skip(why)
		return
	}
	c := &gpuCase{w: w, u: u, model: model, rate: rate, priced: priced,
		dev: cluster.MatchAny(e.p.GPU.DevNamespaces, w.namespace), capacity: pricing.CapacityType(u.node.Capacity)}
	c.need = withHeadroom(u.framebuffer.Max, e.p.GPU.MemoryHeadroom)
	c.p95 = u.activity.Quantile(e.p.GPU.ActivityPercentile)
	c.compute = withHeadroom(c.p95, e.p.GPU.ComputeHeadroom)
	rec.PeakFramebufferMiB, rec.NeedMiB, rec.P95Activity = round4(u.framebuffer.Max), round4(c.need), round4(c.p95)
	rec.Evidence = e.newEvidence(w, &u.activity, u.activity.Seconds(), u.activity.Max(), u.actPods, u.allocatedSec)
	fbEv := e.evidence(w, &u.framebuffer, u.fbPods, u.allocatedSec)
	rec.Template, rec.Runs = w.template, w.nRuns
	rec.Confidence, rec.ConfidenceReason = confidence(trustOf(w), rec.Evidence, fbEv)
	rec.Priced = priced
	e.decide(c, &rec)
	if w.template != "" {
		rec.Reason = fmt.Sprintf("usage of %d runs of %s; %s", w.nRuns, w.template, rec.Reason)
	}
	r.GPU = append(r.GPU, rec)
}

// gpuData says why a workload's GPU data cannot back a shape, or "".
func (e *engine) gpuData(u *gpuUsage) string {
	act, fb := u.activity.Seconds(), u.framebuffer.Seconds
	h := e.p.History
	switch {
	case act == 0 && fb == 0:
		return "unmeasured: no DCGM series for its GPUs (activity, framebuffer); never treated as idle"
	case fb == 0:
		return "no framebuffer series (DCGM_FI_DEV_FB_USED): its GPU memory need is unknown"
	case act == 0:
		return "no activity series (DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL): its compute need is unknown"
	case min(act, fb) < h.MinObserved.Seconds():
		return fmt.Sprintf("too little data: %s of GPU usage, the policy needs %s (history.minObserved)",
			durationText(seconds(min(act, fb))), durationText(h.MinObserved))
	case u.allocatedSec > 0 && min(act, fb)/u.allocatedSec < h.MinCoverage:
		return fmt.Sprintf("too little data: GPU usage covers %s%% of the time its GPUs were held, the policy needs %s%% (history.minCoverage)",
			pct(min(act, fb)/u.allocatedSec), pct(h.MinCoverage))
	}
	return ""
}

// decide picks the shape: time-slicing for dev namespaces where it fits;
// otherwise the option that saves the most; otherwise a resize of the
// current MIG or time-slice share, or the whole GPU.
func (e *engine) decide(c *gpuCase, rec *GPURec) {
	if c.u.hami != nil {
		e.decideHAMi(c, rec)
		return
	}
	var why []string
	var opts []option
	add := func(o *option, reason string) {
		if o != nil {
			opts = append(opts, *o)
		} else if reason != "" {
			why = append(why, reason)
		}
	}
	ts, tsWhy := e.timeSliceOption(c)
	add(ts, tsWhy)
	add(e.migOption(c))
	for _, o := range e.cheaperOptions(c, &why) {
		add(&o, "")
	}
	sort.SliceStable(opts, func(i, j int) bool { return opts[i].gain > opts[j].gain })
	var chosen *option
	switch {
	case ts != nil && ts.gain >= 0: // a share that costs more is no saving: resize decides
		chosen = ts
	case len(opts) > 0 && opts[0].gain > 0:
		chosen = &opts[0]
	default:
		chosen = e.resize(opts, c)
	}
	if chosen == nil {
		e.keepWhole(c, rec, why)
		return
	}
	apply(rec, chosen, c)
	for _, o := range opts {
		if o.Alternative != chosen.Alternative && o.gain > 0 && len(rec.Alternatives) < maxAlternatives {
			rec.Alternatives = append(rec.Alternatives, o.Alternative)
		}
	}
}

// maxAlternatives keeps the runners-up readable.
const maxAlternatives = 3

// resize is for a workload that already shares a GPU and has no option
// that saves: the same kind of share when it fits with headroom at no
// extra cost; else its current share when that holds the measured peak
// and p95 activity (the headroom alone does not justify paying more);
// else a larger share of the same kind (a negative saving); else nil.
func (e *engine) resize(opts []option, c *gpuCase) *option {
	if c.u.fraction >= 1 {
		return nil
	}
	want := UseTimeSlice
	if c.u.kind == cluster.MIGSlice {
		want = UseMIG
	}
	var same *option // the same kind of share, resized
	for i := range opts {
		if opts[i].Action == want && same == nil {
			same = &opts[i]
		}
	}
	if same != nil && same.gain >= 0 {
		return same // fits with headroom and costs no more
	}
	if cur := e.currentShare(c); cur != nil {
		return cur
	}
	return same
}

// currentShare is the workload's current MIG profile or time-slice share
// when it holds the measured peak and p95 activity, else nil.
func (e *engine) currentShare(c *gpuCase) *option {
	peak := c.u.framebuffer.Max
	o := &option{resource: c.u.resource}
	o.Fraction, o.TargetModel = round4(c.u.fraction), c.model.Name
	switch c.u.kind {
	case cluster.MIGSlice:
		p, ok := c.model.Profile(gpushape.CanonicalProfile(c.u.profile))
		if !ok || float64(p.MemoryMiB) < peak || float64(p.ComputeSlices)/float64(c.model.ComputeSlices) < c.p95 {
			return nil
		}
		o.Action, o.Profile = UseMIG, p.Name
		o.Reason = fmt.Sprintf("keep MIG %s: its %s usable holds the measured peak %s and %d/%d compute holds p%s activity %s%%, "+
			"but not the policy's headroom (%s); watch for GPU out-of-memory errors",
			p.Name, mibText(float64(p.MemoryMiB)), mibText(peak), p.ComputeSlices, c.model.ComputeSlices,
			pct(e.p.GPU.ActivityPercentile), pct(c.p95), mibText(c.need))
	case cluster.TimeSlice:
		n := int(math.Round(1 / c.u.fraction))
		if float64(c.model.UsableMiB())/float64(n) < peak || c.u.fraction < c.p95 {
			return nil
		}
		o.Action, o.Replicas = UseTimeSlice, n
		o.Reason = fmt.Sprintf("keep its 1/%d time-slice share of %s: it holds the measured peak %s and p%s activity %s%%; "+
			"no smaller shape fits with the policy's headroom", n, c.model.Name, mibText(peak), pct(e.p.GPU.ActivityPercentile), pct(c.p95))
	default:
		return nil
	}
	return o
}

func apply(rec *GPURec, o *option, c *gpuCase) {
	rec.Action, rec.Profile, rec.Replicas, rec.TargetModel = o.Action, o.Profile, o.Replicas, o.TargetModel
	rec.Resource, rec.Fraction, rec.TargetInstanceType = o.resource, o.Fraction, o.TargetInstanceType
	rec.MonthlySavingsUSD, rec.Reason, rec.HAMi = o.MonthlySavingsUSD, o.Reason, o.hami
	if !c.priced {
		rec.MonthlySavingsUSD = 0
	}
}

// keepWhole recommends a whole GPU and says why nothing smaller fits.
func (e *engine) keepWhole(c *gpuCase, rec *GPURec, why []string) {
	rec.Action, rec.Resource, rec.Fraction = KeepWhole, "nvidia.com/gpu", 1
	rec.TargetModel = c.model.Name
	head := fmt.Sprintf("needs %s (peak %s + %s%%) and %s%% of a %s (p%s activity %s%% + %s%%)",
		mibText(c.need), mibText(c.u.framebuffer.Max), pct(e.p.GPU.MemoryHeadroom), pct(c.compute), c.model.Name,
		pct(e.p.GPU.ActivityPercentile), pct(c.p95), pct(e.p.GPU.ComputeHeadroom))
	rec.Reason = strings.Join(append([]string{head}, why...), "; ")
	if c.u.fraction < 1 {
		rec.Reason += "; its current share is too small: move it to a whole GPU"
	}
	if c.priced {
		rec.MonthlySavingsUSD = e.saving(c, c.rate, 1)
	}
}

// saving is the monthly saving of moving each pod from its current share
// of a GPU at the current rate to fraction of a GPU at newRate.
func (e *engine) saving(c *gpuCase, newRate, fraction float64) float64 {
	hourly := c.u.fraction*c.rate - fraction*newRate
	return roundCents(hourly * pricing.HoursPerMonth * c.w.avgPods)
}

func (e *engine) note(notes ...string) {
	for _, n := range notes {
		if !slices.Contains(e.notes, n) {
			e.notes = append(e.notes, n)
		}
	}
}

// DRAResource is the current_resource of a workload holding its GPUs
// through DRA ResourceClaims.
const DRAResource = "ResourceClaim"

// draFix rewrites the recommendation added at r.GPU[k] for a workload
// holding DRA devices: its GPUs come from a ResourceClaim, so the shape
// to ask is a device class and, for MIG, a CEL selector on the profile.
func draFix(r *Result, k int) {
	if k >= len(r.GPU) {
		return
	}
	rec := &r.GPU[k]
	rec.CurrentResource = DRAResource
	switch rec.Action {
	case UseMIG:
		rec.Resource = cluster.DRAMIGClass
		rec.DRASelector = cluster.DRAMIGSelector(rec.Profile)
		rec.Reason += fmt.Sprintf("; in its ResourceClaim (or template) ask deviceClassName %s with selector %s", cluster.DRAMIGClass, rec.DRASelector)
	case UseTimeSlice:
		rec.Resource = "shared ResourceClaim"
		rec.Reason += fmt.Sprintf("; with DRA: one ResourceClaim of class %s shared by %d pods", cluster.DRAGPUClass, rec.Replicas)
	case CheaperModel:
		rec.Resource = cluster.DRAGPUClass
		rec.DRASelector = cluster.DRAModelSelector(rec.TargetModel, int64(math.Ceil(rec.NeedMiB)))
		rec.Reason += fmt.Sprintf("; in its ResourceClaim (or template) ask deviceClassName %s with selector %s (a node whose DRA driver publishes %s GPUs)",
			cluster.DRAGPUClass, rec.DRASelector, rec.TargetModel)
	default:
		rec.Resource = cluster.DRAGPUClass
	}
}
