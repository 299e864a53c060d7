package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/billing"
)

// cells gives a row's value by column name ("" for a column the file
// lacks) and says which columns the file has.
type cells interface {
	get(col string) string
	has(col string) bool
}

// schema is one export format: the columns it needs and how a row of
// cells becomes a Row.
type schema struct {
	format   billing.Format
	required []string
	optional []string
	build    func(c cells, r *billing.Row) (column string, err error)
}

func (s *schema) columns() []string {
	return append(append([]string(nil), s.required...), s.optional...)
}

// missing names the required columns a header lacks.
func (s *schema) missing(has func(string) bool) error {
	var miss []string
	for _, c := range s.required {
		if !has(c) {
			miss = append(miss, c)
		}
	}
	if len(miss) == 0 {
		return nil
	}
	return fmt.Errorf("not a %s export: missing required column(s) %s", s.name(), strings.Join(miss, ", "))
}

func (s *schema) name() string {
	if s.format == billing.CUR2 {
		return "AWS CUR 2.0"
	}
	return "FOCUS"
}

// detect picks the schema whose marker columns a header has.
func detect(has func(string) bool) (*schema, error) {
	switch {
	case has("line_item_line_item_type") || has("line_item_unblended_cost"):
		return &curSchema, nil
	case has("EffectiveCost") || has("ChargePeriodStart") || has("BilledCost"):
		return &focusSchema, nil
	}
	return nil, errors.New("neither a FOCUS export (no BilledCost, EffectiveCost, ChargePeriodStart columns) nor an AWS CUR 2.0 export (no line_item_line_item_type column)")
}

var focusSchema = schema{
	format: billing.FOCUS,
	required: []string{"BilledCost", "EffectiveCost", "ListCost", "ChargeCategory", "ChargePeriodStart",
		"ChargePeriodEnd", "BillingPeriodStart", "ProviderName", "ServiceName"},
	optional: []string{"ResourceId", "ResourceType", "ServiceCategory", "CommitmentDiscountId",
		"CommitmentDiscountStatus", "CommitmentDiscountType", "PricingCategory", "RegionId", "x_UsageType", "SkuMeter"},
	build: buildFOCUS,
}

// money columns FOCUS allows negative (credits, corrections): all of them
// (a Credit row's BilledCost is negative), so only finiteness is checked.
func buildFOCUS(c cells, r *billing.Row) (string, error) {
	var err error
	for _, m := range []struct {
		col string
		dst *float64
	}{{"BilledCost", &r.BilledCost}, {"EffectiveCost", &r.EffectiveCost}, {"ListCost", &r.ListCost}} {
		if *m.dst, err = cellMoney(c, m.col, false); err != nil {
			return m.col, err
		}
	}
	for _, t := range []struct {
		col string
		dst *timeT
	}{{"ChargePeriodStart", &r.Start}, {"ChargePeriodEnd", &r.End}, {"BillingPeriodStart", &r.BillingPeriod}} {
		if *t.dst, err = cellTime(c, t.col); err != nil {
			return t.col, err
		}
	}
	r.Provider = nullable(c.get("ProviderName"))
	r.ChargeCategory = canonical(nullable(c.get("ChargeCategory")), chargeCategories...)
	r.ServiceName = nullable(c.get("ServiceName"))
	r.ServiceCategory = nullable(c.get("ServiceCategory"))
	r.ResourceID = nullable(c.get("ResourceId"))
	r.ResourceType = nullable(c.get("ResourceType"))
	r.Region = nullable(c.get("RegionId"))
	r.CommitmentID = nullable(c.get("CommitmentDiscountId"))
	r.CommitmentStatus = canonical(nullable(c.get("CommitmentDiscountStatus")), billing.CommitmentUsed, billing.CommitmentUnused)
	r.CommitmentType = nullable(c.get("CommitmentDiscountType"))
	usageType := nullable(c.get("x_UsageType"))
	if usageType == "" {
		usageType = nullable(c.get("SkuMeter"))
	}
	r.InstanceType = instanceTypeOfUsage(usageType)
	r.Spot = strings.EqualFold(nullable(c.get("PricingCategory")), "Dynamic") || strings.Contains(usageType, "SpotUsage")
	r.Compute = r.ChargeCategory == "Usage" && billing.Matchable(r.ResourceID) && r.CommitmentStatus != billing.CommitmentUnused &&
		strings.EqualFold(r.ServiceCategory, "Compute") && computeUsage(usageType)
	return checkRow(r)
}

