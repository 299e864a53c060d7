package app

import (
	"math"
	"slices"
	"sort"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/policy"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// groundwork runs the audit on the ledger's snapshot and prices and
// hands the ledger the figures of its days 0–30 groundwork: the GPU
// nodes without the taint (GW001), the workloads without GPUs on GPU
// nodes and their cost there (GW002), and the findings of the rules the
// admission policies enforce with the cost at stake behind them
// (docs/savings.md "Days 0–30"). The audit's defaults are the ones
// `gpuwise audit` runs with.
func groundwork(s *cluster.Prepared, prices pricing.Pricer) *ledger.Groundwork {
	r := audit.Run(s, prices, audit.DefaultOptions())
	var enforced []string
	for _, rule := range policy.Rules {
		if rule.Audit != "" && !slices.Contains(enforced, rule.Audit) {
			enforced = append(enforced, rule.Audit)
		}
	}
	sort.Strings(enforced)
	g := &ledger.Groundwork{AdmissionRules: []string{}}
	var nonGPU, atStake float64
	var nonGPUPriced, atStakePriced bool
	for _, f := range r.Findings {
		switch f.Rule {
		case audit.RuleNodeUntainted:
			g.UntaintedNodes = append(g.UntaintedNodes, f.Object)
		case audit.RuleNonGPUPod:
			g.NonGPUWorkloads = append(g.NonGPUWorkloads, f.Object)
			if f.MonthlyUSD != nil {
				nonGPU, nonGPUPriced = nonGPU+*f.MonthlyUSD, true
			}
		}
		if slices.Contains(enforced, f.Rule) {
			g.AdmissionFindings++
			if !slices.Contains(g.AdmissionRules, f.Rule) {
				g.AdmissionRules = append(g.AdmissionRules, f.Rule)
			}
			if f.MonthlyUSD != nil {
				atStake, atStakePriced = atStake+*f.MonthlyUSD, true
			}
		}
	}
	sort.Strings(g.AdmissionRules)
	if nonGPUPriced {
		g.NonGPUUSDMonth = cents(nonGPU)
	}
	if atStakePriced {
		g.AdmissionUSDMonth = cents(atStake)
	}
	return g
}

func cents(v float64) *float64 {
	r := math.Round(v*100) / 100
	return &r
}
