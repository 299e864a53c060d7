package export

import (
	"github.com/gpuwise/gpuwise/internal/billing"
	"math"
	"time"

	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// A CUR 2.0 export's amortized cost per line-item type, by hand: usage
// at its unblended cost, savings-plan covered usage at its effective
// cost (the negation and the fee at 0), the recurring fee's unused part
// as unused commitment, split cost allocation rows per namespace.
const curFixture = `bill_billing_period_start_date,line_item_usage_start_date,line_item_usage_end_date,line_item_line_item_type,line_item_product_code,line_item_usage_type,line_item_operation,line_item_resource_id,line_item_unblended_cost,pricing_public_on_demand_cost,savings_plan_savings_plan_effective_cost,savings_plan_savings_plan_a_r_n,savings_plan_total_commitment_to_date,savings_plan_used_commitment,split_line_item_parent_resource_id,split_line_item_split_cost,split_line_item_unused_cost,product
2026-11-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,2026-11-01T01:00:00.000Z,Usage,AmazonEC2,USE1-BoxUsage:p5.48xlarge,RunInstances,i-0aaa,55.04,55.04,,,,,,,,"{""instance_type"": ""p5.48xlarge""}"
2026-11-01T00:00:00.000Z,2026-11-01T01:00:00.000Z,2026-11-01T02:00:00.000Z,SavingsPlanCoveredUsage,AmazonEC2,USE1-BoxUsage:p5.48xlarge,RunInstances,i-0aaa,55.04,55.04,30,arn:sp1,,,,,,
2026-11-01T00:00:00.000Z,2026-11-01T01:00:00.000Z,2026-11-01T02:00:00.000Z,SavingsPlanNegation,AmazonEC2,USE1-BoxUsage:p5.48xlarge,RunInstances,i-0aaa,-55.04,,,arn:sp1,,,,,,
2026-11-01T00:00:00.000Z,2026-11-01T01:00:00.000Z,2026-11-01T02:00:00.000Z,SavingsPlanRecurringFee,ComputeSavingsPlans,ComputeSP:1yrNoUpfront,,arn:sp1,40,,,arn:sp1,40,30,,,,
2026-11-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,2026-11-01T01:00:00.000Z,Usage,AmazonEC2,USE1-SpotUsage:g6.xlarge,RunInstances:SV001,i-0bbb,0.3,0.8,,,,,,,,
2026-11-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,2026-11-01T01:00:00.000Z,Usage,AmazonEC2,USE1-DataXfer-Out-Bytes,RunInstances,i-0aaa,1.5,1.5,,,,,,,,
2026-11-01T00:00:00.000Z,2026-11-01T00:00:00.000Z,2026-11-01T01:00:00.000Z,Usage,AmazonEC2,USE1-BoxUsage:p5.48xlarge,RunInstances,arn:aws:eks:us-east-1:1:pod/prod/team-a/p1/u1,0,,,,,,i-0aaa,20,5,
`

func TestCURFixture(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(curFixture))
	zw.Close()
	b := billing.NewBill()
	if err := Read(b, "cur.csv.gz", &gz, DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	if b.Files[0].Format != billing.CUR2 || b.Files[0].Rows != 7 {
		t.Fatalf("files %+v", b.Files)
	}
	m := b.Bind(t0, at(2), []billing.NodeLife{{Name: "a", ProviderID: "aws:///us-east-1a/i-0aaa", GPUs: 8},
		{Name: "b", ProviderID: "aws:///us-east-1a/i-0bbb", GPUs: 1}})
	near(t, "a", m.Node("a").USD, 55.04+30)
	near(t, "a committed", m.Node("a").CommittedUSD, 30)
	near(t, "b spot", m.Node("b").USD, 0.3)
	if !m.Node("b").Spot {
		t.Error("b is spot")
	}
	rc := m.Reconcile(nil, map[string]float64{"team-a": 22, "team-b": 3}, nil)
	near(t, "unused", rc.UnusedCommitmentUSD, 10)
	if len(rc.Split) != 2 || rc.Split[0].Namespace != "team-a" || rc.Split[0].AWSUSD != 25 || rc.Split[0].GPUwiseUSD != 22 || rc.SplitNote == "" {
		t.Errorf("split %+v", rc.Split)
	}
	if rs := b.Resources(); len(rs) != 2 || rs[0].ID != "i-0aaa" || rs[0].InstanceType != "p5.48xlarge" {
		t.Errorf("resources %+v", rs)
	}
	in := b.Inspect(func(_, it string) bool { return strings.HasPrefix(it, "p5") })
	if len(in.GPUInstances) != 1 || in.GPUInstances[0].Hours != 2 {
		t.Errorf("gpu instances %+v", in.GPUInstances)
	}
}

var t0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func at(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.10f, want %.10f", what, got, want)
	}
}

// A split row whose resource id is not a pod ARN takes its namespace
// from the aws:eks:namespace cost allocation tag (resource_tags); the
// savings plan's realised discount is its effective cost against the
// covered usage's public on-demand cost.
func TestCURSplitNamespaceTagAndCommitment(t *testing.T) {
	const cur = `bill_billing_period_start_date,line_item_usage_start_date,line_item_usage_end_date,line_item_line_item_type,line_item_product_code,line_item_usage_type,line_item_operation,line_item_resource_id,line_item_unblended_cost,pricing_public_on_demand_cost,savings_plan_savings_plan_effective_cost,savings_plan_savings_plan_a_r_n,split_line_item_parent_resource_id,split_line_item_split_cost,split_line_item_unused_cost,resource_tags
2026-11-01T00:00:00Z,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,SavingsPlanCoveredUsage,AmazonEC2,USE1-BoxUsage:p5.48xlarge,RunInstances,i-0aaa,55.04,55.04,33.02,arn:sp1,,,,
2026-11-01T00:00:00Z,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,AmazonEC2,USE1-EKS-EC2-vCPU-Hours,RunInstances,pod-uid-1,0,,,,i-0aaa,7,1,"{""aws:eks:namespace"": ""team-b"", ""aws:eks:cluster-name"": ""prod""}"
`
	b := billing.NewBill()
	if err := Read(b, "cur.csv", strings.NewReader(cur), DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	m := b.Bind(t0, at(1), []billing.NodeLife{{Name: "a", ProviderID: "aws:///us-east-1a/i-0aaa", GPUs: 8}})
	rc := m.Reconcile(nil, nil, nil)
	if len(rc.Split) != 1 || rc.Split[0].Namespace != "team-b" || rc.Split[0].AWSUSD != 8 {
		t.Errorf("split %+v", rc.Split)
	}
	amortized, list, ids, ok := m.Commitments()
	near(t, "amortized", amortized, 33.02)
	near(t, "list", list, 55.04)
	if !ok || len(ids) != 1 || ids[0] != "arn:sp1" {
		t.Errorf("commitments %v %v", ids, ok)
	}
}