// computeUsage says whether an AWS usage type (when the export has one)
// is an instance's running hours rather than its disks or traffic.
func computeUsage(usageType string) bool {
	if usageType == "" {
		return true
	}
	return !strings.Contains(usageType, "DataXfer") && !strings.Contains(usageType, "EBS") &&
		!strings.Contains(usageType, "-Bytes") && !strings.Contains(usageType, "Requests")
}

type timeT = time.Time

func nullable(s string) string {
	s = strings.TrimSpace(s)
	if isNull(s) {
		return ""
	}
	return s
}

var curSchema = schema{
	format: billing.CUR2,
	required: []string{"line_item_line_item_type", "line_item_usage_start_date", "line_item_usage_end_date",
		"line_item_unblended_cost", "line_item_product_code", "bill_billing_period_start_date"},
	optional: []string{"line_item_resource_id", "line_item_usage_type", "line_item_operation", "product_instance_type",
		"product_region_code", "product", "pricing_public_on_demand_cost",
		"savings_plan_savings_plan_effective_cost", "savings_plan_savings_plan_a_r_n",
		"savings_plan_total_commitment_to_date", "savings_plan_used_commitment",
		"reservation_effective_cost", "reservation_reservation_a_r_n",
		"reservation_unused_amortized_upfront_fee_for_billing_period", "reservation_unused_recurring_fee",
		"split_line_item_parent_resource_id", "split_line_item_split_cost", "split_line_item_unused_cost",
		"bill_billing_entity", "resource_tags"},
	build: buildCUR,
}

func buildCUR(c cells, r *billing.Row) (string, error) {
	money := func(col string) (float64, error) { return cellMoney(c, col, false) }
	var err error
	typ := nullable(c.get("line_item_line_item_type"))
	if r.BilledCost, err = money("line_item_unblended_cost"); err != nil {
		return "line_item_unblended_cost", err
	}
	if r.ListCost, err = cellMoney(c, "pricing_public_on_demand_cost", true); err != nil {
		return "pricing_public_on_demand_cost", err
	}
	for _, t := range []struct {
		col string
		dst *timeT
	}{{"line_item_usage_start_date", &r.Start}, {"line_item_usage_end_date", &r.End}, {"bill_billing_period_start_date", &r.BillingPeriod}} {
		if *t.dst, err = cellTime(c, t.col); err != nil {
			return t.col, err
		}
	}
	r.Provider = "AWS"
	r.ServiceName = nullable(c.get("line_item_product_code"))
	r.ResourceID = nullable(c.get("line_item_resource_id"))
	r.Region = nullable(c.get("product_region_code"))
	usageType := nullable(c.get("line_item_usage_type"))
	r.InstanceType = nullable(c.get("product_instance_type"))
	if r.InstanceType == "" {
		r.InstanceType = productMapValue(c.get("product"), "instance_type")
	}
	if r.InstanceType == "" {
		r.InstanceType = instanceTypeOfUsage(usageType)
	}
	r.Spot = strings.Contains(usageType, "SpotUsage")
	r.ChargeCategory = "Usage"
	// Amortized cost per line-item type, as AWS's CUR 2.0 summary view.
	switch typ {
	case "Usage":
		r.EffectiveCost = r.BilledCost
	case "SavingsPlanCoveredUsage":
		if r.EffectiveCost, err = money("savings_plan_savings_plan_effective_cost"); err != nil {
			return "savings_plan_savings_plan_effective_cost", err
		}
		r.CommitmentID, r.CommitmentStatus, r.CommitmentType = nullable(c.get("savings_plan_savings_plan_a_r_n")), billing.CommitmentUsed, "Savings Plan"
	case "DiscountedUsage":
		if r.EffectiveCost, err = money("reservation_effective_cost"); err != nil {
			return "reservation_effective_cost", err
		}
		r.CommitmentID, r.CommitmentStatus, r.CommitmentType = nullable(c.get("reservation_reservation_a_r_n")), billing.CommitmentUsed, "Reserved Instance"
	case "SavingsPlanNegation", "SavingsPlanUpfrontFee":
		r.EffectiveCost = 0
		r.ChargeCategory = "Purchase"
	case "SavingsPlanRecurringFee":
		total, err := money("savings_plan_total_commitment_to_date")
		if err != nil {
			return "savings_plan_total_commitment_to_date", err
		}
		used, err := money("savings_plan_used_commitment")
		if err != nil {
			return "savings_plan_used_commitment", err
		}
		r.EffectiveCost = total - used
		r.CommitmentID, r.CommitmentStatus, r.CommitmentType = nullable(c.get("savings_plan_savings_plan_a_r_n")), billing.CommitmentUnused, "Savings Plan"
		if r.CommitmentID == "" {
			r.CommitmentID = r.ResourceID
		}
	case "RIFee":
		up, err := money("reservation_unused_amortized_upfront_fee_for_billing_period")
		if err != nil {
			return "reservation_unused_amortized_upfront_fee_for_billing_period", err
		}
		rec, err := money("reservation_unused_recurring_fee")
		if err != nil {
			return "reservation_unused_recurring_fee", err
		}
		r.EffectiveCost = up + rec
		r.CommitmentID, r.CommitmentStatus, r.CommitmentType = nullable(c.get("reservation_reservation_a_r_n")), billing.CommitmentUnused, "Reserved Instance"
		if r.CommitmentID == "" {
			r.CommitmentID = r.ResourceID
		}
	case "Fee":
		if nullable(c.get("reservation_reservation_a_r_n")) != "" {
			r.EffectiveCost = 0 // an RI's upfront fee: amortized into DiscountedUsage
		} else {
			r.EffectiveCost = r.BilledCost
		}
		r.ChargeCategory = "Purchase"
	case "Tax":
		r.EffectiveCost, r.ChargeCategory = r.BilledCost, "Tax"
	case "Credit", "Refund", "BundledDiscount", "EdpDiscount", "PrivateRateDiscount", "Discount":
		r.EffectiveCost, r.ChargeCategory = r.BilledCost, "Credit"
	case "":
		return "line_item_line_item_type", errors.New("is empty")
	default:
		r.EffectiveCost = r.BilledCost
	}
	if parent := nullable(c.get("split_line_item_parent_resource_id")); parent != "" {
		split, err := money("split_line_item_split_cost")
		if err != nil {
			return "split_line_item_split_cost", err
		}
		unused, err := money("split_line_item_unused_cost")
		if err != nil {
			return "split_line_item_unused_cost", err
		}
		r.Split, r.SplitParent, r.SplitCost = true, parent, split+unused
		r.SplitNamespace = namespaceOfPodARN(r.ResourceID)
		if r.SplitNamespace == "" {
			// The aws:eks:namespace cost allocation tag split cost
			// allocation data puts on every pod row.
			tags := c.get("resource_tags")
			for _, k := range []string{"aws:eks:namespace", "aws_eks_namespace"} {
				if r.SplitNamespace = productMapValue(tags, k); r.SplitNamespace != "" {
					break
				}
			}
		}
	}
	op := nullable(c.get("line_item_operation"))
	r.ServiceCategory = ""
	isUsage := typ == "Usage" || typ == "SavingsPlanCoveredUsage" || typ == "DiscountedUsage"
	if r.ServiceName == "AmazonEC2" && isUsage && strings.HasPrefix(r.ResourceID, "i-") &&
		(op == "" || strings.HasPrefix(op, "RunInstances")) && computeUsage(usageType) && !r.Split {
		r.Compute, r.ServiceCategory = true, "Compute"
	}
	return checkRow(r)
}

