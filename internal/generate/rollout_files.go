package generate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// RolloutFiles stages the changes (Stage) and writes rollout/waves.md and,
// per wave, rollout/wave-NN/apply.sh (kubectl patch with the patch files
// Patches writes), rollback.sh (patches back to the snapshot's values) and
// check.sh (read-only checks to run before the next wave). The scripts
// cd to the output directory first, so they work from anywhere.
func RolloutFiles(r Rollout) ([]File, error) {
	pl, err := Stage(r)
	if err != nil {
		return nil, err
	}
	if len(pl.Waves) == 0 && len(pl.Applied) == 0 {
		return nil, nil
	}
	files := []File{{Path: "rollout/waves.md", Data: []byte(pl.markdown(r.WavePercent))}}
	for _, w := range pl.Waves {
		dir := w.dir()
		rb, err := w.rollback(len(pl.Waves))
		if err != nil {
			return nil, err
		}
		files = append(files,
			File{Path: dir + "/apply.sh", Data: []byte(w.apply(len(pl.Waves)))},
			File{Path: dir + "/check.sh", Data: []byte(w.check(len(pl.Waves)))},
			File{Path: dir + "/rollback.sh", Data: []byte(rb)})
	}
	sortFiles(files)
	return files, nil
}

func (w Wave) dir() string { return "rollout/" + w.name() }

func (w Wave) name() string { return fmt.Sprintf("wave-%02d", w.Number) }

// usd writes cents as "$12,345.67".
func usd(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	whole := strconv.FormatInt(c/100, 10)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, whole, c%100)
}

const safestRule = "safest first: the savings ledger's risk of the change (low, then medium or not graded, then high), " +
	"CPU/memory-only changes before GPU shape swaps, then the smallest largest relative change of any request or limit, then the workload's name"

// markdown is waves.md: the schedule, each wave's workloads and money,
// and the checks between waves.
func (pl *Plan) markdown(pct int) string {
	var b strings.Builder
	n := 0
	for _, w := range pl.Waves {
		n += len(w.Changes)
	}
	fmt.Fprintf(&b, "# Rollout: %d workloads in %d waves\n\n", n, len(pl.Waves))
	if len(pl.Applied) > 0 {
		fmt.Fprintf(&b, "%d more were applied before (--wave-history; see \"Applied before\"); the waves keep the pace of all %d.\n\n", len(pl.Applied), n+len(pl.Applied))
	}
	fmt.Fprintf(&b, "One wave a day, %d %% of the workloads per wave (--wave-percent; the seeds' pace is 10 %%), ordered %s.\n\n", pct, safestRule)
	b.WriteString("Dollars are the savings ledger's (`gpuwise advise`), per month: the right-size and GPU-shape levers' actions, " +
		"each action's saving split among its workloads in proportion to right-sizing's estimate of what each change frees " +
		"(equally where none is positive), to the cent. A workload the ledger counts nothing for carries $0.00.\n\n")
	b.WriteString("Run every script from anywhere (each changes to this output directory first); kubectl uses $KUBECONFIG, or $KUBECTL if set.\n\n")
	b.WriteString("| wave | day | workloads | ledger $/month |\n|---:|---:|---:|---:|\n")
	for _, w := range pl.Waves {
		fmt.Fprintf(&b, "| %d | %d | %d | %s |\n", w.Number, w.Day, len(w.Changes), usd(w.Total()))
	}
	var outside int64
	for _, o := range pl.Outside {
		outside += o.Cents
	}
	if len(pl.Outside) > 0 {
		fmt.Fprintf(&b, "| not in a wave | | %d | %s |\n", len(pl.Outside), usd(outside))
	}
	if len(pl.Applied) > 0 {
		var done int64
		for _, o := range pl.Applied {
			done += o.Cents
		}
		fmt.Fprintf(&b, "| applied before (--wave-history) | | %d | %s |\n", len(pl.Applied), usd(done))
	}
	fmt.Fprintf(&b, "| **total** | | | **%s** |\n\n", usd(pl.Total))
	pl.actions(&b)
	b.WriteString(betweenWaves)
	for _, w := range pl.Waves {
		fmt.Fprintf(&b, "\n## Wave %d (day %d): %s\n\n", w.Number, w.Day, usd(w.Total()))
		next := fmt.Sprintf("before wave %d", w.Number+1)
		if w.Number == len(pl.Waves) {
			next = "to close the rollout"
		}
		fmt.Fprintf(&b, "Apply `%s/apply.sh`; a day later run `%s/check.sh` (read-only; exit 1 names each red flag) %s; "+
			"undo with `%s/rollback.sh`.\n\n", w.dir(), w.dir(), next, w.dir())
		b.WriteString("| workload | change | ledger risk | ledger actions | ledger $/month |\n|---|---|---|---|---:|\n")
		for i, c := range w.Changes {
			acts := strings.Join(pl.shares[c.Key].actions, ", ")
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Key, c.describe(), cmpOr(c.Risk, "not graded"), cmpOr(acts, "none"), usd(w.Cents[i]))
		}
	}
	if len(pl.Applied) > 0 {
		b.WriteString("\n## Applied before\n\nThe wave history (--wave-history) says these were applied and not rolled back; no new wave repeats them:\n\n")
		b.WriteString("| workload | when | ledger $/month |\n|---|---|---:|\n")
		for _, o := range pl.Applied {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", o.Workload, o.Why, usd(o.Cents))
		}
	}
	if len(pl.Outside) > 0 {
		b.WriteString("\n## Not in a wave\n\nThe savings ledger counts these workloads' changes, but no patch changes them:\n\n")
		b.WriteString("| workload | why | ledger $/month |\n|---|---|---:|\n")
		for _, o := range pl.Outside {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", o.Workload, strings.ReplaceAll(o.Why, "|", "/"), usd(o.Cents))
		}
	}
	return b.String()
}

