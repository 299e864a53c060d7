package cluster

// Bins are one series' sums per hour, sparse: hour From+i holds S[i], for
// the hours the series touched only. A source that learns which workload
// (and which fraction of a GPU) a series belongs to only after reading it
// — Prometheus reads usage and pod facts side by side — bins each series
// as it streams, then hands the bins to its workload's HourlyAcc.
type Bins struct {
	From int
	S    []float64
}

// Add adds rate × the seconds of sp to its hours.
func (b *Bins) Add(sp Span, rate float64) {
	i := int(sp.h) - b.From
	if i < 0 || i+1 >= len(b.S) && (i >= len(b.S) || sp.next > 0) {
		b.cover(sp)
		i = int(sp.h) - b.From
	}
	b.S[i] += rate * sp.in
	if sp.next > 0 {
		b.S[i+1] += rate * sp.next
	}
}

// Count adds n events at hour h.
func (b *Bins) Count(h int, n float64) {
	b.grow(h, h+1, 0)
	b.S[h-b.From] += n
}

// Peak keeps the largest v seen in the hours of sp (sums of Peak bins
// start at 0: peaks of non-negative quantities).
func (b *Bins) Peak(sp Span, v float64) {
	i := int(sp.h) - b.From
	if i < 0 || i+1 >= len(b.S) && (i >= len(b.S) || sp.next > 0) {
		b.cover(sp)
		i = int(sp.h) - b.From
	}
	b.S[i] = max(b.S[i], v)
	if sp.next > 0 {
		b.S[i+1] = max(b.S[i+1], v)
	}
}

// At is hour h's sum, 0 outside the bins.
func (b *Bins) At(h int) float64 {
	if b == nil || h < b.From || h >= b.From+len(b.S) {
		return 0
	}
	return b.S[h-b.From]
}

// Has reports whether the bins cover hour h.
func (b *Bins) Has(h int) bool { return b != nil && h >= b.From && h < b.From+len(b.S) }

// Within is the part of b in hours [lo, hi), sharing b's storage; nil
// when none.
func (b *Bins) Within(lo, hi int) *Bins {
	if b == nil {
		return nil
	}
	from, to := max(b.From, lo), min(b.From+len(b.S), hi)
	if from >= to {
		return nil
	}
	return &Bins{From: from, S: b.S[from-b.From : to-b.From]}
}

// Merge adds o's sums into b. Into empty bins it takes o's storage when
// o fills it (bins filled to the window's end), a copy of o's hours
// otherwise; o must not be used after.
func (b *Bins) Merge(o *Bins) {
	if o == nil || len(o.S) == 0 {
		return
	}
	if len(b.S) == 0 {
		b.take(o)
		return
	}
	b.grow(o.From, o.From+len(o.S), 0)
	for i, v := range o.S {
		b.S[o.From+i-b.From] += v
	}
	recycle(o)
}

// MergePeak keeps the larger of each hour of b and o (bins built by
// Peak); o must not be used after.
func (b *Bins) MergePeak(o *Bins) {
	if o == nil || len(o.S) == 0 {
		return
	}
	if len(b.S) == 0 {
		b.take(o)
		return
	}
	b.grow(o.From, o.From+len(o.S), 0)
	for i, v := range o.S {
		j := o.From + i - b.From
		b.S[j] = max(b.S[j], v)
	}
	recycle(o)
}

// take makes empty bins o's hours: 0 + v and max(0, v) are v for the
// sums and peaks bins hold.
func (b *Bins) take(o *Bins) {
	if cap(o.S)-len(o.S) <= 8 {
		b.From, b.S = o.From, o.S
		return
	}
	b.From, b.S = o.From, append(make([]float64, 0, len(o.S)), o.S...)
	recycle(o)
}

func recycle(o *Bins) { o.S = nil }

func (b *Bins) cover(sp Span) {
	h := int(sp.h)
	if sp.next > 0 {
		b.grow(h, h+2, int(sp.hours))
		return
	}
	b.grow(h, h+1, int(sp.hours))
}

// grow makes the bins cover hours [lo, hi). Samples come mostly in time
// order, so growing is mostly appending: bins start at a day and grow
// fourfold, never past the window's end (hours; 0: unknown), so a series
// of 14 days is allocated 3 times (24, 96, then to the window's end: 1.35
// window-lengths, where append's doubling from 8 took 3) and a series of
// a day or less once.
func (b *Bins) grow(lo, hi, hours int) {
	switch {
	case len(b.S) == 0:
		b.From, b.S = lo, make([]float64, hi-lo, binCap(hi-lo, 24, hours-lo))
		return
	case lo < b.From:
		n := b.From + len(b.S) - lo
		grown := make([]float64, n, binCap(n, n+8, hours-lo))
		copy(grown[b.From-lo:], b.S)
		b.From, b.S = lo, grown
	}
	if end := b.From + len(b.S); hi > end {
		if hi-b.From > cap(b.S) {
			grown := make([]float64, len(b.S), binCap(hi-b.From, 4*cap(b.S), hours-b.From))
			copy(grown, b.S)
			b.S = grown
		}
		b.S = append(b.S, make([]float64, hi-end)...)
	}
}

