// Package billingtest writes billing exports for tests and benchmarks:
// a CSV export converted to Parquet (costs as doubles, charge and billing
// periods as millisecond timestamps, as AWS Data Exports type FOCUS), and
// large generated FOCUS Parquet files. Test support only.
package billingtest

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

// money and times are the typed columns of FOCUS and CUR 2.0.
var (
	money = map[string]bool{"BilledCost": true, "EffectiveCost": true, "ListCost": true, "ContractedCost": true,
		"line_item_unblended_cost": true, "pricing_public_on_demand_cost": true, "savings_plan_savings_plan_effective_cost": true,
		"savings_plan_total_commitment_to_date": true, "savings_plan_used_commitment": true}
	times = map[string]bool{"ChargePeriodStart": true, "ChargePeriodEnd": true, "BillingPeriodStart": true, "BillingPeriodEnd": true,
		"line_item_usage_start_date": true, "line_item_usage_end_date": true, "bill_billing_period_start_date": true, "bill_billing_period_end_date": true}
)

func props() *parquet.WriterProperties {
	return parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(1<<20))
}

// ParquetFromCSV converts a CSV export to Parquet: money columns as
// doubles, period columns as timestamps (ms, UTC), the rest as strings;
// NULL and empty cells are nulls.
func ParquetFromCSV(w io.Writer, r io.Reader) error {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return err
	}
	head := recs[0]
	fields := make([]arrow.Field, len(head))
	for i, h := range head {
		t := arrow.DataType(arrow.BinaryTypes.String)
		switch {
		case money[h]:
			t = arrow.PrimitiveTypes.Float64
		case times[h]:
			t = &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
		}
		fields[i] = arrow.Field{Name: h, Type: t, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, rec := range recs[1:] {
		for i, v := range rec {
			fb := b.Field(i)
			if v == "" || v == "NULL" {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Float64Builder:
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return fmt.Errorf("%s: %w", head[i], err)
				}
				fb.Append(f)
			case *array.TimestampBuilder:
				t, err := parseTime(v)
				if err != nil {
					return fmt.Errorf("%s: %w", head[i], err)
				}
				fb.Append(arrow.Timestamp(t.UnixMilli()))
			case *array.StringBuilder:
				fb.Append(v)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	fw, err := pqarrow.NewFileWriter(schema, w, props(), pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		return err
	}
	return fw.Close()
}

func parseTime(v string) (time.Time, error) {
	for _, l := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(l, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a timestamp", v)
}

// Generated describes a generated export: Resources AWS instances
// (i-0bench…, p5.48xlarge) billed hourly from Start, Rows rows in all
// (resource-major within each hour), each at USDPerHour, with a JSON
// Tags string on every row.
type Generated struct {
	Rows       int
	Resources  int
	Start      time.Time
	USDPerHour float64
}

// InstanceID is generated resource i's instance id.
func InstanceID(i int) string { return fmt.Sprintf("i-0bench%011d", i) }

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

// WriteFOCUSParquet writes the generated export as FOCUS Parquet
// (snappy, row groups of 1 Mi rows), in batches of 64 Ki rows so that
// writing a large file stays small.
func WriteFOCUSParquet(w io.Writer, g Generated) error {
	schema := arrow.NewSchema(focusFields, nil)
	fw, err := pqarrow.NewFileWriter(schema, w, props(), pqarrow.DefaultWriterProps())
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
		str(10, InstanceID(res))
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

// WriteFOCUSCSV writes the same generated export as FOCUS CSV.
func WriteFOCUSCSV(w io.Writer, g Generated) error {
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
			start.Add(time.Hour).Format(time.RFC3339), bp, cost, cost, cost, InstanceID(res), "instance", "Standard",
			"USE1-BoxUsage:p5.48xlarge", `{"team": "t` + strconv.Itoa(res%50) + `", "env": "prod"}`})
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