// actions lists the ledger actions the waves carry, or says there are
// none.
func (pl *Plan) actions(b *strings.Builder) {
	if len(pl.Actions) == 0 {
		b.WriteString("The savings ledger counts no right-size or GPU-shape action on this data (`gpuwise advise` says why under not counted), " +
			"so every wave carries $0.00; the patches are still the recommendations.\n\n")
		return
	}
	b.WriteString("| ledger action | workloads | ledger $/month | note |\n|---|---:|---:|---|\n")
	for _, a := range pl.Actions {
		fmt.Fprintf(b, "| %s %s | %d | %s | %s |\n", a.ID, a.Title, len(a.Workloads), usd(a.Cents), strings.ReplaceAll(a.Note, "|", "/"))
	}
	b.WriteString("\n")
}

const betweenWaves = `## Between waves

Wait a day after each wave, then run its check.sh. Roll the wave back (rollback.sh) and stop on any of the seeds' red flags:

- **OOMKilled restarts** of the wave's pods (right-sizing cut memory too far): roll back, add 10–20 % memory; more than twice, raise it in +10 % steps.
- **Pods Pending** after the change (the new request or GPU resource fits no node, or no MIG device of that profile is free).
- **CPU throttling** above 25 % of CFS periods over the day (the CPU limit is now too low).
- **GPU utilization below 20 %** after a GPU shape change (the MIG profile or time-slice share is still too large).
- **Cost up** after the change (` + "`gpuwise report --compare`" + ` on the days before and after).

check.sh asks the apiserver (rollout status, OOMKilled, Pending) and, with $PROMETHEUS_URL set, Prometheus
(kube-state-metrics, cAdvisor and DCGM over the last day); it changes nothing.
`

func cmpOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// describe is the change to the workload in one line.
func (s Staged) describe() string {
	var parts []string
	for _, c := range s.Patch.Containers {
		cur := s.current(c.Name)
		var ch []string
		add := func(what string, now, before int64, format func(int64) string) {
			if now > 0 && now != before {
				ch = append(ch, fmt.Sprintf("%s %s → %s", what, orNone(before, format), format(now)))
			}
		}
		add("requests.cpu", c.CPURequestMilli, cur.CPURequestMilli, milliCPU)
		add("limits.cpu", c.CPULimitMilli, cur.CPULimitMilli, milliCPU)
		if c.RemoveCPULimit {
			ch = append(ch, "limits.cpu "+orNone(cur.CPULimitMilli, milliCPU)+" → none")
		}
		add("requests.memory", c.MemoryRequestBytes, cur.MemoryRequestBytes, bytesQuantity)
		add("limits.memory", c.MemoryLimitBytes, cur.MemoryLimitBytes, bytesQuantity)
		if g := c.GPU; g != nil {
			ch = append(ch, fmt.Sprintf("%s → %s %d", cmpOr(cur.GPUResource, "no GPU"), g.Resource, g.Count))
		}
		if len(ch) == 0 {
			ch = append(ch, "as it is")
		}
		parts = append(parts, c.Name+": "+strings.Join(ch, ", "))
	}
	return strings.Join(parts, "; ")
}

