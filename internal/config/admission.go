package config

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/policy"
)

// AdmissionKey is the ConfigMap key that holds the admission settings when
// they are kept in a ConfigMap.
const AdmissionKey = "policy.yaml"

// ParseAdmission reads the admission-policy settings (docs/policy.md) over
// base: fields the file leaves out keep base's values. The file is the
// settings mapping itself, or a v1 ConfigMap holding it under the
// "policy.yaml" key (the form kept in a cluster or in git). Unknown keys,
// duplicate keys, wrong types and values Settings.Validate rejects are all
// reported, each with its field, in one *PolicyError.
func ParseAdmission(file string, data []byte, base policy.Settings) (policy.Settings, error) {
	s := base
	var doc any
	if err := yaml.UnmarshalStrict(data, &doc); err != nil {
		return s, &PolicyError{File: file, Problems: []string{err.Error()}}
	}
	prefix := ""
	if inner, pre, msg := fromConfigMap(doc); msg != "" {
		return s, &PolicyError{File: file, Problems: []string{msg}}
	} else if pre != "" {
		if err := yaml.UnmarshalStrict([]byte(inner), &doc); err != nil {
			return s, &PolicyError{File: file, Problems: []string{pre + ": " + err.Error()}}
		}
		prefix = pre + ": "
	}
	var probs []string
	switch top := doc.(type) {
	case nil:
	case map[string]any:
		walk("", top, admissionSchema(&s), &probs)
	default:
		probs = append(probs, "want a mapping of settings (gpuResources, gpuTaint, agents, …) at the top level")
	}
	// A field that failed to decode kept base's value, so Validate adds
	// only the other fields' problems.
	if err := s.Validate(); err != nil {
		probs = append(probs, strings.Split(err.Error(), "\n")...)
	}
	if len(probs) > 0 {
		for i := range probs {
			probs[i] = prefix + probs[i]
		}
		return s, &PolicyError{File: file, Problems: probs}
	}
	return s, nil
}

// fromConfigMap returns the settings text of a ConfigMap document and the
// field it came from; all empty when doc is not a ConfigMap.
func fromConfigMap(doc any) (inner, field, problem string) {
	m, ok := doc.(map[string]any)
	if !ok || m["kind"] != "ConfigMap" {
		return "", "", ""
	}
	d, _ := m["data"].(map[string]any)
	text, ok := d[AdmissionKey].(string)
	if !ok {
		return "", "", fmt.Sprintf("ConfigMap: want the settings under data.%s (a string)", AdmissionKey)
	}
	return text, "data." + AdmissionKey, ""
}

// admissionSchema maps every key of the settings file to where it goes.
func admissionSchema(s *policy.Settings) map[string]any {
	return map[string]any{
		"gpuResources":          stringList(&s.GPUResources),
		"wholeGPUResources":     stringList(&s.WholeGPUResources),
		"wholeGPUDeviceClasses": stringList(&s.WholeGPUDeviceClasses),
		"gpuDeviceClasses":      stringList(&s.GPUDeviceClasses),
		"gpuTaint": map[string]any{
			"key":    str(&s.GPUTaint.Key),
			"value":  str(&s.GPUTaint.Value),
			"effect": str(&s.GPUTaint.Effect),
		},
		"agents":           stringList(&s.Agents),
		"devNamespaces":    stringList(&s.DevNamespaces),
		"requiredLabels":   stringList(&s.RequiredLabels),
		"maxGPUsPerPod":    namespaceLimits(&s.MaxGPUsPerPod),
		"exemptNamespaces": stringList(&s.ExemptNamespaces),
		"mode":             mode(&s.Mode),
		"mutate":           boolean(&s.Mutate),
		"workloads":        boolean(&s.Workloads),
		"rules":            ruleSettings(&s.Rules),
	}
}

func str(dst *string) setter {
	return func(v any) string {
		s, ok := v.(string)
		if !ok {
			return "want a string (got " + describe(v) + ")"
		}
		*dst = s
		return ""
	}
}

func boolean(dst *bool) setter {
	return func(v any) string {
		b, ok := v.(bool)
		if !ok {
			return "want true or false (got " + describe(v) + ")"
		}
		*dst = b
		return ""
	}
}

func mode(dst *policy.Mode) setter {
	return func(v any) string {
		s, ok := v.(string)
		if !ok || (policy.Mode(s) != policy.Warn && policy.Mode(s) != policy.Deny) {
			return "want warn or deny (got " + describe(v) + ")"
		}
		*dst = policy.Mode(s)
		return ""
	}
}

// namespaceLimits reads maxGPUsPerPod: a list of {namespaces, max}. An
// entry that fails to decode is reported and stands in as a valid one, so
// that Validate reports the other entries under their own indexes.
func namespaceLimits(dst *[]policy.NamespaceLimit) setter {
	return func(v any) string {
		list, ok := v.([]any)
		if !ok {
			return "want a list of {namespaces: [globs], max: N} (got " + describe(v) + ")"
		}
		out := make([]policy.NamespaceLimit, len(list))
		var probs []string
		for i, item := range list {
			var entry []string
			if m, ok := item.(map[string]any); ok {
				walk(fmt.Sprintf("\x00[%d].", i), m, map[string]any{"namespaces": stringList(&out[i].Namespaces), "max": integer(&out[i].Max)}, &entry)
			} else {
				entry = append(entry, fmt.Sprintf("\x00[%d]: want a mapping {namespaces, max} (got %s)", i, describe(item)))
			}
			if len(entry) > 0 {
				out[i] = policy.NamespaceLimit{Namespaces: []string{"*"}, Max: 1}
				probs = append(probs, entry...)
			}
		}
		*dst = out
		return strings.Join(probs, "\n")
	}
}

// ruleSettings reads rules: a mapping of rule name → {disabled, mode}.
func ruleSettings(dst *map[string]policy.RuleSettings) setter {
	return func(v any) string {
		m, ok := v.(map[string]any)
		if !ok {
			return "want a mapping of rule name to {disabled, mode} (got " + describe(v) + ")"
		}
		out := map[string]policy.RuleSettings{}
		names := make([]string, 0, len(m))
		for name := range m {
			names = append(names, name)
		}
		sort.Strings(names)
		var probs []string
		for _, name := range names {
			rm, ok := m[name].(map[string]any)
			if !ok {
				probs = append(probs, fmt.Sprintf("\x00.%s: want a mapping {disabled, mode} (got %s)", name, describe(m[name])))
				continue
			}
			var r policy.RuleSettings
			var entry []string
			walk("\x00."+name+".", rm, map[string]any{"disabled": boolean(&r.Disabled), "mode": mode(&r.Mode)}, &entry)
			if len(entry) == 0 {
				out[name] = r
			}
			probs = append(probs, entry...)
		}
		*dst = out
		return strings.Join(probs, "\n")
	}
}
