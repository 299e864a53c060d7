package ledger

import (
	"fmt"

	"github.com/gpuwise/gpuwise/internal/cost"
)

// Summary is the executive summary: spend, utilization, what can be
// recovered and the first three actions.
type Summary struct {
	// SpendUSDMonth is the cost report's monthly spend (see Bridge).
	SpendUSDMonth float64 `json:"spend_usd_month"`
	// Utilization is active ÷ provisioned GPU-hours; null without usage
	// data.
	Utilization         *float64 `json:"utilization"`
	RecoverableUSDMonth float64  `json:"recoverable_usd_month"`
	// First are the first three actions that save money, in plan order.
	First []FirstAction `json:"first"`
	// Lines are the summary as a few sentences.
	Lines []string `json:"lines"`
}

// FirstAction is one of the summary's first actions.
type FirstAction struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	SavingUSDMonth float64  `json:"saving_usd_month"`
	PaybackDays    *float64 `json:"payback_days"`
	Confidence     Level    `json:"confidence"`
}

// summarize writes the executive summary.
func summarize(l *Ledger, rep *cost.Report) Summary {
	s := Summary{SpendUSDMonth: l.Bridge.ReportUSDMonth, Utilization: rep.Totals.GPUUtilizationOfProvisioned, RecoverableUSDMonth: l.Saving().USD()}
	for _, a := range l.Actions {
		if a.Saving() > 0 && len(s.First) < 3 {
			s.First = append(s.First, FirstAction{ID: a.ID, Title: a.Title, SavingUSDMonth: a.SavingUSDMonth, PaybackDays: a.PaybackDays, Confidence: a.Confidence})
		}
	}
	util := "n/a (no usage data)"
	if u := s.Utilization; u != nil {
		util = fmt.Sprintf("%.1f%%", *u*100)
	}
	s.Lines = append(s.Lines, fmt.Sprintf("GPU spend %s/month; GPU utilization %s of provisioned GPU-hours.", l.Bridge.report, util))
	money := 0
	for _, a := range l.Actions {
		if a.Saving() > 0 {
			money++
		}
	}
	if money == 0 {
		s.Lines = append(s.Lines, fmt.Sprintf("Nothing recoverable found by the levers applied (%s/month modelled for the GPU nodes alive at the window's end).", l.before))
		return s
	}
	share := ""
	if l.SavingShare != nil {
		share = fmt.Sprintf(" (%.1f%% of the %s/month the GPU nodes alive at the window's end cost)", *l.SavingShare*100, l.before)
	}
	s.Lines = append(s.Lines, fmt.Sprintf("Recoverable %s/month%s by %d action(s); %.1f engineer-hours (%s) paid back in %s.",
		l.Saving(), share, money, l.Payback.EffortHours, CentsOf(l.Payback.OneTimeUSD), daysText(l.Payback.Days)))
	for _, f := range s.First {
		s.Lines = append(s.Lines, fmt.Sprintf("%s: %s — %s/month, payback %s, %s confidence.", f.ID, f.Title, CentsOf(f.SavingUSDMonth), daysText(f.PaybackDays), f.Confidence))
	}
	return s
}

// daysText writes a payback period.
func daysText(d *float64) string {
	if d == nil {
		return "n/a"
	}
	if *d < 1 {
		return "under a day"
	}
	return fmt.Sprintf("%.0f day(s)", *d)
}
