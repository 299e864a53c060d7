package app

import (
	"errors"
	"fmt"
	"os"

	"github.com/gpuwise/gpuwise/internal/billing"
	"github.com/gpuwise/gpuwise/internal/billing/export"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/sim"
)

// Prices are a command's prices, loaded once at the composition root (per
// command in the CLI, at start in the service) and handed to every use
// case: the embedded catalog, the user's overrides over it, and the cloud
// bill whose effective rates price the node-hours it covers. Immutable.
type Prices struct {
	// given says the user named price files (overrides or a bill).
	given   bool
	catalog *pricing.Catalog
	bill    *billing.Bill // nil: no bill
	err     error         // a load that failed: every use case fails with it
}

// LoadPrices reads the override file (empty: none) and the billing
// exports (FOCUS or AWS CUR 2.0: CSV, gzip CSV or Parquet) once. A file
// that cannot be read or parsed is an Input error naming it (a bill's
// names the row and the column).
func LoadPrices(overrides string, bills []string) (*Prices, error) {
	c, err := loadPrices(overrides)
	if err != nil {
		return nil, err
	}
	p := &Prices{catalog: c, given: overrides != "" || len(bills) > 0}
	if len(bills) == 0 {
		return p, nil
	}
	p.bill = billing.NewBill()
	for _, path := range bills {
		if err := readBill(p.bill, path); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// MustLoadPrices is LoadPrices for a front end that reports a failure
// when the use case runs: the error is kept and returned by every use
// case given these prices.
func MustLoadPrices(overrides string, bills []string) *Prices {
	p, err := LoadPrices(overrides, bills)
	if err != nil {
		return &Prices{err: err, given: true}
	}
	return p
}

// CatalogPrices are the prices of a catalog (with its overrides) alone.
func CatalogPrices(c *pricing.Catalog) *Prices { return &Prices{catalog: c} }

// ReadBill reads billing exports on their own (bill inspect).
func ReadBill(paths []string) (*billing.Bill, error) {
	b := billing.NewBill()
	for _, path := range paths {
		if err := readBill(b, path); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func readBill(b *billing.Bill, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return withKind(Input, fmt.Errorf("reading bill: %w", err))
	}
	defer f.Close()
	if err := export.Read(b, path, f, export.DefaultLimits()); err != nil {
		var re *export.RowError
		var fe *export.FileError
		if errors.As(err, &re) || errors.As(err, &fe) {
			return withKind(Input, fmt.Errorf("reading bill: %w", err))
		}
		return withKind(Input, fmt.Errorf("reading bill %s: %w", path, err))
	}
	return nil
}

// Bill is the loaded bill; nil without one.
func (p *Prices) Bill() *billing.Bill {
	if p == nil {
		return nil
	}
	return p.bill
}

// Catalog is the catalog with the overrides.
func (p *Prices) Catalog() *pricing.Catalog {
	if p == nil || p.catalog == nil {
		return pricing.Embedded()
	}
	return p.catalog
}

// check is the load's error, if it failed.
func (p *Prices) check() error {
	if p != nil && p.err != nil {
		return p.err
	}
	return nil
}

// nodePrices is what the engines are handed: the catalog (offers,
// lookups, warnings) with node prices from the bill where it covers them.
type nodePrices struct {
	*pricing.Catalog
	bill *billing.Pricer // nil without a bill
}

// Price prices a node: the bill's effective rate for its billed hours,
// the catalog or an override for the rest.
func (n *nodePrices) Price(s pricing.NodeSpec) (pricing.NodePrice, error) {
	if n.bill != nil {
		return n.bill.Price(s)
	}
	return n.Catalog.Price(s)
}

// CommitmentDiscount is the bill's realised commitment discount on the
// snapshot's GPU nodes (the commitment lever prices from it); ok is false
// without a bill or without commitments in it.
func (n *nodePrices) CommitmentDiscount() (float64, string, bool) {
	if n.bill == nil {
		return 0, "", false
	}
	return n.bill.CommitmentDiscount()
}

// CommittedShare is the part of a node's billed cost the bill's
// commitments already cover (0 without a bill).
func (n *nodePrices) CommittedShare(node string) float64 {
	if n.bill == nil {
		return 0
	}
	return n.bill.CommittedShare(node)
}

// match is the bill bound to the snapshot; nil without a bill.
func (n *nodePrices) match() *billing.Match {
	if n == nil || n.bill == nil {
		return nil
	}
	return n.bill.Match
}

// forSnapshot binds the prices to one snapshot: the bill's charges are
// matched to its nodes over its window.
func (p *Prices) forSnapshot(s *cluster.Prepared) (*nodePrices, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	np := &nodePrices{Catalog: p.Catalog()}
	if p.Bill() == nil || s == nil {
		return np, nil
	}
	lives := make([]billing.NodeLife, len(s.Nodes()))
	for i := range s.Nodes() {
		n := &s.Nodes()[i]
		lives[i] = billing.NodeLife{Name: n.Name, ProviderID: n.ProviderID, Created: n.Created, Deleted: n.Deleted, GPUs: len(n.GPUs),
			InstanceType: n.InstanceType, Capacity: n.Capacity}
	}
	m := p.bill.Bind(s.Window().Start, s.Window().End, lives)
	np.bill = &billing.Pricer{Fallback: np.Catalog, Match: m}
	return np, nil
}

// reconcile sets the allocation's node cost against the bill; nil
// without a bill.
func reconcile(np *nodePrices, a *cost.Allocation) *billing.Reconciliation {
	m := np.match()
	if m == nil {
		return nil
	}
	w := a.Snapshot.Window()
	var costs []billing.NodeCost
	for i := range a.Snapshot.Nodes() {
		n := &a.Snapshot.Nodes()[i]
		if !n.HasGPUs() {
			continue
		}
		c := billing.NodeCost{Node: n.Name, Hours: w.Clip(n.Created, n.Deleted) / 3600}
		if p, ok := a.Prices[n.Name]; ok {
			c.Priced, c.USDPerHour, c.PriceSource, c.PriceOrigin, c.PriceAsOf = true, p.NodeUSDPerHour, p.Source, p.Origin, p.AsOf
		} else {
			c.PriceSource = a.Unpriced[n.Name]
		}
		costs = append(costs, c)
	}
	ns := map[string]float64{}
	for i := range a.Lines {
		if l := &a.Lines[i]; l.Pod != nil && l.Priced {
			ns[l.Pod.Namespace] += l.Total()
		}
	}
	cat := np.Catalog
	return m.Reconcile(costs, ns, func(provider, it string) bool {
		return cat.GPUInstanceType(billing.Cloud(provider), it)
	})
}

// saveBill writes the simulated snapshot's billing export (sim.WriteBill)
// to path, priced by the catalog (and overrides) alone.
func saveBill(path string, s *cluster.Snapshot, c *pricing.Catalog, format string) error {
	f, err := os.Create(path)
	if err != nil {
		return withKind(Output, fmt.Errorf("writing bill: %w", err))
	}
	if err := sim.WriteBill(f, s, c, format); err != nil {
		f.Close()
		return withKind(Output, fmt.Errorf("writing bill %s: %w", path, err))
	}
	return withKind(Output, f.Close())
}

// InspectBill reads billing exports and says what they hold: rows,
// providers, billing periods, sums per provider and service, the GPU
// instances billed (instance types the catalog knows with GPUs).
func (a *App) InspectBill(paths []string) (*billing.Inspection, error) {
	if len(paths) == 0 {
		return nil, usageErrorf("bill inspect needs at least one FILE")
	}
	b, err := ReadBill(paths)
	if err != nil {
		return nil, err
	}
	cat := pricing.Embedded()
	return b.Inspect(func(provider, it string) bool { return cat.GPUInstanceType(billing.Cloud(provider), it) }), nil
}

// pricesNothing refuses price files for a use case that prices nothing
// (the Karpenter and reclaim artefacts): a flag it cannot honour.
func (in Data) pricesNothing(p *problems) {
	if in.Prices != nil && in.Prices.given {
		p.add(errors.New("prices, bill: this command prices nothing (its output has no dollars); drop --prices and --bill"))
	}
}
