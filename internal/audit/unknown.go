package audit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Undecided is a rule the snapshot's facts cannot decide for some
// objects: the source could not read a fact it rests on
// (cluster.Snapshot.Unknown). Those objects are neither findings nor
// passes: they are unknown.
type Undecided struct {
	Rule string `json:"rule"`
	Name string `json:"name"`
	// Objects is how many workloads the rule would have flagged (the
	// objects its findings name).
	Objects int `json:"objects"`
	// Facts are the unknown facts it rests on.
	Facts []string `json:"unknown_facts"`
}

// undecidedRule is an Undecided with the workloads counted.
type undecidedRule struct {
	Undecided
	workloads map[string]bool
}

// ruleFacts are the facts each rule rests on that a source may lack.
var ruleFacts = map[string][]string{
	RuleNoToleration:    {cluster.FactTolerations},
	RuleNoModelAffinity: {cluster.FactNodeSelectors, cluster.FactNodeAffinity},
}

// undecidable returns the unknown facts rule rests on (none: decided).
func (a *auditor) undecidable(rule string) []string {
	var out []string
	for _, f := range ruleFacts[rule] {
		if !a.s.Knows(f) {
			out = append(out, f)
		}
	}
	return out
}

// undecided counts an object rule would have flagged but cannot decide;
// false when the rule is decided (the caller reports its hit).
func (a *auditor) undecided(rule string, p *cluster.Pod) bool {
	facts := a.undecidable(rule)
	if len(facts) == 0 {
		return false
	}
	if a.unknown == nil {
		a.unknown = map[string]*undecidedRule{}
	}
	u := a.unknown[rule]
	if u == nil {
		u = &undecidedRule{Undecided: Undecided{Rule: rule, Name: ruleName(rule), Facts: facts}, workloads: map[string]bool{}}
		a.unknown[rule] = u
	}
	u.workloads[p.WorkloadKey()] = true
	u.Objects = len(u.workloads)
	return true
}

// undecidedList is the undecided rules in ID order, with one note each.
func (a *auditor) undecidedList() ([]Undecided, []string) {
	var out []Undecided
	for _, u := range a.unknown {
		out = append(out, u.Undecided)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	var notes []string
	for _, u := range out {
		notes = append(notes, fmt.Sprintf("%s (%s) is unknown for %d workload(s): it rests on %s, which the source could not read",
			u.Rule, u.Name, u.Objects, strings.Join(u.Facts, " and ")))
	}
	return out, notes
}

func ruleName(id string) string {
	for _, r := range Rules {
		if r.ID == id {
			return r.Name
		}
	}
	return id
}
