// Command gencatalog derives gpuwise's embedded price catalog from the
// shared price data: one row per cloud, region and instance type, with
// normalized GPU model names, as-of dates and short source names.
//
//	go run ./hack/gencatalog -in ../shared/data/prices/gpu_prices.csv -out internal/pricing/data/catalog.csv
//
// It owns the conversion only: it imports internal/pricing for the GPU model
// names and must not import Kubernetes, Prometheus or CLI packages.
package main