func orNone(v int64, format func(int64) string) string {
	if v <= 0 {
		return "none"
	}
	return format(v)
}

const scriptHead = "#!/bin/sh\n"

func (w Wave) header(b *strings.Builder, waves int, what string) {
	b.WriteString(scriptHead)
	fmt.Fprintf(b, "# gpuwise rollout, wave %d of %d (day %d): %s\n", w.Number, waves, w.Day, what)
	b.WriteString("# Runs from the output directory of `gpuwise generate resources -d DIR`; kubectl: $KUBECTL, default kubectl.\n")
	if what != checkWhat {
		b.WriteString("# Each patch is recorded in $GPUWISE_WAVE_HISTORY (default rollout/history.tsv): pass it to --wave-history.\n")
	}
}

const checkWhat = "read-only checks before the next wave (exit 1 names each red flag); changes nothing"

// apply.sh patches the wave's workloads with their patch files.
func (w Wave) apply(waves int) string {
	var b strings.Builder
	w.header(&b, waves, fmt.Sprintf("apply the resource patches of %d workload(s); see rollout/waves.md", len(w.Changes)))
	fmt.Fprintf(&b, "# Next: a day later, sh %s/check.sh; to undo, sh %s/rollback.sh.\n", w.dir(), w.dir())
	b.WriteString("set -eu\ncd \"$(dirname \"$0\")/../..\"\nKUBECTL=${KUBECTL:-kubectl}\n" + historyHelpers)
	for _, c := range w.Changes {
		wl := c.Patch.Workload
		fmt.Fprintf(&b, "\"$KUBECTL\" patch %s %s -n %s --type strategic --patch-file %s\n", wl.lowerKind(), wl.Name, wl.Namespace, c.Patch.path())
		fmt.Fprintf(&b, "record %s %s %s\n", historyApplied, w.name(), c.Key)
	}
	return b.String()
}

// rollback.sh patches the wave's workloads back to the snapshot's values,
// in the reverse order of apply.sh.
func (w Wave) rollback(waves int) (string, error) {
	var b strings.Builder
	w.header(&b, waves, "patch the wave's workloads back to the values the snapshot showed before it")
	b.WriteString("set -eu\ncd \"$(dirname \"$0\")/../..\"\nKUBECTL=${KUBECTL:-kubectl}\n" + historyHelpers)
	for _, c := range slices.Backward(w.Changes) {
		body, err := json.Marshal(c.rollbackPatch())
		if err != nil {
			return "", fmt.Errorf("rollback of %s: encoding: %w", c.Patch.Workload, err)
		}
		wl := c.Patch.Workload
		fmt.Fprintf(&b, "\"$KUBECTL\" patch %s %s -n %s --type strategic -p '%s'\n", wl.lowerKind(), wl.Name, wl.Namespace, body)
		fmt.Fprintf(&b, "record %s %s %s\n", historyRolledBack, w.name(), c.Key)
	}
	return b.String(), nil
}

// rollbackPatch is the strategic-merge patch that sets every value the
// forward patch sets back to the snapshot's (deleting the keys the
// snapshot did not have), and gives back the GPU resource a swap took.
func (s Staged) rollbackPatch() map[string]any {
	containers := make([]any, 0, len(s.Patch.Containers))
	for _, c := range s.Patch.Containers {
		cur := s.current(c.Name)
		requests, limits := map[string]any{}, map[string]any{}
		if c.CPURequestMilli > 0 {
			requests["cpu"] = restore(cur.CPURequestMilli, milliCPU)
		}
		if c.CPULimitMilli > 0 || c.RemoveCPULimit {
			limits["cpu"] = restore(cur.CPULimitMilli, milliCPU)
		}
		if c.MemoryRequestBytes > 0 {
			requests["memory"] = restore(cur.MemoryRequestBytes, bytesQuantity)
		}
		if c.MemoryLimitBytes > 0 {
			limits["memory"] = restore(cur.MemoryLimitBytes, bytesQuantity)
		}
		if g := c.GPU; g != nil {
			requests[g.Resource], limits[g.Resource] = nil, nil
			if cur.GPUResource != "" && cur.GPUResource != g.Resource {
				n := resource.NewQuantity(max(cur.GPUCount, 1), resource.DecimalSI).String()
				requests[cur.GPUResource], limits[cur.GPUResource] = n, n
			}
		}
		res := map[string]any{}
		if len(requests) > 0 {
			res["requests"] = requests
		}
		if len(limits) > 0 {
			res["limits"] = limits
		}
		containers = append(containers, map[string]any{"name": c.Name, "resources": res})
	}
	spec := map[string]any{"template": map[string]any{"spec": map[string]any{"containers": containers}}}
	if s.Patch.Workload.Kind == CronJob {
		spec = map[string]any{"jobTemplate": map[string]any{"spec": spec}}
	}
	return map[string]any{"spec": spec}
}

