package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/capacity"
	"github.com/gpuwise/gpuwise/internal/rightsize"
	"github.com/gpuwise/gpuwise/internal/yamldoc"
)

// PolicyError lists every problem of a policy file, each with its field.
type PolicyError struct {
	File     string
	Problems []string
}

func (e *PolicyError) Error() string {
	noun := "problems"
	if len(e.Problems) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("policy file %s has %d %s:\n\t%s", e.File, len(e.Problems), noun, strings.Join(e.Problems, "\n\t"))
}

// ParsePolicy reads a recommendation policy (YAML or JSON, which is YAML)
// over rightsize.DefaultPolicy: fields the file leaves out keep their
// defaults. Unknown keys, duplicate keys, wrong types and values that
// Policy.Validate rejects are all reported, in one *PolicyError.
func ParsePolicy(file string, data []byte) (rightsize.Policy, error) {
	p, err := ParsePolicies(file, data)
	return p.Rightsize, err
}

// Policies is everything a policy file sets, each section over its
// engine's defaults.
type Policies struct {
	Rightsize rightsize.Policy
	Autoscale capacity.AutoscalePolicy
	Commit    capacity.CommitPolicy
	Reclaim   capacity.ReclaimPolicy
}

// DefaultPolicies is what an empty policy file gives.
func DefaultPolicies() Policies {
	return Policies{Rightsize: rightsize.DefaultPolicy(), Autoscale: capacity.DefaultAutoscalePolicy(),
		Commit: capacity.DefaultCommitPolicy(), Reclaim: capacity.DefaultReclaimPolicy()}
}

// ParsePolicies reads the whole policy file: the recommendation policy and
// the autoscaling, commitments and reclaim sections (docs/capacity.md),
// every problem of all of them in one *PolicyError.
func ParsePolicies(file string, data []byte) (Policies, error) {
	p := DefaultPolicies()
	var doc any
	if err := yaml.UnmarshalStrict(data, &doc); err != nil { // strict: duplicate keys
		return p, &PolicyError{File: file, Problems: []string{err.Error()}}
	}
	if err := yamldoc.Single(data); err != nil {
		return p, &PolicyError{File: file, Problems: []string{err.Error()}}
	}
	var probs []string
	switch top := doc.(type) {
	case nil: // an empty file: the defaults
	case map[string]any:
		walk("", top, p.schema(), &probs)
	default:
		probs = append(probs, "want a mapping with cpu, memory, history, gpu, autoscaling, commitments and reclaim sections at the top level")
	}
	// A field that failed to decode kept its valid default, so Validate
	// adds only the other fields' problems.
	for _, err := range []error{p.Rightsize.Validate(), p.Autoscale.Validate(), p.Commit.Validate(), p.Reclaim.Validate()} {
		if err != nil {
			probs = append(probs, strings.Split(err.Error(), "\n")...)
		}
	}
	if len(probs) > 0 {
		return p, &PolicyError{File: file, Problems: probs}
	}
	return p, nil
}

// schema maps every key of the file to the field it sets.
func (p *Policies) schema() map[string]any {
	s := policySchema(&p.Rightsize)
	s["autoscaling"] = autoscaleSchema(&p.Autoscale)
	s["commitments"] = map[string]any{
		"discount1y": number(&p.Commit.Discount1Y),
		"discount3y": number(&p.Commit.Discount3Y),
		"capOfMean":  number(&p.Commit.CapOfMean),
	}
	s["reclaim"] = map[string]any{
		"maxActivity":  number(&p.Reclaim.MaxActivity),
		"minIdleHours": integer(&p.Reclaim.MinIdleHours),
		"namespaces":   stringList(&p.Reclaim.Namespaces),
	}
	return s
}

// autoscaleSchema maps the autoscaling section (docs/capacity.md).
func autoscaleSchema(a *capacity.AutoscalePolicy) map[string]any {
	return map[string]any{
		"targetActivity": number(&a.TargetActivity),
		"minReplicas":    integer(&a.MinReplicas),
		"maxReplicas":    integer(&a.MaxReplicas),
		"stabilization":  duration(&a.Stabilization),
		"startup":        duration(&a.Startup),
	}
}

// setter stores a decoded value, or returns what is wrong with it.
type setter func(v any) string

// policySchema maps every key of the file to where it goes.
func policySchema(p *rightsize.Policy) map[string]any {
	return map[string]any{
		"cpu": map[string]any{
			"percentile": number(&p.CPU.Percentile),
			"headroom":   number(&p.CPU.Headroom),
			"min":        cpuQuantity(&p.CPU.MinMilli),
			// CPU-starved GPU containers (docs/recommendations.md).
			"starvedThrottled": number(&p.CPU.StarvedThrottled),
			"starvedAtLimit":   number(&p.CPU.StarvedAtLimit),
		},
		"memory": map[string]any{
			"percentile": number(&p.Memory.Percentile),
			"headroom":   number(&p.Memory.Headroom),
			"min":        memoryQuantity(&p.Memory.MinBytes),
			"oomBump":    number(&p.Memory.OOMBump),
		},
		"history": map[string]any{
			"minObserved": duration(&p.History.MinObserved),
			"minCoverage": number(&p.History.MinCoverage),
		},
		"gpu": map[string]any{
			"memoryHeadroom":     number(&p.GPU.MemoryHeadroom),
			"activityPercentile": number(&p.GPU.ActivityPercentile),
			"computeHeadroom":    number(&p.GPU.ComputeHeadroom),
			"devNamespaces":      stringList(&p.GPU.DevNamespaces),
			"timeSlice": map[string]any{
				"minReplicas": integer(&p.GPU.MinReplicas),
				"maxReplicas": integer(&p.GPU.MaxReplicas),
			},
		},
	}
}

