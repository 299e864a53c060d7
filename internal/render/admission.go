package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gpuwise/gpuwise/internal/audit"
	"github.com/gpuwise/gpuwise/internal/policy"
)

// auditJSON is the audit with its admission section (docs/audit.md).
type auditJSON struct {
	*audit.Result
	Admission *policy.Enforcement `json:"admission,omitempty"`
}

// maxWorkloads is how many workloads a rule's row names.
const maxWorkloads = 2

// wouldBlock is a rule's "would block" cell.
func wouldBlock(st policy.RuleState) string {
	b := st.WouldBlock
	switch {
	case b == nil:
		return "disabled"
	case b.Pods == 0:
		return "nothing"
	}
	ws := b.Workloads
	more := ""
	if len(ws) > maxWorkloads {
		more = fmt.Sprintf(" and %d more", len(ws)-maxWorkloads)
		ws = ws[:maxWorkloads]
	}
	return fmt.Sprintf("%s of %s: %s%s", count(b.Pods, "pod"), count(len(b.Workloads), "workload"), strings.Join(ws, ", "), more)
}

// count is "1 pod", "2 pods".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ruleLabel names a rule by its audit ID when it has one.
func ruleLabel(st policy.RuleState) string {
	if st.AuditRule != "" {
		return st.AuditRule
	}
	return st.Rule
}

// writeAdmissionSummary writes the admission section in two lines under
// the audit table: the rules by status, then what they would have blocked.
func writeAdmissionSummary(w io.Writer, e *policy.Enforcement) error {
	if e == nil {
		return nil
	}
	byStatus := map[policy.Status][]string{}
	var order []policy.Status
	var blocked []string
	for _, st := range e.Rules {
		if byStatus[st.Status] == nil {
			order = append(order, st.Status)
		}
		byStatus[st.Status] = append(byStatus[st.Status], ruleLabel(st))
		if b := st.WouldBlock; b != nil && b.Pods > 0 {
			blocked = append(blocked, fmt.Sprintf("%s %s (%s)", ruleLabel(st), count(b.Pods, "pod"), count(len(b.Workloads), "workload")))
		}
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, string(s)+": "+strings.Join(byStatus[s], ", "))
	}
	if len(blocked) == 0 {
		blocked = []string{"nothing"}
	}
	_, err := fmt.Fprintf(w, "Admission rules (gpuwise generate policy): %s.\nEnforcing them would have blocked %s; each rule: gpuwise audit -o wide.\n",
		strings.Join(parts, "; "), strings.Join(blocked, ", "))
	return err
}

// writeAdmissionTable writes the admission section under the findings.
func writeAdmissionTable(w io.Writer, e *policy.Enforcement) error {
	if e == nil {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADMISSION RULE\tAUDIT\tSTATUS\tWOULD HAVE BLOCKED")
	for _, st := range e.Rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.Rule, orDash(st.AuditRule), st.Status, wouldBlock(st))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "Status: the cluster's gpuwise ValidatingAdmissionPolicies (deny = enforced); policies: gpuwise generate policy (docs/policy.md).")
	for _, n := range e.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// admissionDoc adds the admission section to the audit document.
func admissionDoc(d *doc, e *policy.Enforcement) {
	if e == nil {
		return
	}
	d.heading("Admission policies")
	rows := make([][]string, 0, len(e.Rules))
	for _, st := range e.Rules {
		rows = append(rows, []string{st.Rule, orDash(st.AuditRule), string(st.Status), strings.Join(st.Policies, ", "), wouldBlock(st)})
	}
	d.table([]string{"rule", "audit", "status", "policies", "would have blocked"}, rows)
	for _, n := range e.Notes {
		d.item(n)
	}
}
