package pricing

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Catalog prices nodes from list prices and user overrides. It is immutable
// and safe for concurrent use; WithOverrides returns a new one.
type Catalog struct {
	entries map[entryKey]Entry
	// regions counts the regions that price each cloud/instance type, to
	// tell a wrong region from an unknown instance type.
	regions   map[string]int
	clouds    []string
	regionIx  regionIndex
	overrides *Overrides
	// loadErr is set when the embedded data failed to load; every price
	// then fails with it instead of the program panicking.
	loadErr error
}

type entryKey struct{ cloud, region, instanceType string }

//go:embed data/catalog.csv
var embeddedCSV []byte

// embeddedGCP is the GCP GPU instances (A2, A3), hand-copied with their
// source and as-of date (docs/pricing.md); gencatalog does not write it.
//
//go:embed data/gcp.csv
var embeddedGCP []byte

// embeddedAccelerators is the AWS Neuron (Trainium, Inferentia2) and
// Intel Gaudi (dl1) instances, copied with their source and as-of date
// (docs/accelerators.md); gencatalog does not write it (the GPU price set
// holds no such rows). Azure's MI300X rows are in the generated catalog.
//
//go:embed data/accelerators.csv
var embeddedAccelerators []byte

var embedded = sync.OnceValue(func() *Catalog {
	entries, err := parseCatalogCSV(embeddedCSV)
	if err != nil {
		return &Catalog{loadErr: fmt.Errorf("loading embedded catalog: %w", err)}
	}
	gcp, err := parseCatalogCSV(embeddedGCP)
	if err != nil {
		return &Catalog{loadErr: fmt.Errorf("loading embedded GCP catalog: %w", err)}
	}
	acc, err := parseCatalogCSV(embeddedAccelerators)
	if err != nil {
		return &Catalog{loadErr: fmt.Errorf("loading embedded accelerator catalog: %w", err)}
	}
	return NewCatalog(append(append(entries, gcp...), acc...))
})

// Embedded returns the catalog built into the binary, parsed once.
func Embedded() *Catalog { return embedded() }

// NewCatalog builds a catalog from rows, for tests and custom data. When two
// rows share a cloud, region and instance type, the later one wins.
func NewCatalog(entries []Entry) *Catalog {
	c := &Catalog{entries: map[entryKey]Entry{}, regions: map[string]int{}}
	c.regionIx = newRegionIndex(entries)
	clouds := map[string]bool{}
	for _, e := range entries {
		k := c.key(e.Cloud, e.Region, e.InstanceType)
		if _, dup := c.entries[k]; !dup {
			c.regions[k.cloud+"/"+k.instanceType]++
		}
		c.entries[k] = e
		clouds[k.cloud] = true
	}
	for cloud := range clouds {
		c.clouds = append(c.clouds, cloud)
	}
	sort.Strings(c.clouds)
	return c
}

func (c *Catalog) key(cloud, region, instanceType string) entryKey {
	return entryKey{
		cloud:        normalizeName(cloud),
		region:       c.regionIx.canonical(cloud, region),
		instanceType: normalizeName(instanceType),
	}
}

// WithOverrides returns a catalog that prices nodes by o's rules first and
// by c's rows otherwise. A nil o removes the overrides.
func (c *Catalog) WithOverrides(o *Overrides) *Catalog {
	cp := *c
	cp.overrides = o
	return &cp
}

// WarningsOf is the warnings of a price source that has any (a *Catalog
// with overrides), else nil; engines add them to their notes.
func WarningsOf(prices any) []string {
	if w, ok := prices.(interface{ Warnings() []string }); ok {
		return w.Warnings()
	}
	return nil
}

// Warnings lists problems with the catalog's inputs that did not stop it
// from pricing (override rules that never apply), for the report's notes.
func (c *Catalog) Warnings() []string {
	var out []string
	for _, w := range c.overrides.Warnings() {
		out = append(out, "prices: "+w)
	}
	return out
}

// Lookup returns the raw catalog row for an instance type in a region.
// Names are case-insensitive; Azure regions may be ARM names or slugs.
func (c *Catalog) Lookup(cloud, region, instanceType string) (Entry, bool) {
	e, ok := c.entries[c.key(cloud, region, instanceType)]
	return e, ok
}

// Sources lists the bodies of prices the catalog holds, with their as-of
// dates and caveats, then the override file if any.
func (c *Catalog) Sources() []SourceInfo {
	counts := map[SourceInfo]int{}
	for _, e := range c.entries {
		counts[sourceOf(e, OnDemand)]++
		if e.SpotUSDPerHour > 0 {
			counts[sourceOf(e, Spot)]++
		}
	}
	out := make([]SourceInfo, 0, len(counts)+1)
	for s, n := range counts {
		s.Rows = n
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return sourceLess(out[i], out[j]) })
	if c.overrides != nil {
		out = append(out, c.overrides.sourceInfo())
	}
	return out
}

func sourceOf(e Entry, capacity CapacityType) SourceInfo {
	s := SourceInfo{Cloud: e.Cloud, Price: string(capacity), AsOf: e.OnDemandAsOf, Source: e.Source}
	if capacity == Spot {
		// A row's source may name its on-demand source after "; on-demand "
		// (see hack/gencatalog); spot prices come from the part before it.
		s.AsOf = e.SpotAsOf
		s.Source, _, _ = strings.Cut(e.Source, "; on-demand ")
	}
	s.Note = caveats[s.Cloud+" "+s.Price]
	return s
}

func sourceLess(a, b SourceInfo) bool {
	ka := strings.Join([]string{a.Cloud, a.Price, a.AsOf, a.Source}, "\x00")
	kb := strings.Join([]string{b.Cloud, b.Price, b.AsOf, b.Source}, "\x00")
	return ka < kb
}

// caveats are the known limits of the embedded data, by cloud and price.
var caveats = map[string]string{
	"aws spot": "AWS spot prices are from 2025-05; on-demand fell 33-44% for P4/P5 in " +
		"June 2025, so spot savings computed from them are indicative",
	"azure spot": "Azure spot is a 0.2 x on-demand list formula, not market data",
}
