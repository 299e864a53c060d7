package generate

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// managedByLabels marks the objects gpuwise generated, so they can be found
// (and removed) with a label selector.
var managedByLabels = map[string]string{"app.kubernetes.io/managed-by": "gpuwise"}

// apiVersion is the group/version a workload kind lives in.
func (k WorkloadKind) apiVersion() (string, bool) {
	switch k {
	case Deployment, StatefulSet, DaemonSet:
		return "apps/v1", true
	case Job, CronJob:
		return "batch/v1", true
	}
	return "", false
}

// String names a workload as "Kind namespace/name" in errors and headers.
func (w Workload) String() string {
	return fmt.Sprintf("%s %s/%s", w.Kind, w.Namespace, w.Name)
}

// lowerKind is the kind as kubectl and file names spell it.
func (w Workload) lowerKind() string { return strings.ToLower(string(w.Kind)) }

// check adds every problem with the workload reference itself.
func (w Workload) check(p *problems, what string) {
	if _, ok := w.Kind.apiVersion(); !ok {
		p.addf("%s %s: kind %q is not one of Deployment, StatefulSet, DaemonSet, Job, CronJob", what, w, w.Kind)
	}
	checkName(p, what+" "+w.String()+": namespace", w.Namespace, validation.IsDNS1123Label)
	checkName(p, what+" "+w.String()+": name", w.Name, validation.IsDNS1123Subdomain)
}

// checkName adds a problem when value is empty or fails a Kubernetes name
// rule; what names the field and its object.
func checkName(p *problems, what, value string, rule func(string) []string) {
	if value == "" {
		p.addf("%s is empty", what)
		return
	}
	if msgs := rule(value); len(msgs) > 0 {
		p.errs = append(p.errs, &NameError{fmt.Errorf("%s %q is invalid: %s", what, value, strings.Join(msgs, "; "))})
	}
}

// NameError is a name the generated object cannot carry: a namespace,
// workload or node class name that is not a valid Kubernetes name. It
// comes from the input (a snapshot, a flag), not from gpuwise, and the
// use cases report it as such (issue 31: generate spot/quota exited 1).
type NameError struct{ Err error }

func (e *NameError) Error() string { return e.Err.Error() }
func (e *NameError) Unwrap() error { return e.Err }

// CheckNodeClassRef lists what is wrong with a Karpenter nodeClassRef.
func CheckNodeClassRef(group, kind, name string) error {
	var p problems
	checkName(&p, "--node-class-group", group, validation.IsDNS1123Subdomain)
	checkName(&p, "--node-class kind", kind, func(s string) []string {
		if !kindRE.MatchString(s) {
			return []string{"want a Kind such as EC2NodeClass (a letter, then letters and digits)"}
		}
		return nil
	})
	checkName(&p, "--node-class name", name, validation.IsDNS1123Subdomain)
	return p.err()
}

var kindRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,62}$`)

// commentLines writes text as "# " lines, one per line of text, so a
// multi-line evidence string cannot break out of the header.
func commentLines(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		b.WriteString("# " + strings.TrimRight(line, "\r\n") + "\n")
	}
	return b.String()
}
