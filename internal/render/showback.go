package render

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/compare"
)

// Showback formats: csv (one row per group) and focus (a FOCUS-style
// allocation file: one allocated charge per group, FOCUS 1.3 column names
// for split cost allocation, gpuwise's own figures as x_ columns).
const (
	ShowbackCSV   = "csv"
	ShowbackFOCUS = "focus"
)

// ShowbackFormats are the non-JSON formats a showback renders in.
var ShowbackFormats = []string{ShowbackCSV, ShowbackFOCUS}

// Showback writes s as CSV or as the FOCUS-style file. Dollars are
// written in cents, the groups' totals rounded so that they add up to the
// rounded total exactly (largest remainder): the file sums to the
// report's total to the cent.
func Showback(w io.Writer, s *compare.Showback, format string) error {
	cw := csv.NewWriter(w)
	cents := centsSumming(s)
	if format == ShowbackFOCUS {
		return focus(cw, s, cents)
	}
	cw.Write([]string{"group_by", "key", "range_start", "range_end", "idle_share", "gpu_hours", "gpu_active_hours", "gpu_idle_hours", "gpu_utilization",
		"active_usd", "idle_usd", "unmeasured_usd", "cpu_memory_usd", "unallocated_usd", "total_usd", "share", "previous_total_usd", "change_usd", "change_share", "unpriced_gpu_hours"})
	for i, r := range s.Rows {
		cw.Write([]string{s.By, r.Key, stamp(s.Range.Start), stamp(s.Range.End), s.IdleShare,
			sbHours(r.GPUHours), sbHours(r.GPUActiveHours), sbHours(r.GPUIdleHours), ratioCell(r.Utilization),
			roundedUSD(r.ActiveUSD), roundedUSD(r.IdleUSD), roundedUSD(r.UnmeasuredUSD), roundedUSD(r.CPUMemoryUSD), roundedUSD(r.UnallocatedUSD),
			centsUSD(cents[i]), ratioCell(r.Share), roundedUSDOr(r.PreviousTotalUSD), roundedUSDOr(r.ChangeUSD), ratioCell(r.ChangeShare), sbHours(r.UnpricedGPUHours)})
	}
	cw.Flush()
	return cw.Error()
}

func focus(cw *csv.Writer, s *compare.Showback, cents []int64) error {
	label := strings.TrimPrefix(s.By, "label:")
	cw.Write([]string{"ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ChargeDescription", "ServiceCategory", "ServiceName",
		"EffectiveCost", "BillingCurrency", "ConsumedQuantity", "ConsumedUnit",
		"AllocatedMethodId", "AllocatedMethodDetails", "AllocatedResourceId", "AllocatedResourceName", "AllocatedTags",
		"x_ActiveCost", "x_IdleCost", "x_UnmeasuredCost", "x_CPUMemoryCost", "x_UnallocatedCost", "x_GPUActiveHours"})
	details, _ := json.Marshal(map[string]string{"idle_share": s.IdleShare, "group_by": s.By,
		"split": "the cost engine's node cost split to pods by request; unallocated cost per idle_share (none: its own line; cluster: by what each group pays)"})
	for i, r := range s.Rows {
		tags := "{}"
		if strings.HasPrefix(s.By, "label:") && r.Key != compare.UnallocatedKey {
			b, _ := json.Marshal(map[string]string{label: r.Key})
			tags = string(b)
		}
		cw.Write([]string{stamp(s.Range.Start), stamp(s.Range.End), "Usage", "Kubernetes GPU node cost allocated to " + s.By + " " + r.Key,
			"Compute", "Kubernetes", centsUSD(cents[i]), "USD", sbHours(r.GPUHours), "GPU-Hours",
			"gpuwise-idle-share-" + s.IdleShare, string(details), s.By + "/" + r.Key, r.Key, tags,
			roundedUSD(r.ActiveUSD), roundedUSD(r.IdleUSD), roundedUSD(r.UnmeasuredUSD), roundedUSD(r.CPUMemoryUSD), roundedUSD(r.UnallocatedUSD), sbHours(r.GPUActiveHours)})
	}
	cw.Flush()
	return cw.Error()
}

// centsSumming rounds each row's total to cents so that they add up to
// the total rounded to cents: the rows' remainders decide who gets the
// cents the rounding down left over (largest first, then row order).
func centsSumming(s *compare.Showback) []int64 {
	out := make([]int64, len(s.Rows))
	type rem struct {
		i int
		r float64
	}
	rs := make([]rem, len(s.Rows))
	var sum int64
	for i, r := range s.Rows {
		c := r.TotalUSD * 100
		f := math.Floor(c)
		out[i] = int64(f)
		sum += out[i]
		rs[i] = rem{i, c - f}
	}
	left := int64(math.Round(s.Total.TotalUSD*100)) - sum
	sort.SliceStable(rs, func(a, b int) bool { return rs[a].r > rs[b].r })
	for k := 0; left > 0 && len(rs) > 0; k, left = (k+1)%len(rs), left-1 {
		out[rs[k].i]++
	}
	for k := 0; left < 0 && len(rs) > 0; k, left = (k+1)%len(rs), left+1 {
		out[rs[len(rs)-1-k].i]--
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func sbHours(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func ratioCell(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 4, 64)
}
