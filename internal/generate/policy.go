package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/gpuwise/gpuwise/internal/policy"
)

// Policies writes generated admission policies: one file per rule at
// "policy/<engine>/<name>.yaml" (the ConstraintTemplate and its
// constraint; Kyverno's policy), for the native engine one per object shape
// (the policy holding every rule and its warn and deny bindings, each
// binding its own params), and
// "policy/<engine>/rollout.sh" (the commands that flip the mode). Native
// objects are re-read strictly into the upstream admissionregistration/v1
// types before they are returned; Kyverno and Gatekeeper objects are checked
// against their CRDs in the integration tier.
func Policies(out *policy.Output, engine policy.Engine) ([]File, error) {
	dir := "policy/" + string(engine) + "/"
	files := make([]File, 0, len(out.Artefacts)+1)
	for _, a := range out.Artefacts {
		var b bytes.Buffer
		fmt.Fprintf(&b, "# gpuwise admission policy %s (%s); generated, review before applying.\n", a.Name, engine)
		for i, o := range a.Objects {
			doc, err := orderedYAML(o)
			if err != nil {
				return nil, fmt.Errorf("policy %s: %w", o.Metadata.Name, err)
			}
			if err := validateObject(o.Kind, doc); err != nil {
				return nil, fmt.Errorf("%s %s: generated object is invalid (a gpuwise bug): %w", o.Kind, o.Metadata.Name, err)
			}
			if i > 0 {
				b.WriteString("---\n")
			}
			b.Write(doc)
		}
		files = append(files, File{Path: dir + a.Name + ".yaml", Data: b.Bytes()})
	}
	files = append(files, File{Path: dir + "rollout.sh", Data: []byte(out.Rollout)})
	sortFiles(files)
	return files, nil
}

// orderedYAML writes v as YAML keeping the struct's field order (which
// sigs.k8s.io/yaml sorts away), so a policy reads variables before
// validations. Strings holding a single quote (CEL literals) are written
// double-quoted rather than with doubled quotes.
func orderedYAML(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(j, &n); err != nil {
		return nil, err
	}
	restyle(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// restyle drops the JSON flow style the decoder kept and double-quotes
// strings with single quotes in them.
func restyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, "'") {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		restyle(c)
	}
}

// validateObject decodes a native admission object strictly into its
// upstream type: an unknown or mistyped field is an error.
func validateObject(kind string, doc []byte) error {
	var into any
	switch kind {
	case "ValidatingAdmissionPolicy":
		into = &admissionv1.ValidatingAdmissionPolicy{}
	case "ValidatingAdmissionPolicyBinding":
		into = &admissionv1.ValidatingAdmissionPolicyBinding{}
	case "MutatingAdmissionPolicy":
		into = &admissionv1.MutatingAdmissionPolicy{}
	case "MutatingAdmissionPolicyBinding":
		into = &admissionv1.MutatingAdmissionPolicyBinding{}
	case "ConfigMap":
		into = &corev1.ConfigMap{}
	default:
		var obj struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := sigsyaml.Unmarshal(doc, &obj); err != nil {
			return err
		}
		if obj.APIVersion == "" || obj.Kind == "" || obj.Metadata.Name == "" {
			return fmt.Errorf("apiVersion, kind and metadata.name are required")
		}
		return nil
	}
	return sigsyaml.UnmarshalStrict(doc, into)
}
