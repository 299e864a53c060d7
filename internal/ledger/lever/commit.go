package lever

import (
	"fmt"
	"strings"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// commitLever commits to the steady on-demand GPU baseline that the
// levers before it leave (docs/capacity.md): from the model's hourly
// on-demand use, the 1-year commitment level that saves most, capped at
// 65% of the mean use; the 3-year alternative is evidence. Spot nodes are
// not covered.
type commitLever struct{}

func (commitLever) Name() string { return LeverCommit }

const keyCommit = LeverCommit + ":" + KindCommit + ":on-demand GPU nodes"

func (commitLever) Propose(m *Model, env *Env) (Proposal, error) {
	var prop Proposal
	if h := env.Snapshot.Window().Hours(); h < shortHistory {
		prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverCommit, Target: "on-demand GPU nodes",
			Reason: fmt.Sprintf("a year's commitment needs at least %.0f h of history to see the daily cycle; the window has %.0f h", shortHistory, h)})
		return prop, nil
	}
	if part := env.Snapshot.Partial(); len(part) > 0 {
		prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverCommit, Target: "on-demand GPU nodes", Reason: commitWithheld(part)})
		return prop, nil
	}
	p := env.Commit
	bc := commitmentsBilled(m, env)
	if bc.discount > 0 {
		p.Discount1Y = bc.discount
	}
	curve := m.onDemandCurve(bc.covered)
	one := capacity.BestCommit(curve, p.Discount1Y, p.CapOfMean)
	three := capacity.BestCommit(curve, p.Discount3Y, p.CapOfMean)
	if one.LevelUSDPerHour <= 0 || one.SavingUSDPerHour <= 0 {
		prop.NotCounted = append(prop.NotCounted, NotCounted{Lever: LeverCommit, Target: "on-demand GPU nodes",
			Reason: "no steady on-demand baseline left to commit to after the levers before it"})
		return prop, nil
	}
	owed := one.LevelUSDPerHour * (1 - one.Discount) * HoursPerMonth
	a := Action{Key: keyCommit, Kind: KindCommit, Target: "on-demand GPU nodes", Targets: []Target{{Kind: "pool", Name: "on-demand GPU nodes"}},
		Title: fmt.Sprintf("Commit $%.2f/h of on-demand GPU use for 1 year (Savings Plan or reservations, %.0f%% off)", one.LevelUSDPerHour, one.Discount*100),
		Why: fmt.Sprintf("the on-demand GPU nodes left by the levers before use $%.2f/h on average; a commitment at $%.2f/h (capped at %.0f%% of the mean) is used in full in the hours above it and pays once %.0f%% of it is used; %s/month is owed for the year even if use falls",
			one.MeanUSDPerHour, one.LevelUSDPerHour, p.CapOfMean*100, one.BreakEven*100, CentsOf(owed)),
		EffortHours: effortAction + effortCommit,
		Evidence: []Evidence{
			{Name: "mean_on_demand_usd_per_hour", Value: round2(one.MeanUSDPerHour), Unit: "USD/hour"},
			{Name: "commit_usd_per_hour", Value: round2(one.LevelUSDPerHour), Unit: "USD/hour"},
			{Name: "discount_1y", Value: round2(one.Discount * 100), Unit: "%"},
			{Name: "break_even_utilization", Value: round2(one.BreakEven * 100), Unit: "%"},
			{Name: "at_stake_if_use_falls_usd_month", Value: round2(owed), Unit: "USD/month"},
			{Name: "saving_3y_usd_month", Value: round2(three.SavingUSDPerHour * HoursPerMonth), Unit: "USD/month"},
			{Name: "commit_3y_usd_per_hour", Value: round2(three.LevelUSDPerHour), Unit: "USD/hour"},
		},
		Artefacts: []Artefact{},
	}
	if bc.coveredUSD > 0 {
		a.Evidence = append(a.Evidence, Evidence{Name: "already_committed_usd_per_hour", Value: round2(bc.coveredUSD), Unit: "USD/hour"})
	}
	a.Confidence, a.ConfidenceReason = commitConfidence(env.Snapshot.Window().Hours())
	d := priceDates(env, func(n *cluster.Node) bool { return n.Capacity != cluster.Spot })
	if d == "" {
		d = "unpriced"
	}
	if bc.discount > 0 {
		a.ConfidenceReason += fmt.Sprintf("; the on-demand use is priced at the nodes' rates (%s) and the discount is the %.1f%% the bill's commitments realised (%s), on their own term (the bill does not say it; the 3-year alternative takes the policy's %.0f%%)",
			d, one.Discount*100, bc.source, p.Discount3Y*100)
	} else {
		a.ConfidenceReason += fmt.Sprintf("; the on-demand use is priced at the nodes' rates (%s) and the discount is the policy's %.0f%%, not a quote", d, one.Discount*100)
	}
	if bc.coveredUSD > 0 {
		a.ConfidenceReason += fmt.Sprintf("; $%.2f/h of the nodes' use the bill's commitments already cover is left out", bc.coveredUSD)
	}
	a.Risk, a.RiskReason = Medium, fmt.Sprintf("%s/month is owed for the term whatever the use; below %.0f%% use of the commitment it costs more than on demand", CentsOf(owed), one.BreakEven*100)
	level, disc := one.LevelUSDPerHour, one.Discount
	prop.Changes = []Change{{Action: a, Apply: func(m *Model) {
		m.Commitment = &Commitment{LevelUSDPerHour: level, Discount: disc, Term: "1y", Covered: bc.covered}
	}}}
	return prop, nil
}

