package pricing

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Overrides is a parsed, valid list of user price rules from one file.
type Overrides struct {
	file string
	// rules are in match order: by kind, then file order.
	rules []*rule
	// warnings name rules that can never match (a duplicate of an
	// earlier rule's conditions).
	warnings []string
}

// matchKind ranks rules: a more specific kind is tried first.
type matchKind int

const (
	byNodeLabel matchKind = iota
	byInstanceType
	byGPUModel
	byCloud
)

// onPremCloud in a rule's cloud matches nodes with no cloud.
const onPremCloud = "onprem"

// rule is one override: conditions that must all hold, and a price.
type rule struct {
	origin string // "prices.yaml prices[0]" or "prices.csv:3"
	match  ruleMatch
	// Prices; nil means unset.
	nodeUSD, gpuUSD, cpuUSD, memUSD, discount *float64

	kind                 matchKind
	labelKey, labelValue string
}

// ruleMatch holds a rule's conditions as written; empty means any.
type ruleMatch struct {
	nodeLabel, instanceType, gpuModel, cloud, region, capacityType string
}

func newOverrides(file string, rules []*rule) *Overrides {
	for _, r := range rules {
		r.prepare()
	}
	slices.SortStableFunc(rules, func(a, b *rule) int { return int(a.kind) - int(b.kind) })
	return &Overrides{file: file, rules: rules, warnings: duplicateRules(file, rules)}
}

// duplicateRules names every rule whose conditions repeat an earlier
// rule's: the first one always wins, so the later one is dead, and a file
// with two prices for the same thing is usually a mistake worth a look.
func duplicateRules(file string, rules []*rule) []string {
	first := map[string]*rule{}
	var out []string
	for _, r := range rules {
		k := r.conditionKey()
		if prev, dup := first[k]; dup {
			out = append(out, fmt.Sprintf("%s has the same match as %s, which wins: this rule is never used", r.origin, inFile(file, prev.origin)))
			continue
		}
		first[k] = r
	}
	return out
}

// inFile shortens a rule's origin within its own file: "prices[0]" for
// "f.yaml prices[0]", "line 3" for "f.csv:3".
func inFile(file, origin string) string {
	if rest, ok := strings.CutPrefix(origin, file+" "); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(origin, file+":"); ok {
		return "line " + rest
	}
	return origin
}

// conditionKey is the rule's conditions, normalized as matching compares
// them.
func (r *rule) conditionKey() string {
	m := r.match
	return strings.Join([]string{fmt.Sprint(r.kind), r.labelKey, r.labelValue, strings.ToLower(m.instanceType),
		strings.ToLower(m.gpuModel), strings.ToLower(m.cloud), strings.ToLower(m.region),
		strings.ToLower(m.capacityType)}, "\x00")
}

// Warnings lists problems that do not stop the file from being used: rules
// that repeat an earlier rule's match and so never apply.
func (o *Overrides) Warnings() []string {
	if o == nil {
		return nil
	}
	return slices.Clone(o.warnings)
}

// prepare derives the rule's kind and parsed label from a valid match.
func (r *rule) prepare() {
	m := &r.match
	m.cloud = strings.ToLower(m.cloud)
	switch {
	case m.nodeLabel != "":
		r.kind = byNodeLabel
		r.labelKey, r.labelValue, _ = strings.Cut(m.nodeLabel, "=")
		r.labelKey = strings.TrimSpace(r.labelKey)
		r.labelValue = strings.TrimSpace(r.labelValue)
	case m.instanceType != "":
		r.kind = byInstanceType
	case m.gpuModel != "":
		r.kind = byGPUModel
		m.gpuModel = NormalizeGPUModel(m.gpuModel, 0)
	default:
		r.kind = byCloud
	}
}

// File returns the name of the file the rules came from.
func (o *Overrides) File() string { return o.file }

// Len returns the number of rules.
func (o *Overrides) Len() int { return len(o.rules) }

func (o *Overrides) sourceInfo() SourceInfo {
	return SourceInfo{Price: "override", Source: o.file, Rows: len(o.rules)}
}

// match returns the first rule that matches n, or nil.
func (o *Overrides) match(n NodeSpec, ix regionIndex) *rule {
	if o == nil {
		return nil
	}
	for _, r := range o.rules {
		if r.matches(n, ix) {
			return r
		}
	}
	return nil
}

