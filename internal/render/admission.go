package render

import (
	"fmt"
	"strings"

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

// admissionSummary adds the admission section in two lines under
// the audit table: the rules by status, then what they would have blocked.
func admissionSummary(d *doc, e *policy.Enforcement) {
	if e == nil {
		return
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
	d.linef("Admission rules (gpuwise generate policy): %s.", strings.Join(parts, "; "))
	d.linef("Enforcing them would have blocked %s; each rule: gpuwise audit -o wide.", strings.Join(blocked, ", "))
}

// admissionTable adds the admission section under the findings.
func admissionTable(d *doc, e *policy.Enforcement) {
	if e == nil {
		return
	}
	d.line("")
	rows := make([][]string, 0, len(e.Rules))
	for _, st := range e.Rules {
		rows = append(rows, []string{st.Rule, orDash(st.AuditRule), string(st.Status), wouldBlock(st)})
	}
	d.tableTight([]string{"ADMISSION RULE", "AUDIT", "STATUS", "WOULD HAVE BLOCKED"}, rows)
	d.line("Status: the cluster's gpuwise ValidatingAdmissionPolicies (deny = enforced); policies: gpuwise generate policy (docs/policy.md).")
	noteLines(d, e.Notes)
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
