package app

import (
	"context"
	"time"

	"github.com/gpuwise/gpuwise/internal/inventory"
)

// InventoryRequest asks for the GPU inventory.
type InventoryRequest struct {
	Data
}

// DefaultInventoryRequest is the inventory with every default.
func DefaultInventoryRequest() InventoryRequest {
	return InventoryRequest{Data: Data{Source: Source{Kube: DefaultKube()}}}
}

// Validate lists every problem with the request.
func (r InventoryRequest) Validate() error {
	var p problems
	r.Data.validate(&p)
	return p.err()
}

// InventoryResult is the inventory; Partial as in ReportResult.
type InventoryResult struct {
	Inventory *inventory.Inventory
	Partial   error
}

// liveInventoryWindow is the live cluster's default window for the
// inventory: it describes the cluster as it is now.
const liveInventoryWindow = time.Hour

// Inventory lists the GPU nodes at the window's end with their GPUs,
// sharing, software stack and prices.
func (a *App) Inventory(ctx context.Context, req InventoryRequest) (*InventoryResult, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	an, err := a.analyze(ctx, req.Data, liveInventoryWindow)
	if err != nil {
		return nil, err
	}
	a.progress.phase("taking inventory")
	inv := inventory.Build(an.snap, an.prices, an.prices)
	return &InventoryResult{Inventory: inv, Partial: an.partial}, nil
}
