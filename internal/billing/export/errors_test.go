package export

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/billing"
)

func TestReadErrors(t *testing.T) {
	head := "ProviderName,ServiceName,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,BillingPeriodStart,BilledCost,EffectiveCost,ListCost\n"
	ok := "AWS,EC2,Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,2026-11-01T00:00:00Z,1,1,1\n"
	for _, c := range []struct{ name, in, want string }{
		{"nan", head + ok + "AWS,EC2,Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,2026-11-01T00:00:00Z,NaN,1,1\n", "row 2, column BilledCost"},
		{"inf", head + "AWS,EC2,Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,2026-11-01T00:00:00Z,1,+Inf,1\n", "row 1, column EffectiveCost"},
		{"time", head + "AWS,EC2,Usage,yesterday,2026-11-01T01:00:00Z,2026-11-01T00:00:00Z,1,1,1\n", "row 1, column ChargePeriodStart"},
		{"backwards", head + "AWS,EC2,Usage,2026-11-01T02:00:00Z,2026-11-01T01:00:00Z,2026-11-01T00:00:00Z,1,1,1\n", "column ChargePeriodEnd"},
		{"missing", "ProviderName,BilledCost,EffectiveCost\nAWS,1,1\n", "missing required column(s) ListCost, ChargeCategory"},
		{"unknown", "a,b\n1,2\n", "neither a FOCUS export"},
		{"fields", head + "AWS,EC2\n", "row 1: 2 fields"},
		{"negative list", "line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,line_item_unblended_cost,line_item_product_code,bill_billing_period_start_date,pricing_public_on_demand_cost\nUsage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,1,AmazonEC2,2026-11-01T00:00:00Z,-4\n", "row 1, column pricing_public_on_demand_cost"},
		{"empty", "", "empty file"},
	} {
		err := Read(billing.NewBill(), "x.csv", strings.NewReader(c.in), DefaultLimits())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		var re *RowError
		var fe *FileError
		if err != nil && !errors.As(err, &re) && !errors.As(err, &fe) {
			t.Errorf("%s: %T is neither a RowError nor a FileError", c.name, err)
		}
	}
	lim := DefaultLimits()
	lim.MaxRows = 1
	if err := Read(billing.NewBill(), "x.csv", strings.NewReader(head+ok+ok), lim); err == nil || !strings.Contains(err.Error(), "row limit") {
		t.Errorf("row limit: %v", err)
	}
	lim = DefaultLimits()
	lim.MaxRecordBytes = 100
	if err := Read(billing.NewBill(), "x.csv", strings.NewReader(head+ok), lim); err == nil || !strings.Contains(err.Error(), "record limit") {
		t.Errorf("record limit: %v", err)
	}
}
