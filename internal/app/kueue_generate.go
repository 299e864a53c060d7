package app

import (
	"context"
	"fmt"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/generate"
	"github.com/gpuwise/gpuwise/internal/kueue"
	"github.com/gpuwise/gpuwise/internal/ledger"
	"github.com/gpuwise/gpuwise/internal/policy"
	"github.com/gpuwise/gpuwise/internal/quota"
)

// KueueRequest asks for Kueue queues per team.
type KueueRequest struct {
	Data
	// Percentile and Headroom size each queue's nominal quota as generate
	// quota sizes a ResourceQuota (quota.DefaultOptions).
	Percentile float64
	Headroom   float64
	// Cohort names the cohort the teams' queues share.
	Cohort string
}

// DefaultKueueCohort is the cohort generate kueue writes by default.
const DefaultKueueCohort = "gpuwise-batch"

// DefaultKueueRequest is generate kueue with every default.
func DefaultKueueRequest() KueueRequest {
	o := quota.DefaultOptions(nil)
	return KueueRequest{Data: Data{Source: Source{Kube: DefaultKube()}}, Percentile: o.Percentile, Headroom: o.Headroom, Cohort: DefaultKueueCohort}
}

func (r KueueRequest) options(exempt []string) kueue.SizeOptions {
	return kueue.SizeOptions{Quota: quota.Options{Percentile: r.Percentile, Headroom: r.Headroom, Exempt: exempt},
		BatchNamespaces: capacity.DefaultBatchNamespaces, Cohort: r.Cohort}
}

// Validate lists every problem with the request.
func (r KueueRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	p.add(r.options(nil).Validate())
	return p.err()
}

// KueueResult is the sized queues, the ledger's money for queueing and
// the files.
type KueueResult struct {
	Sizing *kueue.Sizing
	Saving generate.KueueSaving
	GenerateResult
}

// GenerateKueue sizes a Kueue ClusterQueue per team (namespace) from the
// window's batch GPU pods and writes the flavors, the cohort and the
// queues; the $ the files quote is the savings ledger's queue lever on
// the same snapshot (default options), never priced here.
func (a *App) GenerateKueue(ctx context.Context, req KueueRequest) (*KueueResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	an, err := a.analyze(ctx, req.Data, liveReportWindow)
	if err != nil {
		return nil, err
	}
	exempt, _ := policy.Learn(policy.Defaults(), an.snap.View())
	s, err := kueue.Size(an.snap, req.options(exempt.ExemptNamespaces))
	if err != nil {
		return nil, fmt.Errorf("sizing Kueue queues: %w", err)
	}
	res := &KueueResult{Sizing: s}
	notes := append([]string{"the need is read from the batch GPU pods' lifetimes (pods of Kueue's job kinds, pods Kueue admitted, GPU workers in batch namespaces), each asking its requests from start to end on its node's flavor"}, s.Notes...)
	l, lerr := an.Ledger(ledger.DefaultOptions(), cost.DefaultOptions())
	if lerr != nil {
		notes = append(notes, "the savings ledger could not be built, so the files quote no $ for queueing: "+lerr.Error())
	} else {
		res.Saving = queueSaving(l)
	}
	files, err := generate.Kueue(s, res.Saving)
	if err != nil {
		return nil, generateErr(err)
	}
	if len(s.Teams) == 0 {
		notes = append(notes, "no batch GPU pods in the window: no queues written")
	}
	res.GenerateResult = GenerateResult{Files: files, Notes: notes, Partial: an.partial}
	return res, nil
}

// queueSaving is the ledger's queue-batch actions.
func queueSaving(l *ledger.Ledger) generate.KueueSaving {
	var out generate.KueueSaving
	for _, lr := range l.Levers {
		if lr.Name == ledger.LeverQueue {
			out.Ran = true
		}
	}
	for _, a := range l.Actions {
		if a.Kind == ledger.KindQueue {
			out.USDMonth += a.SavingUSDMonth
			out.Actions = append(out.Actions, a.ID)
		}
	}
	return out
}
