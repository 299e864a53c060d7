package pricing

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"
)

// catalogHeader is the column list of data/catalog.csv, which
// hack/gencatalog writes.
var catalogHeader = []string{
	"cloud", "region", "instance_type", "gpu_model", "gpu_count", "vcpus", "memory_gib",
	"on_demand_usd_hr", "spot_usd_hr", "on_demand_as_of", "spot_as_of", "source",
}

// parseCatalogCSV reads catalog rows; it reports every bad row by line.
func parseCatalogCSV(data []byte) ([]Entry, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = len(catalogHeader)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("reading header: %w", err)
	}
	if !slices.Equal(header, catalogHeader) {
		return nil, fmt.Errorf("header is %v, want %v", header, catalogHeader)
	}
	var entries []Entry
	var problems []error
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading catalog: %w", err)
		}
		line, _ := r.FieldPos(0)
		e, probs := parseCatalogRow(rec)
		for _, p := range probs {
			problems = append(problems, fmt.Errorf("line %d: %w", line, p))
		}
		if len(probs) > 0 {
			continue
		}
		entries = append(entries, e)
	}
	return entries, errors.Join(problems...)
}

func parseCatalogRow(rec []string) (Entry, []error) {
	p := rowParser{rec: rec}
	e := Entry{
		Cloud: p.text(0), Region: p.text(1), InstanceType: p.text(2), GPUModel: rec[3],
		GPUCount: p.number(4), VCPUs: int(p.number(5)), MemoryGiB: p.number(6),
		OnDemandUSDPerHour: p.number(7), SpotUSDPerHour: p.number(8),
		OnDemandAsOf: p.date(9), SpotAsOf: p.date(10), Source: p.text(11),
	}
	if e.OnDemandUSDPerHour <= 0 {
		p.fail(7, "on-demand price must be positive")
	}
	if e.SpotUSDPerHour > 0 && e.SpotAsOf == "" {
		p.fail(10, "spot price without an as-of date")
	}
	return e, p.problems
}

// rowParser reads typed fields from a record and collects every problem.
type rowParser struct {
	rec      []string
	problems []error
}

func (p *rowParser) fail(i int, msg string) {
	p.problems = append(p.problems, fmt.Errorf("%s: %s (got %q)", catalogHeader[i], msg, p.rec[i]))
}

func (p *rowParser) text(i int) string {
	if p.rec[i] == "" {
		p.fail(i, "must not be empty")
	}
	return p.rec[i]
}

// number parses a non-negative number; empty means 0.
func (p *rowParser) number(i int) float64 {
	if p.rec[i] == "" {
		return 0
	}
	v, err := strconv.ParseFloat(p.rec[i], 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 1) {
		p.fail(i, "want a non-negative number")
		return 0
	}
	return v
}

// date checks a YYYY-MM-DD date; empty is allowed.
func (p *rowParser) date(i int) string {
	if p.rec[i] == "" {
		return ""
	}
	if _, err := time.Parse(time.DateOnly, p.rec[i]); err != nil {
		p.fail(i, "want a YYYY-MM-DD date")
	}
	return p.rec[i]
}