func (r *rule) matches(n NodeSpec, ix regionIndex) bool {
	m := r.match
	switch r.kind {
	case byNodeLabel:
		if v, ok := n.Labels[r.labelKey]; !ok || v != r.labelValue {
			return false
		}
	case byInstanceType:
		if !strings.EqualFold(m.instanceType, strings.TrimSpace(n.InstanceType)) {
			return false
		}
	case byGPUModel:
		if !strings.EqualFold(m.gpuModel, strings.TrimSpace(n.GPUModel)) {
			return false
		}
	}
	return r.qualifiersMatch(n, ix)
}

// qualifiersMatch checks the optional cloud, region and capacity type.
func (r *rule) qualifiersMatch(n NodeSpec, ix regionIndex) bool {
	m := r.match
	switch {
	case m.cloud == onPremCloud && n.Cloud != "":
		return false
	case m.cloud != "" && m.cloud != onPremCloud && !strings.EqualFold(m.cloud, strings.TrimSpace(n.Cloud)):
		return false
	case m.region != "" && ix.canonical(n.Cloud, m.region) != ix.canonical(n.Cloud, n.Region):
		return false
	case m.capacityType != "" && CapacityType(m.capacityType) != effectiveCapacity(n.Capacity):
		return false
	}
	return true
}

// effectiveCapacity is the capacity type a node is priced as: unknown
// capacity counts as on-demand.
func effectiveCapacity(c CapacityType) CapacityType {
	c = CapacityType(normalizeName(string(c)))
	if c == UnknownCapacity {
		return OnDemand
	}
	return c
}

// describe names the rule and its conditions for a price's Source.
func (r *rule) describe() string {
	m := r.match
	var conds []string
	for _, kv := range [][2]string{
		{"nodeLabel", m.nodeLabel}, {"instanceType", m.instanceType}, {"gpuModel", m.gpuModel},
		{"cloud", m.cloud}, {"region", m.region}, {"capacityType", m.capacityType},
	} {
		if kv[1] != "" {
			conds = append(conds, kv[0]+"="+kv[1])
		}
	}
	return fmt.Sprintf("override %s (%s)", r.origin, strings.Join(conds, ", "))
}

// OverridesError lists every problem found in an overrides file, each with
// its line (CSV) or field path (YAML).
type OverridesError struct {
	File     string
	Problems []string
}

func (e *OverridesError) Error() string {
	if len(e.Problems) == 1 {
		return fmt.Sprintf("overrides file %s: %s", e.File, e.Problems[0])
	}
	return fmt.Sprintf("overrides file %s has %d problems:\n\t%s",
		e.File, len(e.Problems), strings.Join(e.Problems, "\n\t"))
}

// ParseOverrides reads user price rules from a YAML (.yaml, .yml) or CSV
// (.csv) file; filename picks the format and names the rules in prices'
// Source. On error it returns an *OverridesError listing every problem.
//
// A rule matches nodes and prices them. YAML:
//
//	prices:
//	  - match: {instanceType: p5.48xlarge, region: us-east-1}  # optional cloud, capacityType
//	    nodeUSDPerHour: 40.0          # whole node, split like a catalog price
//	  - match: {nodeLabel: "gpuwise.io/pool=onprem-a100"}
//	    gpuUSDPerHour: 1.10           # per GPU; cpuUSDPerCoreHour and
//	                                  # memoryUSDPerGiBHour default to the reference rates
//	  - match: {gpuModel: A100-80GB, cloud: onprem}  # onprem: nodes without a cloud
//	    gpuUSDPerHour: 1.25
//	  - match: {cloud: aws}
//	    discount: 0.15                # off the catalog price, in [0, 1)
//
// CSV has a header naming its columns, in any order: match (instanceType,
// nodeLabel, gpuModel or cloud) and value are required; cloud, region,
// capacity_type, node_usd_per_hour, gpu_usd_per_hour, cpu_usd_per_core_hour,
// memory_usd_per_gib_hour and discount are optional. Lines starting with #
// are comments.
//
// Unknown keys, negative prices, a discount outside [0, 1), a rule with no
// price and no discount, both a node and a GPU price, a discount with a
// price, CPU or memory rates without a GPU price, more than one of
// nodeLabel, instanceType and gpuModel, and a label that is not
// "key=value" are all errors.
func ParseOverrides(filename string, data []byte) (*Overrides, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // Excel writes CSV with a UTF-8 byte order mark
	var rules []*rule
	var probs []string
	switch strings.ToLower(filepath.Ext(filename)) {
	case ".yaml", ".yml":
		rules, probs = parseYAML(filename, data)
	case ".csv":
		rules, probs = parseCSV(filename, data)
	default:
		probs = []string{"unknown format; want a .yaml, .yml or .csv file"}
	}
	if len(probs) > 0 {
		return nil, &OverridesError{File: filename, Problems: probs}
	}
	return newOverrides(filename, rules), nil
}
