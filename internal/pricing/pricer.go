package pricing

// HoursPerMonth turns hourly dollars into monthly ones (365 × 24 / 12):
// every $/month gpuwise prints uses it.
const HoursPerMonth = 730

// Pricer prices a node: the one price-lookup interface every engine takes.
// *Catalog satisfies it (with its overrides). An error means the node is
// unpriced: its hours are reported without dollars, never as $0.
type Pricer interface {
	Price(n NodeSpec) (NodePrice, error)
}
