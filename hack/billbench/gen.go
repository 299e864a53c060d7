package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// generated describes a generated export: Resources AWS instances
// (i-0bench…, p5.48xlarge) billed hourly from Start, Rows rows in all
// (resource-major within each hour), each at USDPerHour, with a JSON
// Tags string on every row.
type generated struct {
	Rows       int
	Resources  int
	Start      time.Time
	USDPerHour float64
}

// instanceID is generated resource i's instance id.
func instanceID(i int) string { return fmt.Sprintf("i-0bench%011d", i) }

var focusFields = []arrow.Field{
	{Name: "ProviderName", Type: arrow.BinaryTypes.String}, {Name: "ServiceName", Type: arrow.BinaryTypes.String},
	{Name: "ServiceCategory", Type: arrow.BinaryTypes.String}, {Name: "ChargeCategory", Type: arrow.BinaryTypes.String},
	{Name: "ChargePeriodStart", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
	{Name: "ChargePeriodEnd", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
	{Name: "BillingPeriodStart", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
	{Name: "BilledCost", Type: arrow.PrimitiveTypes.Float64}, {Name: "EffectiveCost", Type: arrow.PrimitiveTypes.Float64},
	{Name: "ListCost", Type: arrow.PrimitiveTypes.Float64}, {Name: "ResourceId", Type: arrow.BinaryTypes.String},
	{Name: "ResourceType", Type: arrow.BinaryTypes.String}, {Name: "PricingCategory", Type: arrow.BinaryTypes.String},
	{Name: "x_UsageType", Type: arrow.BinaryTypes.String}, {Name: "Tags", Type: arrow.BinaryTypes.String},
}

// writeFOCUSParquet writes the generated export as FOCUS Parquet
// (snappy, row groups of 1 Mi rows), in batches of 64 Ki rows so that
// writing a large file stays small.
func writeFOCUSParquet(w io.Writer, g generated) error {
	schema := arrow.NewSchema(focusFields, nil)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(1<<20))
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	bp := time.Date(g.Start.Year(), g.Start.Month(), 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for i := 0; i < g.Rows; i++ {
		res, hour := i%g.Resources, i/g.Resources
		start := g.Start.Add(time.Duration(hour) * time.Hour)
		str := func(k int, v string) { b.Field(k).(*array.StringBuilder).Append(v) }
		ts := func(k int, t int64) { b.Field(k).(*array.TimestampBuilder).Append(arrow.Timestamp(t)) }
		f64 := func(k int, v float64) { b.Field(k).(*array.Float64Builder).Append(v) }
		str(0, "AWS")
		str(1, "Amazon Elastic Compute Cloud")
		str(2, "Compute")
		str(3, "Usage")
		ts(4, start.UnixMilli())
		ts(5, start.Add(time.Hour).UnixMilli())
		ts(6, bp)
		f64(7, g.USDPerHour)
		f64(8, g.USDPerHour)
		f64(9, g.USDPerHour)
		str(10, instanceID(res))
		str(11, "instance")
		str(12, "Standard")
		str(13, "USE1-BoxUsage:p5.48xlarge")
		str(14, `{"team": "t`+strconv.Itoa(res%50)+`", "env": "prod"}`)
		if (i+1)%(64<<10) == 0 || i == g.Rows-1 {
			rec := b.NewRecordBatch()
			err := fw.WriteBuffered(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
	}
	return fw.Close()
}

// writeFOCUSCSV writes the same generated export as FOCUS CSV.
func writeFOCUSCSV(w io.Writer, g generated) error {
	cw := csv.NewWriter(w)
	names := make([]string, len(focusFields))
	for i, f := range focusFields {
		names[i] = f.Name
	}
	cw.Write(names)
	bp := time.Date(g.Start.Year(), g.Start.Month(), 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	cost := strconv.FormatFloat(g.USDPerHour, 'f', 10, 64)
	rec := make([]string, len(names))
	for i := 0; i < g.Rows; i++ {
		res, hour := i%g.Resources, i/g.Resources
		start := g.Start.Add(time.Duration(hour) * time.Hour)
		copy(rec, []string{"AWS", "Amazon Elastic Compute Cloud", "Compute", "Usage", start.Format(time.RFC3339),
			start.Add(time.Hour).Format(time.RFC3339), bp, cost, cost, cost, instanceID(res), "instance", "Standard",
			"USE1-BoxUsage:p5.48xlarge", `{"team": "t` + strconv.Itoa(res%50) + `", "env": "prod"}`})
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
