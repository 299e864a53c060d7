package pricing

import (
	"fmt"
	"sort"

	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/yamldoc"
)

// parseYAML reads "prices:" rules. It walks the decoded tree itself rather
// than decoding into structs, so that it can report every unknown key and
// wrong type with its path instead of stopping at the first.
func parseYAML(file string, data []byte) ([]*rule, []string) {
	var doc any
	if err := yaml.UnmarshalStrict(data, &doc); err != nil { // strict: duplicate keys are errors
		return nil, []string{err.Error()}
	}
	if err := yamldoc.Single(data); err != nil {
		return nil, []string{err.Error()}
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, []string{"want a mapping with a prices list at the top level"}
	}
	var probs []string
	for _, k := range sortedKeys(top) {
		if k != "prices" {
			probs = append(probs, k+": unknown field")
		}
	}
	list, ok := top["prices"].([]any)
	if !ok {
		return nil, append(probs, "prices: want a list of rules")
	}
	raw := yamlRawPrices(data)
	var rules []*rule
	for i, item := range list {
		path := fmt.Sprintf("prices[%d]", i)
		r, p := yamlRule(path, item, raw)
		r.origin = file + " " + path
		rules, probs = append(rules, r), append(probs, p...)
	}
	return rules, probs
}

// yamlRule reads one rule; problems carry their full path. raw holds the
// price fields as written (yamlRawPrices).
func yamlRule(path string, item any, raw map[string]string) (*rule, []string) {
	r := &rule{}
	m, ok := item.(map[string]any)
	if !ok {
		return r, []string{path + ": want a mapping"}
	}
	var probs []fieldProblem
	numbers := priceFields(r)
	for _, k := range sortedKeys(m) {
		if dst, ok := numbers[k]; ok {
			*dst = yamlNumber(k, m[k], &probs)
			if text, seen := raw[path+"."+k]; *dst != nil && seen {
				if msg := numberSyntax(text); msg != "" { // YAML 1.1 reads "1_000" as 1000, "017" as 15
					*dst, probs = nil, append(probs, fieldProblem{k, msg})
				}
			}
			continue
		}
		if k == fMatch {
			probs = append(probs, yamlMatch(m[k], &r.match)...)
			continue
		}
		probs = append(probs, fieldProblem{k, "unknown field"})
	}
	return r, yamlPaths(path, withValidation(r, probs))
}

func yamlMatch(v any, m *ruleMatch) []fieldProblem {
	src, ok := v.(map[string]any)
	if !ok {
		return []fieldProblem{{fMatch, "want a mapping"}}
	}
	var probs []fieldProblem
	fields := matchFields(m)
	for _, k := range sortedKeys(src) {
		field := fMatch + "." + k
		dst, ok := fields[k]
		if !ok {
			probs = append(probs, fieldProblem{field, "unknown field"})
			continue
		}
		s, ok := src[k].(string)
		if !ok {
			probs = append(probs, fieldProblem{field, fmt.Sprintf("want a string (got %s)", yamlType(src[k]))})
			continue
		}
		*dst = trimmed(field, s, &probs)
	}
	return probs
}

func yamlNumber(field string, v any, probs *[]fieldProblem) *float64 {
	f, ok := v.(float64)
	if !ok {
		*probs = append(*probs, fieldProblem{field, fmt.Sprintf("want a number (got %s)", yamlType(v))})
		return nil
	}
	return &f
}

// yamlType names a decoded value's type for messages.
func yamlType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", v)
	case bool:
		return "a boolean"
	case float64:
		return fmt.Sprintf("number %v", v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

func yamlPaths(path string, probs []fieldProblem) []string {
	out := make([]string, 0, len(probs))
	for _, p := range probs {
		where := path
		if p.field != "" {
			where += "." + p.field
		}
		out = append(out, where+": "+p.msg)
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