// binCap is a capacity of at least need: want, but not past limit (the
// hours to the window's end; ≤ 0: unknown).
func binCap(need, want, limit int) int {
	if limit > 0 {
		want = min(want, limit)
	}
	return max(need, want)
}

// The Add*Bins methods fold a series' bins into its workload, once the
// source knows whose the series is.

// AddGPUBins adds a holding's measured, active and idle seconds per hour
// (unit-relative: active is Σ activity × seconds), weighted by the unit's
// fraction of its GPU.
func (a *HourlyAcc) AddGPUBins(fraction float64, measured, active, idle *Bins) {
	a.fold(&a.measuredSec, measured, fraction)
	a.fold(&a.activeSec, active, fraction)
	a.fold(&a.idleSec, idle, fraction)
}

// AddLinkBins adds a whole GPU's receive bytes (Σ rate × seconds) and the
// seconds they cover, for PCIe and NVLink; nil bins: no such series.
func (a *HourlyAcc) AddLinkBins(pcie, pcieSec, nvlink, nvlinkSec *Bins) {
	a.fold(&a.pcie, pcie, 1)
	a.fold(&a.pcieSec, pcieSec, 1)
	a.fold(&a.nvlink, nvlink, 1)
	a.fold(&a.nvlinkSec, nvlinkSec, 1)
}

// AddCPUBins adds a CPU-limited container's core-seconds used and the
// seconds they were measured over, against its limit in cores.
func (a *HourlyAcc) AddCPUBins(used, measured *Bins, limitCores float64) {
	a.fold(&a.cpuUsed, used, 1)
	a.fold(&a.cpuLimit, measured, limitCores)
}

// AddThrottleBins adds a container's CFS periods and throttled periods.
func (a *HourlyAcc) AddThrottleBins(periods, throttled *Bins) {
	a.fold(&a.periods, periods, 1)
	a.fold(&a.throttled, throttled, 1)
}

// AddMemoryBins adds a memory-limited container's peak working set per
// hour (bytes) against its limit.
func (a *HourlyAcc) AddMemoryBins(peakBytes *Bins, limitBytes float64) {
	if peakBytes == nil || limitBytes <= 0 {
		return
	}
	for i, v := range peakBytes.S {
		if h := peakBytes.From + i; h >= 0 && h < a.b.hours {
			sp := Span{h: int32(h), in: 1}
			a.Memory(sp, v/limitBytes)
		}
	}
}

// AddOOMBins adds a container's OOM kills per hour; the workload's OOM
// series is then present (0 in hours without one).
func (a *HourlyAcc) AddOOMBins(kills *Bins) {
	a.TrackOOM()
	a.fold(&a.oom, kills, 1)
}

// AddServeBins adds an inference server's requests, generated and prompt
// tokens (nil: not counted) and waiting requests × seconds per hour.
func (a *HourlyAcc) AddServeBins(server string, requests, genTokens, promptTokens, waitingSec *Bins) {
	a.server = server
	a.fold(&a.requests, requests, 1)
	a.fold(&a.genTokens, genTokens, 1)
	a.fold(&a.promptTok, promptTokens, 1)
	a.fold(&a.queue, waitingSec, 1)
}

// AddModelBins adds one model name's request and generated-token bins
// (the share of AddServeBins' counts its server labelled with that
// model); an empty name adds nothing.
func (a *HourlyAcc) AddModelBins(model string, requests, genTokens *Bins) {
	if model == "" || (requests == nil && genTokens == nil) {
		return
	}
	m := a.model(model)
	a.fold(&m.requests, requests, 1)
	a.fold(&m.genTokens, genTokens, 1)
}

// fold adds bins × scale into an accumulator array; nil bins leave the
// array as it is (nil: no series).
func (a *HourlyAcc) fold(dst *[]float64, b *Bins, scale float64) {
	if b == nil {
		return
	}
	arr := a.alloc(dst)
	for i, v := range b.S {
		if h := b.From + i; h >= 0 && h < a.b.hours {
			arr[h] += v * scale
		}
	}
}
