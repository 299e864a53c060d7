package rightsize

import (
	"github.com/gpuwise/gpuwise/internal/gpushape"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// offer is a catalog row with what every workload's check reads of it
// that does not depend on the workload: the row's GPU model and its dense
// compute. The engine looks the rows of a cloud and region up once.
type offer struct {
	pricing.Entry
	model  gpushape.Model
	known  bool // model in gpushape
	tflops float64
	hasT   bool // dense TFLOPS known
}

// regionKey names a cloud and region's offers.
type regionKey struct{ cloud, region string }

// offerPriceKey names one row priced as a capacity type.
type offerPriceKey struct {
	entry    pricing.Entry
	capacity pricing.CapacityType
}

// offerPrice is the price of a row as a capacity type, or why not.
type offerPrice struct {
	price pricing.NodePrice
	err   error
}

// offers are the catalog rows of a cloud and region in the catalog's
// order, looked up once per engine (every GPU workload of a region asks);
// an engine without memo maps looks them up every time (the tests compare).
func (e *engine) offers(cloud, region string) []offer {
	k := regionKey{cloud, region}
	if o, ok := e.offerMemo[k]; ok {
		return o
	}
	rows := e.prices.Offers(cloud, region)
	out := make([]offer, len(rows))
	for i, r := range rows {
		out[i] = offer{Entry: r}
		out[i].model, out[i].known = gpushape.Lookup(r.GPUModel)
		out[i].tflops, out[i].hasT = gpushape.DenseTFLOPS(r.GPUModel)
	}
	if e.offerMemo != nil {
		e.offerMemo[k] = out
	}
	return out
}

// offerPrice prices a row as a node of the given capacity type, once per
// engine (the price of a spec does not change within one run).
func (e *engine) offerPrice(r pricing.Entry, capacity pricing.CapacityType) (pricing.NodePrice, error) {
	k := offerPriceKey{r, capacity}
	if p, ok := e.priceMemo[k]; ok {
		return p.price, p.err
	}
	p, err := e.prices.Price(pricing.OfferSpec(r, capacity))
	if e.priceMemo != nil {
		e.priceMemo[k] = offerPrice{p, err}
	}
	return p, err
}