// productMapValue reads a key of CUR 2.0's product map when a CSV export
// writes it as a JSON object.
func productMapValue(s, key string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return ""
	}
	v, _ := m[key].(string)
	return v
}

// namespaceOfPodARN reads the namespace from an EKS pod ARN as split
// cost allocation data names pods:
// arn:aws:eks:REGION:ACCOUNT:pod/CLUSTER/NAMESPACE/POD/UID.
func namespaceOfPodARN(arn string) string {
	_, rest, ok := strings.Cut(arn, ":pod/")
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 {
		return ""
	}
	return parts[1]
}

// typedCells are cells that hold numbers and timestamps as such
// (Parquet): read without a round trip through text.
type typedCells interface {
	float(col string) (float64, bool)
	time(col string) (time.Time, bool)
}

// cellMoney reads a cost column: typed when the file has it typed, else
// parsed (null is 0).
func cellMoney(c cells, col string, nonNegative bool) (float64, error) {
	if t, ok := c.(typedCells); ok {
		if v, ok := t.float(col); ok {
			return checkMoney(v, nonNegative)
		}
	}
	return parseMoney(c.get(col), nonNegative)
}

// cellTime reads a timestamp column; null is the zero time.
func cellTime(c cells, col string) (time.Time, error) {
	if t, ok := c.(typedCells); ok {
		if v, ok := t.time(col); ok {
			return v, nil
		}
	}
	v := c.get(col)
	if isNull(v) {
		return time.Time{}, nil
	}
	return parseTime(v)
}
