package usage

import (
	"encoding/json"
	"fmt"
	"math"
)

// gaugeMinScale is the coarsest resolution a Gauge reaches, 2^−5 buckets
// per octave (one per 32 octaves): there every finite positive float64
// fits in gaugeMaxBuckets, so halve is never needed beyond it.
const gaugeMinScale = -5

type gaugeJSON struct {
	Seconds     float64 `json:"seconds"`
	Samples     int64   `json:"samples"`
	Integral    float64 `json:"integral"`
	Max         float64 `json:"max"`
	ZeroSeconds float64 `json:"zero_seconds,omitempty"`
	// Scale is the resolution, 2^scale buckets per octave, written only
	// below the full 16 (scale 4), which older snapshots imply.
	Scale *int `json:"scale,omitempty"`
	// Histogram holds [log2 index ×16, seconds] for each bucket, the index
	// being the bucket's upper edge at 16 per octave whatever the scale: a
	// reader that ignores scale still answers the same quantiles.
	Histogram [][2]float64 `json:"histogram,omitempty"`
}

// MarshalJSON writes the sparse histogram as [index, seconds] pairs.
func (g Gauge) MarshalJSON() ([]byte, error) {
	out := gaugeJSON{Seconds: g.Seconds, Samples: g.Samples, Integral: g.Integral, Max: g.Max, ZeroSeconds: g.zero}
	if g.coarse > 0 {
		s := 4 - int(g.coarse)
		out.Scale = &s
	}
	for j, s := range g.buckets {
		if s != 0 {
			out.Histogram = append(out.Histogram, [2]float64{float64(int64(g.offset+int32(j)) << g.coarse), s})
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes and rejects impossible state.
// A histogram wider than gaugeMaxBuckets at its scale (a snapshot written
// before the bound) is read at the resolution that fits it.
func (g *Gauge) UnmarshalJSON(data []byte) error {
	var in gaugeJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*g = Gauge{Seconds: in.Seconds, Samples: in.Samples, Integral: in.Integral, Max: in.Max, zero: in.ZeroSeconds}
	if !finiteNonNeg(g.Seconds, g.Integral, g.Max, g.zero) || g.Samples < 0 {
		return fmt.Errorf("gauge: negative or non-finite value")
	}
	if in.Scale != nil {
		if *in.Scale < gaugeMinScale || *in.Scale > 4 {
			return fmt.Errorf("gauge scale %d: outside %d..4", *in.Scale, gaugeMinScale)
		}
		g.coarse = uint8(4 - *in.Scale)
	}
	step := int32(1) << g.coarse
	sum := g.zero
	for _, p := range in.Histogram {
		idx := int32(p[0])
		if float64(idx) != p[0] || idx < coarsen(gaugeMinIndex, g.coarse)*step || idx > gaugeMaxIndex || !finiteNonNeg(p[1]) {
			return fmt.Errorf("gauge histogram bucket %v: out of range", p)
		}
		if idx%step != 0 {
			return fmt.Errorf("gauge histogram bucket %v: not a bucket edge at scale %d", p, 4-int(g.coarse))
		}
		g.addFine(int64(idx), p[1])
		sum += p[1]
	}
	if math.Abs(sum-g.Seconds) > 1e-6*max(1, g.Seconds) {
		return fmt.Errorf("gauge: histogram holds %g s but measured seconds are %g", sum, g.Seconds)
	}
	return nil
}
