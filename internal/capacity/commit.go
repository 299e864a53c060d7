package capacity

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Commitments (docs/capacity.md): a Savings Plan or reservation commits
// to L dollars an hour of on-demand-equivalent use, billed at (1 −
// discount) whether used or not; use above L stays on demand. Over the
// hours of a month the saving is Σ min(use, L) − L × (1 − discount): it
// grows while the share of hours with use above L exceeds 1 − discount,
// so the best L is that quantile of the hourly use, capped at a share of
// the mean use (DESIGN.md: commit 60–70% of average) so that a fall in
// use does not leave the commitment idle.

// CommitPolicy steers the commitments lever.
type CommitPolicy struct {
	// Discount1Y and Discount3Y are the discounts of a 1- and 3-year
	// commitment off on-demand (policy defaults; catalog rates where a
	// price file gives them).
	Discount1Y, Discount3Y float64
	// CapOfMean caps the commitment at this share of the mean hourly use.
	CapOfMean float64
}

// Commitment defaults: round policy discounts for GPU instances (pass
// your negotiated ones), and 65% of mean use, the middle of DESIGN.md's
// 60–70%.
const (
	DefaultDiscount1Y = 0.30
	DefaultDiscount3Y = 0.45
	DefaultCapOfMean  = 0.65
)

// DefaultCommitPolicy returns the documented defaults.
func DefaultCommitPolicy() CommitPolicy {
	return CommitPolicy{Discount1Y: DefaultDiscount1Y, Discount3Y: DefaultDiscount3Y, CapOfMean: DefaultCapOfMean}
}

// Validate lists every problem, each naming its field.
func (p CommitPolicy) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{{"commitments.discount1y", p.Discount1Y}, {"commitments.discount3y", p.Discount3Y}, {"commitments.capOfMean", p.CapOfMean}} {
		if !(f.v > 0 && f.v < 1) {
			errs = append(errs, fmt.Errorf("%s: %v is outside (0, 1)", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// Use is a piece of the hourly use curve: Share of the hours (0–1) at
// USDPerHour of on-demand use.
type Use struct {
	Share      float64
	USDPerHour float64
}

// Commit is the best commitment for a use curve at a discount.
type Commit struct {
	// LevelUSDPerHour is the on-demand-equivalent use committed to; the
	// bill is Level × (1 − discount) every hour.
	LevelUSDPerHour float64 `json:"level_usd_per_hour"`
	Discount        float64 `json:"discount"`
	// SavingShare is the saving per hour of the month as a share of
	// nothing: Σ min(use, L) − L(1 − d), in $/h averaged over the month.
	SavingUSDPerHour float64 `json:"saving_usd_per_hour"`
	// MeanUSDPerHour is the mean on-demand use; BreakEven the share of the
	// committed level that must be used for it to pay (1 − discount).
	MeanUSDPerHour float64 `json:"mean_usd_per_hour"`
	BreakEven      float64 `json:"break_even_utilization"`
}

// Saving is a commitment's saving in $/h averaged over the curve.
func Saving(curve []Use, level, discount float64) float64 {
	var covered float64
	for _, u := range curve {
		covered += u.Share * math.Min(u.USDPerHour, level)
	}
	return covered - level*(1-discount)
}

// BestCommit picks the level that saves most, capped at capOfMean × the
// mean use: the candidates are the curve's own levels and the cap (the
// saving is piecewise linear between them).
func BestCommit(curve []Use, discount, capOfMean float64) Commit {
	var mean float64
	for _, u := range curve {
		mean += u.Share * u.USDPerHour
	}
	limit := capOfMean * mean
	cands := []float64{limit}
	for _, u := range curve {
		if u.USDPerHour < limit {
			cands = append(cands, u.USDPerHour)
		}
	}
	slices.Sort(cands)
	best := Commit{Discount: discount, MeanUSDPerHour: mean, BreakEven: 1 - discount}
	for _, l := range cands {
		if s := Saving(curve, l, discount); s > best.SavingUSDPerHour+1e-12 {
			best.LevelUSDPerHour, best.SavingUSDPerHour = l, s
		}
	}
	return best
}
