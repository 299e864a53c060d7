package sim

import (
	"encoding/csv"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
)

// Bill formats WriteBill writes.
const (
	BillFOCUS = "focus"
	BillCUR2  = "cur2"
)

// Ground truth of the simulated bill (docs/billing.md): the AWS
// on-demand p5 nodes run under a compute savings plan at SavingsPlanRate
// of on-demand whose hourly commitment is SavingsPlanHeadroom above what
// they use when all run (the rest is the unused commitment); spot nodes
// at the catalog's spot price; the last AWS on-demand GPU node (by name)
// is missing from the bill; one p4d.24xlarge instance not in the cluster
// (OrphanInstance) is billed for the whole window.
const (
	SavingsPlanRate     = 0.65
	SavingsPlanHeadroom = 1.10
	SavingsPlanARN      = "arn:aws:savingsplans::111122223333:savingsplan/sp-gpuwise-sim"
	OrphanInstance      = "i-0departed00000001"
	orphanType          = "p4d.24xlarge"
)

// cpuListUSD are AWS us-east-1 on-demand list prices of the simulated CPU
// nodes, which the GPU catalog does not hold.
var cpuListUSD = map[string]float64{"m7i.4xlarge": 0.8064}

// billLine is one simulated charge before it is written in a schema.
type billLine struct {
	provider, service, category, resourceID, resourceType, instanceType, usageType string
	start, end                                                                     time.Time
	billed, effective, list                                                        float64
	spot                                                                           bool
	commitment, status                                                             string // savings plan ARN, Used/Unused
	negation                                                                       bool   // CUR's SavingsPlanNegation of a covered line
}

// WriteBill writes the billing export the simulated cluster's nodes would
// have over the snapshot's window: FOCUS (AWS and Azure rows) or AWS CUR
// 2.0 (AWS rows only), as CSV. Prices are the catalog's (prices), so a
// report with the bill prices every billed node-hour from it.
func WriteBill(w io.Writer, s *cluster.Snapshot, prices pricing.Pricer, format string) error {
	lines, err := billLines(s, prices)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	switch format {
	case BillFOCUS, "":
		err = writeFOCUS(cw, lines, s.Window)
	case BillCUR2:
		err = writeCUR(cw, lines, s.Window)
	default:
		return fmt.Errorf("bill format %q is not focus or cur2", format)
	}
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// MissingFromBill is the node WriteBill leaves out: the last AWS
// on-demand NVIDIA GPU node by name ("" when there is none).
func MissingFromBill(s *cluster.Snapshot) string {
	var last string
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Cloud == "aws" && n.HasGPUs() && n.Vendor() == cluster.VendorNVIDIA && n.Capacity == cluster.OnDemand && n.Name > last {
			last = n.Name
		}
	}
	return last
}

