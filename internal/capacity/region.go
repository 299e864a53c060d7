package capacity

import (
	"errors"
	"fmt"
	"math"
)

// RegionPolicy steers the region lever (docs/capacity.md): moving a GPU
// node pool to a cheaper region of the same cloud pays back the one-time
// data transfer (DataGB × the cloud's $/GB) out of the monthly saving.
type RegionPolicy struct {
	// DataGB is the data a moved pool takes with it (datasets,
	// checkpoints, model weights), in GB; 0 means unknown: candidates are
	// listed, never counted, and the lever is off by default.
	DataGB float64
	// MaxPaybackMonths is the longest payback counted; a move that takes
	// longer to repay its transfer is "usually not worth it".
	MaxPaybackMonths float64
}

// DefaultRegionMaxPaybackMonths: a region move is counted when the data
// transfer pays back within a quarter.
const DefaultRegionMaxPaybackMonths = 3

// DefaultRegionPolicy returns the documented defaults.
func DefaultRegionPolicy() RegionPolicy {
	return RegionPolicy{MaxPaybackMonths: DefaultRegionMaxPaybackMonths}
}

// Validate lists every problem, each naming its flag.
func (p RegionPolicy) Validate() error {
	var errs []error
	if d := p.DataGB; d < 0 || math.IsNaN(d) || math.IsInf(d, 0) {
		errs = append(errs, fmt.Errorf("--region-data-gb: %v is not a non-negative size in GB (0: unknown)", d))
	}
	if m := p.MaxPaybackMonths; !(m > 0) || math.IsInf(m, 0) {
		errs = append(errs, fmt.Errorf("--region-max-payback: %v is not a positive number of months, e.g. %d", m, DefaultRegionMaxPaybackMonths))
	}
	return errors.Join(errs...)
}

// RegionMove is the break-even of moving a pool's data to another region.
type RegionMove struct {
	SavingUSDMonth, OneTimeUSD, PaybackMonths float64
}

// Breakeven is the move's payback: the one-time transfer (dataGB ×
// usdPerGB) over the monthly saving, which must be positive.
func Breakeven(savingUSDMonth, dataGB, usdPerGB float64) RegionMove {
	one := dataGB * usdPerGB
	return RegionMove{SavingUSDMonth: savingUSDMonth, OneTimeUSD: one, PaybackMonths: one / savingUSDMonth}
}