// walk decodes a mapping against its schema, keys in sorted order so that
// problems come out in a stable order.
func walk(prefix string, m map[string]any, schema map[string]any, probs *[]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path := prefix + k
		switch s := schema[k].(type) {
		case nil:
			*probs = append(*probs, path+": unknown field (known: "+knownKeys(schema)+")")
		case map[string]any:
			sub, ok := m[k].(map[string]any)
			if !ok {
				*probs = append(*probs, fmt.Sprintf("%s: want a mapping (got %s)", path, describe(m[k])))
				continue
			}
			walk(path+".", sub, s, probs)
		case setter:
			if msg := s(m[k]); msg != "" {
				*probs = append(*probs, fieldProblems(path, msg)...)
			}
		}
	}
}

// fieldProblems prefixes a setter's problems with the field's path; a
// nested setter (a list of mappings, a mapping of names) returns one
// problem per line, each starting with its own "[i]." or "name." path.
func fieldProblems(path, msg string) []string {
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, "\x00") {
			out = append(out, path+strings.TrimPrefix(line, "\x00"))
		} else {
			out = append(out, path+": "+line)
		}
	}
	return out
}

func knownKeys(schema map[string]any) string {
	keys := make([]string, 0, len(schema))
	for k := range schema {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", v)
	case float64:
		return "number " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

func number(dst *float64) setter {
	return func(v any) string {
		f, ok := v.(float64)
		if !ok {
			return "want a number (got " + describe(v) + ")"
		}
		*dst = f
		return ""
	}
}

func integer(dst *int) setter {
	return func(v any) string {
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
			return "want a whole number (got " + describe(v) + ")"
		}
		*dst = int(f)
		return ""
	}
}

func stringList(dst *[]string) setter {
	return func(v any) string {
		list, ok := v.([]any)
		if !ok {
			return "want a list of strings (got " + describe(v) + ")"
		}
		out := make([]string, 0, len(list))
		for i, item := range list {
			s, ok := item.(string)
			if !ok {
				return fmt.Sprintf("[%d]: want a string (got %s)", i, describe(item))
			}
			out = append(out, s)
		}
		*dst = out
		return ""
	}
}

// duration reads "24h", "90m" or "7d" (whole or fractional days).
func duration(dst *time.Duration) setter {
	return func(v any) string {
		s, ok := v.(string)
		if !ok {
			return "want a duration such as 24h or 7d (got " + describe(v) + ")"
		}
		if days, ok := strings.CutSuffix(s, "d"); ok {
			n, err := strconv.ParseFloat(days, 64)
			if err != nil || math.IsNaN(n) || math.Abs(n) > 3650 {
				return fmt.Sprintf("want a duration such as 24h or 7d (got %q)", s)
			}
			*dst = time.Duration(n * float64(24*time.Hour))
			return ""
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Sprintf("want a duration such as 24h or 7d (got %q)", s)
		}
		*dst = d
		return ""
	}
}

// quantity reads a Kubernetes quantity: a string ("10m", "64Mi") or a
// plain number in the resource's base unit (cores, bytes).
func quantity(v any) (resource.Quantity, string) {
	switch v := v.(type) {
	case string:
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return q, fmt.Sprintf("want a Kubernetes quantity such as 10m or 64Mi (got %q)", v)
		}
		return q, ""
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1<<50 {
			return resource.Quantity{}, "want a finite quantity (got " + describe(v) + ")"
		}
		return *resource.NewMilliQuantity(int64(math.Round(v*1000)), resource.DecimalSI), ""
	}
	return resource.Quantity{}, "want a Kubernetes quantity such as 10m or 64Mi (got " + describe(v) + ")"
}

// Quantities are checked against the policy's bounds before they are
// converted: resource.Quantity's MilliValue and Value overflow int64
// silently above about 9.2E (100E and "1e20" cores came out as garbage
// that was then ignored, 9Ei as 9223372036854775807 bytes).
var (
	maxCPUMin    = *resource.NewMilliQuantity(rightsize.MaxMinCPUMilli, resource.DecimalSI)
	maxMemoryMin = *resource.NewQuantity(rightsize.MaxMinMemoryBytes, resource.BinarySI)
)

func cpuQuantity(dst *int64) setter {
	return func(v any) string {
		q, msg := boundedQuantity(v, maxCPUMin, "1024 cores")
		if msg == "" {
			*dst = q.MilliValue()
		}
		return msg
	}
}

func memoryQuantity(dst *int64) setter {
	return func(v any) string {
		q, msg := boundedQuantity(v, maxMemoryMin, "64Ti")
		if msg == "" {
			*dst = q.Value()
		}
		return msg
	}
}

// boundedQuantity reads a quantity whose magnitude is at most limit, so
// that converting it to int64 is exact; a small negative one is left to
// Policy.Validate to report.
func boundedQuantity(v any, limit resource.Quantity, limitText string) (resource.Quantity, string) {
	q, msg := quantity(v)
	if msg != "" {
		return q, msg
	}
	abs := q.DeepCopy()
	abs.Neg()
	if q.Sign() >= 0 {
		abs = q
	}
	if abs.Cmp(limit) > 0 {
		text := describe(v)
		if s, ok := v.(string); ok {
			text = strconv.Quote(s)
		}
		return q, fmt.Sprintf("%s is beyond the limit of ±%s for a request floor", text, limitText)
	}
	return q, ""
}
