package pricing

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

// fieldProblem is one thing wrong with a rule. field is the YAML path
// relative to the rule ("match.nodeLabel", "discount"); empty means the
// rule as a whole. Each file format turns it into a line or a path.
type fieldProblem struct{ field, msg string }

// Field names, as the YAML format spells them.
const (
	fMatch        = "match"
	fNodeLabel    = "match.nodeLabel"
	fInstanceType = "match.instanceType"
	fGPUModel     = "match.gpuModel"
	fCloud        = "match.cloud"
	fRegion       = "match.region"
	fCapacityType = "match.capacityType"
	fNodeUSD      = "nodeUSDPerHour"
	fGPUUSD       = "gpuUSDPerHour"
	fCPUUSD       = "cpuUSDPerCoreHour"
	fMemUSD       = "memoryUSDPerGiBHour"
	fDiscount     = "discount"
)

// priceFields are a rule's numeric fields and where each one is stored.
func priceFields(r *rule) map[string]**float64 {
	return map[string]**float64{
		fNodeUSD: &r.nodeUSD, fGPUUSD: &r.gpuUSD, fCPUUSD: &r.cpuUSD, fMemUSD: &r.memUSD, fDiscount: &r.discount,
	}
}

// matchFields are the match keys and where each one is stored.
func matchFields(m *ruleMatch) map[string]*string {
	return map[string]*string{
		"nodeLabel": &m.nodeLabel, "instanceType": &m.instanceType, "gpuModel": &m.gpuModel,
		"cloud": &m.cloud, "region": &m.region, "capacityType": &m.capacityType,
	}
}

// labelPattern is a Kubernetes label "key=value": an optional DNS prefix
// and a name for the key, a possibly empty value.
var labelPattern = regexp.MustCompile(
	`^\s*([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\s*=\s*([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?\s*$`)

// validate returns every problem with a rule.
func (r *rule) validate() []fieldProblem {
	probs := r.validateMatch()
	probs = append(probs, r.validatePrices()...)
	return probs
}

func (r *rule) validateMatch() []fieldProblem {
	m := r.match
	var probs []fieldProblem
	kinds := 0
	for _, v := range []string{m.nodeLabel, m.instanceType, m.gpuModel} {
		if v != "" {
			kinds++
		}
	}
	switch {
	case kinds > 1:
		probs = append(probs, fieldProblem{fMatch, "set only one of nodeLabel, instanceType and gpuModel"})
	case kinds == 0 && m.cloud == "":
		probs = append(probs, fieldProblem{fMatch, "needs one of nodeLabel, instanceType, gpuModel or cloud"})
	}
	if m.nodeLabel != "" && !labelPattern.MatchString(m.nodeLabel) {
		probs = append(probs, fieldProblem{fNodeLabel, fmt.Sprintf(`want a label "key=value" (got %q)`, m.nodeLabel)})
	}
	switch CapacityType(m.capacityType) {
	case UnknownCapacity, OnDemand, Spot, Reserved:
	default:
		probs = append(probs, fieldProblem{fCapacityType,
			fmt.Sprintf("want on-demand, spot or reserved (got %q)", m.capacityType)})
	}
	return probs
}

// maxUSDPerHour bounds each price field, about 100 times the dearest real
// price of its kind (a p5e.48xlarge lists near $100/h, a GPU near $12/h),
// so that a typo ("1e308", a price per month) is refused instead of
// turning every total into +Inf or a number nobody could pay.
var maxUSDPerHour = map[string]float64{fNodeUSD: 10_000, fGPUUSD: 1_000, fCPUUSD: 100, fMemUSD: 100}

// priceUnit is what each price field is per.
var priceUnit = map[string]string{fNodeUSD: "$ per node-hour", fGPUUSD: "$ per GPU-hour", fCPUUSD: "$ per core-hour", fMemUSD: "$ per GiB-hour"}

func (r *rule) validatePrices() []fieldProblem {
	var probs []fieldProblem
	for _, p := range []struct {
		field string
		v     *float64
	}{{fNodeUSD, r.nodeUSD}, {fGPUUSD, r.gpuUSD}, {fCPUUSD, r.cpuUSD}, {fMemUSD, r.memUSD}} {
		switch {
		case p.v == nil:
		case math.IsNaN(*p.v) || math.IsInf(*p.v, 0):
			probs = append(probs, fieldProblem{p.field, fmt.Sprintf("must be a finite price (got %v)", *p.v)})
		case *p.v < 0:
			probs = append(probs, fieldProblem{p.field, fmt.Sprintf("must be a non-negative price (got %v)", *p.v)})
		case *p.v > maxUSDPerHour[p.field]:
			probs = append(probs, fieldProblem{p.field, fmt.Sprintf("%v is above the limit of %v %s; prices are hourly (a monthly price divided by 730)",
				*p.v, maxUSDPerHour[p.field], priceUnit[p.field])})
		}
	}
	if d := r.discount; d != nil && !(*d >= 0 && *d < 1) {
		probs = append(probs, fieldProblem{fDiscount, fmt.Sprintf("must be at least 0 and below 1 (got %v)", *d)})
	}
	return append(probs, r.validateCombination()...)
}

// validateCombination checks that the rule sets exactly one way to price.
func (r *rule) validateCombination() []fieldProblem {
	var probs []fieldProblem
	hasPrice := r.nodeUSD != nil || r.gpuUSD != nil
	switch {
	case !hasPrice && r.discount == nil:
		probs = append(probs, fieldProblem{"", "needs nodeUSDPerHour, gpuUSDPerHour or discount"})
	case r.nodeUSD != nil && r.gpuUSD != nil:
		probs = append(probs, fieldProblem{fNodeUSD, "set nodeUSDPerHour or gpuUSDPerHour, not both"})
	case hasPrice && r.discount != nil:
		probs = append(probs, fieldProblem{fDiscount,
			"applies to catalog prices; set the discounted price instead of nodeUSDPerHour or gpuUSDPerHour"})
	}
	for _, p := range []struct {
		field string
		v     *float64
	}{{fCPUUSD, r.cpuUSD}, {fMemUSD, r.memUSD}} {
		if p.v != nil && r.gpuUSD == nil {
			probs = append(probs, fieldProblem{p.field, "only applies with gpuUSDPerHour"})
		}
	}
	return probs
}

// withValidation appends the rule's validation problems to its parse
// problems, leaving out those that a parse problem already explains (a
// price that did not parse is not also "missing").
func withValidation(r *rule, parsed []fieldProblem) []fieldProblem {
	matchBroken := false
	for _, p := range parsed {
		matchBroken = matchBroken || strings.HasPrefix(p.field, fMatch)
	}
	out := parsed
	for _, v := range r.validate() {
		if (v.field == "" && len(parsed) > 0) || (v.field == fMatch && matchBroken) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// trimmed reports a set-but-blank string field as a problem.
func trimmed(field, v string, probs *[]fieldProblem) string {
	t := strings.TrimSpace(v)
	if t == "" {
		*probs = append(*probs, fieldProblem{field, "must not be empty"})
	}
	return t
}
