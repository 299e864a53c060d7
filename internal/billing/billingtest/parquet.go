// Package billingtest writes billing exports for tests: a CSV export
// converted to Parquet (costs as doubles, charge and billing periods as
// millisecond timestamps, as AWS Data Exports type FOCUS). Test support
// only (the benchmark's generator is hack/billbench).
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