func billLines(s *cluster.Snapshot, prices pricing.Pricer) ([]billLine, error) {
	w := s.Window
	missing := MissingFromBill(s)
	nodes := make([]*cluster.Node, 0, len(s.Nodes))
	for i := range s.Nodes {
		if n := &s.Nodes[i]; n.Cloud != "" && n.ProviderID != "" && n.Name != missing {
			nodes = append(nodes, n)
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	type rated struct {
		n         *cluster.Node
		od, rate  float64
		committed bool
	}
	var rs []rated
	var commitPerHour float64
	for _, n := range nodes {
		spec := nodeprice.Spec(n)
		spec.Capacity = pricing.OnDemand
		od, err := prices.Price(spec)
		if err != nil && !n.HasGPUs() && cpuListUSD[n.InstanceType] > 0 {
			od, err = pricing.NodePrice{NodeUSDPerHour: cpuListUSD[n.InstanceType]}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("pricing simulated node %s for the bill: %w", n.Name, err)
		}
		r := rated{n: n, od: od.NodeUSDPerHour, rate: od.NodeUSDPerHour}
		switch {
		case n.Capacity == cluster.Spot:
			sp, err := prices.Price(nodeprice.Spec(n))
			if err != nil {
				return nil, fmt.Errorf("pricing simulated node %s for the bill: %w", n.Name, err)
			}
			r.rate = sp.NodeUSDPerHour
		case n.Cloud == "aws" && n.InstanceType == "p5.48xlarge":
			r.rate, r.committed = od.NodeUSDPerHour*SavingsPlanRate, true
			commitPerHour += r.rate
		}
		rs = append(rs, r)
	}
	commitPerHour *= SavingsPlanHeadroom
	start, end := w.Start.Truncate(time.Hour), w.End
	var out []billLine
	for h := start; h.Before(end); h = h.Add(time.Hour) {
		he := h.Add(time.Hour)
		hour := cluster.Window{Start: h, End: he}
		var used float64
		for _, r := range rs {
			n := r.n
			sec := hour.Clip(n.Created, n.Deleted)
			if sec <= 0 || n.Cloud != "aws" {
				continue
			}
			f := sec / 3600
			l := billLine{provider: "AWS", service: "Amazon Elastic Compute Cloud", category: "Compute", resourceID: instanceID(n),
				resourceType: "instance", instanceType: n.InstanceType, usageType: "USE1-BoxUsage:" + n.InstanceType,
				start: h, end: he, billed: r.rate * f, effective: r.rate * f, list: r.od * f}
			switch {
			case n.Capacity == cluster.Spot:
				l.spot, l.usageType = true, "USE1-SpotUsage:"+n.InstanceType
			case r.committed:
				l.billed, l.commitment, l.status = 0, SavingsPlanARN, "Used"
				used += l.effective
			}
			out = append(out, l)
			if l.commitment != "" {
				neg := l
				neg.negation = true
				out = append(out, neg)
			}
			if n.HasGPUs() && h.Equal(start) {
				// One gp3 root volume per instance, billed for the window at
				// the window's start: not compute, never a node's price.
				v := billLine{provider: "AWS", service: "Amazon Elastic Compute Cloud", category: "Storage", resourceID: "vol-" + hexName(n.Name),
					resourceType: "volume", usageType: "USE1-EBS:VolumeUsage.gp3", start: h, end: he, billed: 0.08, effective: 0.08, list: 0.08}
				out = append(out, v)
			}
		}
		if commitPerHour > 0 {
			out = append(out, billLine{provider: "AWS", service: "Savings Plans for AWS Compute usage", category: "Compute",
				resourceID: SavingsPlanARN, resourceType: "savings plan", start: h, end: he,
				billed: commitPerHour, effective: commitPerHour - used, commitment: SavingsPlanARN, status: "Unused"})
		}
		out = append(out, billLine{provider: "AWS", service: "Amazon Elastic Compute Cloud", category: "Compute", resourceID: OrphanInstance,
			resourceType: "instance", instanceType: orphanType, usageType: "USE1-BoxUsage:" + orphanType, start: h, end: he,
			billed: 21.96, effective: 21.96, list: 21.96})
	}
	var az []azureNode
	for _, r := range rs {
		if r.n.Cloud == "azure" {
			az = append(az, azureNode{r.n, r.rate, r.od})
		}
	}
	return append(out, azureDays(az, w)...), nil
}

type azureNode struct {
	n        *cluster.Node
	rate, od float64
}

// azureDays bills Azure as its cost details do: one row per scale set
// and day, the resource id lower-cased.
func azureDays(nodes []azureNode, w cluster.Window) []billLine {
	type key struct {
		set string
		day time.Time
	}
	sums := map[key]*billLine{}
	var keys []key
	for _, an := range nodes {
		set := scaleSetID(an.n.ProviderID)
		for d := w.Start.Truncate(24 * time.Hour); d.Before(w.End); d = d.Add(24 * time.Hour) {
			sec := cluster.Window{Start: d, End: d.Add(24 * time.Hour)}.Clip(an.n.Created, an.n.Deleted)
			if sec <= 0 {
				continue
			}
			k := key{set, d}
			l := sums[k]
			if l == nil {
				l = &billLine{provider: "Microsoft", service: "Virtual Machines", category: "Compute", resourceID: set,
					resourceType: "Virtual machine scale set", instanceType: an.n.InstanceType, start: d, end: d.Add(24 * time.Hour),
					spot: an.n.Capacity == cluster.Spot}
				sums[k] = l
				keys = append(keys, k)
			}
			l.billed += an.rate * sec / 3600
			l.effective += an.rate * sec / 3600
			l.list += an.od * sec / 3600
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].day.Before(keys[j].day) || (keys[i].day.Equal(keys[j].day) && keys[i].set < keys[j].set)
	})
	out := make([]billLine, len(keys))
	for i, k := range keys {
		out[i] = *sums[k]
	}
	return out
}

// scaleSetID is a scale-set VM's scale set, as Microsoft's FOCUS export
// names it: lower-cased.
func scaleSetID(providerID string) string {
	id := strings.ToLower(strings.TrimPrefix(providerID, "azure://"))
	if i := strings.Index(id, "/virtualmachines/"); i >= 0 {
		id = id[:i]
	}
	return id
}

func instanceID(n *cluster.Node) string {
	return n.ProviderID[strings.LastIndexByte(n.ProviderID, '/')+1:]
}

func hexName(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("0%016x", h.Sum64())
}

func money(v float64) string { return strconv.FormatFloat(v, 'f', 10, 64) }

var focusHeader = []string{"BillingAccountId", "BillingCurrency", "BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd",
	"ChargeCategory", "ChargeFrequency", "ProviderName", "PublisherName", "InvoiceIssuerName", "ServiceCategory", "ServiceName",
	"ResourceId", "ResourceType", "RegionId", "PricingCategory", "CommitmentDiscountId", "CommitmentDiscountStatus", "CommitmentDiscountType",
	"BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "x_UsageType", "Tags"}

func writeFOCUS(cw *csv.Writer, lines []billLine, w cluster.Window) error {
	if err := cw.Write(focusHeader); err != nil {
		return err
	}
	bp, bpe := billingPeriod(w.Start)
	for _, l := range lines {
		if l.negation {
			continue
		}
		billed := l.billed
		if l.status == "Unused" {
			// The hour's commitment fee as its own purchase row (billed,
			// amortized into the usage it covers), then the unused part.
			bp, bpe := billingPeriod(w.Start)
			buy := []string{"111122223333", "USD", ts(bp), ts(bpe), ts(l.start), ts(l.end), "Purchase", "Recurring", l.provider, l.provider, l.provider,
				l.category, l.service, l.resourceID, l.resourceType, "us-east-1", "NULL", l.commitment, "NULL", "Savings Plan",
				money(l.billed), "0", "0", "0", "NULL", "NULL"}
			if err := cw.Write(buy); err != nil {
				return err
			}
			billed = 0
		}
		cat, pc, ctype := "Usage", "Standard", "NULL"
		if l.spot {
			pc = "Dynamic"
		}
		if l.commitment != "" {
			pc, ctype = "Committed", "Savings Plan"
		}
		region := "us-east-1"
		if l.provider == "Microsoft" {
			region = "eastus"
		}
		rec := []string{"111122223333", "USD", ts(bp), ts(bpe), ts(l.start), ts(l.end), cat, "Usage-Based", l.provider, l.provider, l.provider,
			l.category, l.service, l.resourceID, l.resourceType, region, pc, orNull(l.commitment), orNull(l.status), ctype,
			money(billed), money(l.effective), money(l.list), money(l.list), orNull(l.usageType), `{"gpuwise.io/simulated": "true"}`}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

var curHeader = []string{"bill_billing_period_start_date", "bill_billing_period_end_date", "line_item_usage_account_id",
	"line_item_line_item_type", "line_item_usage_start_date", "line_item_usage_end_date", "line_item_product_code",
	"line_item_usage_type", "line_item_operation", "line_item_resource_id", "line_item_unblended_cost", "pricing_public_on_demand_cost",
	"product_instance_type", "product_region_code", "savings_plan_savings_plan_a_r_n", "savings_plan_savings_plan_effective_cost",
	"savings_plan_total_commitment_to_date", "savings_plan_used_commitment"}

func writeCUR(cw *csv.Writer, lines []billLine, w cluster.Window) error {
	if err := cw.Write(curHeader); err != nil {
		return err
	}
	bp, bpe := billingPeriod(w.Start)
	for _, l := range lines {
		if l.provider != "AWS" {
			continue
		}
		typ, op, product, cost := "Usage", "RunInstances", "AmazonEC2", l.billed
		var arn, spEff, total, used string
		switch {
		case l.status == "Unused":
			typ, op, product = "SavingsPlanRecurringFee", "", "ComputeSavingsPlans"
			arn, total, used = l.commitment, money(l.billed), money(l.billed-l.effective)
		case l.negation:
			typ, arn, cost = "SavingsPlanNegation", l.commitment, -l.list
		case l.commitment != "":
			typ, arn, spEff, cost = "SavingsPlanCoveredUsage", l.commitment, money(l.effective), l.list
		case l.spot:
			op = "RunInstances:SV001"
		case l.category == "Storage":
			op = "CreateVolume-Gp3"
		}
		rec := []string{ts(bp), ts(bpe), "111122223333", typ, ts(l.start), ts(l.end), product, l.usageType, op, l.resourceID,
			money(cost), money(l.list), l.instanceType, "us-east-1", arn, spEff, total, used}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

func billingPeriod(t time.Time) (time.Time, time.Time) {
	s := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return s, s.AddDate(0, 1, 0)
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}