// restore is the value to set back: the snapshot's, or nil (delete the
// key) where it had none.
func restore(v int64, format func(int64) string) any {
	if v <= 0 {
		return nil
	}
	return format(v)
}

// check.sh runs the read-only checks between waves: rollout status,
// OOMKilled and Pending pods from the apiserver, and with PROMETHEUS_URL
// the PromQL red flags over the last day. It exits 1 when any fires.
func (w Wave) check(waves int) string {
	var b strings.Builder
	w.header(&b, waves, checkWhat)
	b.WriteString("# With PROMETHEUS_URL set it also asks Prometheus (kube-state-metrics, cAdvisor, DCGM) about the last day.\n")
	b.WriteString(checkPrelude)
	for _, c := range w.Changes {
		wl := c.Patch.Workload
		pods := wl.Name + "-"
		fmt.Fprintf(&b, "\n# %s\n", wl)
		if wl.Kind != CronJob {
			fmt.Fprintf(&b, "\"$KUBECTL\" rollout status %s/%s -n %s --timeout=\"$TIMEOUT\" >/dev/null || flag \"%s has not finished rolling out\"\n",
				wl.lowerKind(), wl.Name, wl.Namespace, wl)
		}
		fmt.Fprintf(&b, "pods %s %s OOMKilled \"%s: OOMKilled restarts since the change: roll back, then add 10-20%% memory\"\n", wl.Namespace, pods, wl)
		fmt.Fprintf(&b, "pods %s %s Pending \"%s: pods Pending: the new request fits no node\"\n", wl.Namespace, pods, wl)
		sel := fmt.Sprintf(`namespace="%s",pod=~"%s.*"`, wl.Namespace, strings.ReplaceAll(pods, ".", "[.]"))
		fmt.Fprintf(&b, "promql '%s' \"%s: OOMKilled in the last day\"\n",
			fmt.Sprintf(`max(kube_pod_container_status_last_terminated_reason{%s,reason="OOMKilled"}) > 0`, sel), wl)
		fmt.Fprintf(&b, "promql '%s' \"%s: CPU throttled in over 25%% of periods\"\n",
			fmt.Sprintf(`sum(rate(container_cpu_cfs_throttled_periods_total{%s}[1d])) / sum(rate(container_cpu_cfs_periods_total{%s}[1d])) > 0.25`, sel, sel), wl)
		if swapsGPU(c) == 1 {
			fmt.Fprintf(&b, "promql '%s' \"%s: GPU utilization below 20%% after the shape change\"\n",
				fmt.Sprintf(`avg(avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{%s}[1d])) < 0.2`, sel), wl)
		}
	}
	b.WriteString("\nif [ \"$fail\" -ne 0 ]; then\n  echo \"red flags above: roll this wave back (sh $(dirname \"$0\")/rollback.sh) before the next\" >&2\n  exit 1\nfi\necho \"no red flag: the next wave can go\"\n")
	return b.String()
}

const checkPrelude = `set -u
KUBECTL=${KUBECTL:-kubectl}
TIMEOUT=${TIMEOUT:-60s}
fail=0
flag() { echo "red flag: $1" >&2; fail=1; }
# pods NAMESPACE PREFIX WHAT MESSAGE: flag when a pod named PREFIX* shows WHAT
# (a container's last termination reason, or the pod's phase).
pods() {
  n=$("$KUBECTL" get pods -n "$1" -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.phase}{" "}{.status.containerStatuses[*].lastState.terminated.reason}{"\n"}{end}' |
    grep "^$2" | grep -c " $3" || true)
  [ "$n" -eq 0 ] || flag "$4 ($n pods)"
}
# promql QUERY MESSAGE: flag when the instant query returns a series.
promql() {
  [ -n "${PROMETHEUS_URL:-}" ] || return 0
  out=$(curl -fsS "$PROMETHEUS_URL/api/v1/query" --data-urlencode "query=$1") || { flag "Prometheus did not answer: $1"; return; }
  case "$out" in *'"result":[]'*) ;; *) flag "$2" ;; esac
}
`
