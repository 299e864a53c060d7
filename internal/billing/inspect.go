package billing

import (
	"sort"
	"time"
)

// Inspection is what a set of exports holds (bill inspect).
type Inspection struct {
	Files          []FileInfo        `json:"files"`
	Rows           int64             `json:"rows"`
	Providers      []ProviderSummary `json:"providers"`
	BillingPeriods []string          `json:"billing_periods"`
	ChargeStart    string            `json:"charge_start,omitempty"`
	ChargeEnd      string            `json:"charge_end,omitempty"`
	Services       []ServiceSummary  `json:"services"`
	// ComputeResources counts billed instances (compute usage with a
	// resource id); GPUInstances lists those with GPU instance types.
	ComputeResources int           `json:"compute_resources"`
	GPUInstances     []GPUInstance `json:"gpu_instances"`
}

// ProviderSummary is one provider's rows and sums.
type ProviderSummary struct {
	Provider      string  `json:"provider"`
	Rows          int64   `json:"rows"`
	BilledCost    float64 `json:"billed_cost"`
	EffectiveCost float64 `json:"effective_cost"`
	ListCost      float64 `json:"list_cost"`
}

// ServiceSummary is one provider's service's rows and sums.
type ServiceSummary struct {
	Provider      string  `json:"provider"`
	Service       string  `json:"service"`
	Rows          int64   `json:"rows"`
	BilledCost    float64 `json:"billed_cost"`
	EffectiveCost float64 `json:"effective_cost"`
	ListCost      float64 `json:"list_cost"`
}

// GPUInstance is one billed GPU instance.
type GPUInstance struct {
	ResourceID    string  `json:"resource_id"`
	Provider      string  `json:"provider"`
	InstanceType  string  `json:"instance_type"`
	Hours         float64 `json:"hours"`
	EffectiveCost float64 `json:"effective_cost"`
	Spot          bool    `json:"spot,omitempty"`
	Commitment    string  `json:"commitment,omitempty"`
}

// Inspect summarizes the bill.
func (b *Bill) Inspect(isGPU IsGPU) *Inspection {
	in := &Inspection{Files: b.Files, Providers: []ProviderSummary{}, Services: []ServiceSummary{}, GPUInstances: []GPUInstance{},
		BillingPeriods: []string{}, ComputeResources: len(b.resources)}
	for _, f := range b.Files {
		in.Rows += f.Rows
	}
	prov := map[string]*ProviderSummary{}
	for k, t := range b.Totals {
		in.Services = append(in.Services, ServiceSummary{Provider: k.Provider, Service: k.Service, Rows: t.Rows,
			BilledCost: t.BilledCost, EffectiveCost: t.EffectiveCost, ListCost: t.ListCost})
		p := prov[k.Provider]
		if p == nil {
			p = &ProviderSummary{Provider: k.Provider}
			prov[k.Provider] = p
		}
		p.Rows += t.Rows
		p.BilledCost += t.BilledCost
		p.EffectiveCost += t.EffectiveCost
		p.ListCost += t.ListCost
	}
	for _, p := range prov {
		in.Providers = append(in.Providers, *p)
	}
	sort.Slice(in.Providers, func(i, j int) bool { return in.Providers[i].Provider < in.Providers[j].Provider })
	sort.Slice(in.Services, func(i, j int) bool {
		a, b := in.Services[i], in.Services[j]
		return a.Provider < b.Provider || (a.Provider == b.Provider && a.Service < b.Service)
	})
	for _, p := range b.BillingPeriods {
		in.BillingPeriods = append(in.BillingPeriods, p.Format("2006-01"))
	}
	if !b.first.IsZero() {
		in.ChargeStart, in.ChargeEnd = b.first.Format(time.RFC3339), b.last.Format(time.RFC3339)
	}
	for _, r := range b.Resources() {
		if r.InstanceType == "" || isGPU == nil || !isGPU(r.Provider, r.InstanceType) {
			continue
		}
		g := GPUInstance{ResourceID: r.ID, Provider: r.Provider, InstanceType: r.InstanceType, Spot: r.Spot, Commitment: r.Commitment}
		var spans []span
		for _, c := range r.runs {
			g.EffectiveCost += c.eff * float64(c.n)
			spans = append(spans, span{c.start, c.end()})
		}
		g.Hours = float64(unionLen(spans)) / 3600
		in.GPUInstances = append(in.GPUInstances, g)
	}
	return in
}