// commitConfidence: a year's commitment sized on less than a month of
// history is medium at best, under a week low.
func commitConfidence(hours float64) (Level, string) {
	if hours < 7*24 {
		return Low, fmt.Sprintf("a year's commitment sized on %.0f h of use: less than a week", hours)
	}
	return Medium, fmt.Sprintf("a year's commitment sized on %.0f h of use: check it against the last months' bills", hours)
}

// billCommitments is what prices backed by a bill say of the
// commitments already in it (the app's prices with --bill).
type billCommitments interface {
	// CommitmentDiscount is the discount the bill's commitments realised
	// on the cluster's GPU nodes (1 − amortized ÷ list), with its source.
	CommitmentDiscount() (discount float64, source string, ok bool)
	// CommittedShare is the part of a node's billed cost they cover.
	CommittedShare(node string) float64
}

// billedCommitments is the bill's word on commitments for the lever: the
// realised discount (0: none; the policy's applies), its source, and the
// part of each kept on-demand node's rate already committed.
type billedCommitments struct {
	discount   float64
	source     string
	covered    map[string]float64
	coveredUSD float64 // $/h of the nodes' rates already covered
}

func commitmentsBilled(m *Model, env *Env) billedCommitments {
	var bc billedCommitments
	b, ok := env.Prices.(billCommitments)
	if !ok {
		return bc
	}
	if d, src, ok := b.CommitmentDiscount(); ok && d > 0 && d < 1 {
		bc.discount, bc.source = d, src
	}
	for i := range m.Nodes {
		n := &m.Nodes[i]
		if !n.Kept || !n.Priced || n.Capacity == cluster.Spot || n.Capacity == cluster.Reserved {
			continue
		}
		if s := b.CommittedShare(n.Name); s > 0 {
			if bc.covered == nil {
				bc.covered = map[string]float64{}
			}
			bc.covered[n.Name] = s
			bc.coveredUSD += n.USDPerHour * s
		}
	}
	return bc
}

// commitWithheld is why no commitment is advised on a partial read (issue
// 31): a year's spend is sized on the on-demand baseline the other levers
// leave, and what the read lacks moves that baseline either way (without
// DCGM, reclaim and the GPU shape changes find nothing, so more use is
// left to commit: a larger commitment than the full data gives). It is
// withheld rather than guessed smaller, and the reason names what is
// missing and what unblocks it.
func commitWithheld(partial []string) string {
	first := partial[0]
	if i := strings.IndexAny(first, "(:"); i > 0 {
		first = strings.TrimSpace(first[:i])
	}
	more := ""
	if n := len(partial) - 1; n > 0 {
		more = fmt.Sprintf(" and %d more gap(s) in the partial notes", n)
	}
	return fmt.Sprintf("withheld: a year's commitment is not sized on a partial read (%s%s); it is advised once the read is complete: the missing series in the window (the partial notes name each), then rerun", first, more)
}
