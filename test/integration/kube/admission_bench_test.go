//go:build integration && admissionbench

package kube

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/flowcontrol"
)

// The cost of enforcement (docs/performance.md): pod creates timed by the
// client, in alternating blocks with every generated policy bound (the
// validating rules and the mutating toleration policy) and with none, and
// the API server's own admission-plugin histogram over the same blocks. The
// pods are compliant (admitted either way) and use a scheduler nobody runs,
// so only the create path is measured.
func TestAdmissionLatency(t *testing.T) {
	n := 2000
	if v := os.Getenv("GPUWISE_ADMISSION_CREATES"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	const blocks = 10 // per phase
	per := n / (2 * blocks)
	ctx, cancel := context.WithTimeout(context.Background(), 18*time.Minute)
	defer cancel()
	_, cfg := admin(t)
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	namespaces(ctx, t, cs, []string{"bench-adm"})
	defer deleteGpuwisePolicies(t, dyn)

	dir := generatePolicies(t, "--engine", "native", "--mode", "deny")
	objs := readObjects(t, filepath.Join(dir, "policy", "native"))
	var bindings []*unstructured.Unstructured
	count := map[string]int{}
	for _, o := range objs {
		count[o.GetKind()]++
		if strings.HasSuffix(o.GetKind(), "Binding") {
			bindings = append(bindings, o)
		} else if _, err := dyn.Resource(gvrOf(o.GetAPIVersion(), o.GetKind())).Namespace(o.GetNamespace()).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	label := fmt.Sprintf("every gpuwise policy (%d VAP, %d VAP bindings; %d MAP)", count["ValidatingAdmissionPolicy"],
		count["ValidatingAdmissionPolicyBinding"], count["MutatingAdmissionPolicy"])
	toggle := func(on bool) {
		for _, b := range bindings {
			r := dyn.Resource(gvrOf(b.GetAPIVersion(), b.GetKind()))
			var err error
			if on {
				_, err = r.Create(ctx, b.DeepCopy(), metav1.CreateOptions{})
			} else {
				err = r.Delete(ctx, b.GetName(), metav1.DeleteOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		waitPolicies(ctx, t, cs, on)
		// The bindings are the policies' params: creating or deleting
		// them also wakes the API server's params informer, whose refresh
		// (recompiling the policies) can land after waitPolicies sees the
		// new state; let it finish outside the timed block, in both arms.
		time.Sleep(settle())
	}
	toggle(true)
	seq := 0
	timed := benchPod
	if os.Getenv("GPUWISE_ADMISSION_POD") == "cpu" {
		timed = cpuPod
	}
	create := func() time.Duration {
		p := timed(seq)
		seq++
		start := time.Now()
		if _, err := cs.CoreV1().Pods("bench-adm").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("compliant pod refused: %v", err)
		}
		return time.Since(start)
	}
	for range 100 { // warm-up: connections, caches, CEL programs
		create()
	}
	var lat [2][]time.Duration
	var plugin [2]map[string]sample
	plugin[0], plugin[1] = map[string]sample{}, map[string]sample{}
	for i := range 2 * blocks {
		on := i%2 == 1
		toggle(on)
		before := scrape(ctx, t, cs)
		for range per {
			lat[b2i(on)] = append(lat[b2i(on)], create())
		}
		after := scrape(ctx, t, cs)
		for k, v := range after {
			s := plugin[b2i(on)][k]
			s.sum += v.sum - before[k].sum
			s.count += v.count - before[k].count
			plugin[b2i(on)][k] = s
		}
	}
	report(t, lat, plugin, n, label)
}

// settle is the pause after each toggle (see toggle): 2 s, or
// GPUWISE_ADMISSION_SETTLE (a duration). Binding a policy again also makes
// the API server compile it again (it keeps compiled only policies that
// have a binding), which a longer pause keeps out of the timed block.
func settle() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("GPUWISE_ADMISSION_SETTLE")); err == nil {
		return d
	}
	return 2 * time.Second
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// benchPod meets every default rule: a team label, the toleration, limits
// equal to requests, one GPU; its scheduler does not exist.
func benchPod(i int) *corev1.Pod {
	p := probe()
	p.Name = fmt.Sprintf("bench-%05d", i)
	p.Namespace = "bench-adm"
	p.Spec.SchedulerName = "gpuwise-bench-none"
	p.Spec.Tolerations = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	return p
}

// cpuPod is a compliant pod without a GPU (GPUWISE_ADMISSION_POD=cpu):
// most of a cluster's creates.
func cpuPod(i int) *corev1.Pod {
	p := benchPod(i)
	p.Spec.Tolerations = nil
	delete(p.Spec.Containers[0].Resources.Limits, "nvidia.com/gpu")
	return p
}

// waitPolicies waits until a pod without cost labels is denied (on) or
// admitted (off), by server-side dry run, and, when on, until the
// mutating policy adds the toleration.
func waitPolicies(ctx context.Context, t *testing.T, cs *kubernetes.Clientset, on bool) {
	t.Helper()
	waitFor(t, fmt.Sprintf("policies on=%v", on), 30*time.Second, func() (bool, string) {
		p := benchPod(99999)
		p.Labels = nil
		_, err := cs.CoreV1().Pods("bench-adm").Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if (err != nil) != on {
			return false, fmt.Sprint(err)
		}
		p = benchPod(99998)
		p.Spec.Tolerations = nil
		if !on {
			return true, ""
		}
		got, err := cs.CoreV1().Pods("bench-adm").Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil && len(got.Spec.Tolerations) > 0, fmt.Sprint(err)
	})
}

// sample is a histogram's sum and count.
type sample struct{ sum, count float64 }

// pluginSeries are the admission-plugin series measured: successful pod
// creates through each policy plugin.
var pluginSeries = map[string]string{
	"ValidatingAdmissionPolicy": `name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"`,
	"MutatingAdmissionPolicy":   `name="MutatingAdmissionPolicy",operation="CREATE",rejected="false",type="admit"`,
}

// cpuSeries is the API server's own CPU time (user + system, from /proc):
// its difference per create between the blocks is the policies' CPU cost,
// which, unlike wall time, does not grow when other jobs share the cores.
const cpuSeries = "process_cpu_seconds_total"

// scrape reads the API server's admission-plugin histograms and its CPU time.
func scrape(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) map[string]sample {
	t.Helper()
	body, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sample{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	const metric = "apiserver_admission_controller_admission_duration_seconds"
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, cpuSeries+" ") {
			v, _ := strconv.ParseFloat(strings.TrimPrefix(line, cpuSeries+" "), 64)
			out[cpuSeries] = sample{sum: v}
		}
		for name, labels := range pluginSeries {
			for suffix, set := range map[string]func(*sample, float64){
				"_sum{": func(s *sample, v float64) { s.sum = v }, "_count{": func(s *sample, v float64) { s.count = v }} {
				if strings.HasPrefix(line, metric+suffix+labels+"}") {
					v, _ := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
					s := out[name]
					set(&s, v)
					out[name] = s
				}
			}
		}
	}
	return out
}

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d.Microseconds())/1000) }

// report logs the result as the table docs/performance.md carries, and
// checks what can be checked on a noisy machine: every create was timed
// and, with the policies bound, each one went through both policy plugins.
func report(t *testing.T, lat [2][]time.Duration, plugin [2]map[string]sample, n int, label string) {
	var b strings.Builder
	host, _ := os.Hostname()
	kind := "GPU"
	if os.Getenv("GPUWISE_ADMISSION_POD") == "cpu" {
		kind = "non-GPU"
	}
	fmt.Fprintf(&b, "machine: %s, %d CPUs, %s; %d creates of %s pods, alternating blocks of %d\n", host, runtime.NumCPU(), runtime.Version(), n, kind, len(lat[0])/10)
	fmt.Fprintln(&b, "| policies | creates | client p50 ms | client p99 ms | client mean ms | VAP plugin mean ms | MAP plugin mean ms | apiserver CPU ms / create |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|")
	for i, name := range []string{"none", label} {
		v, m := plugin[i]["ValidatingAdmissionPolicy"], plugin[i]["MutatingAdmissionPolicy"]
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %.3f |\n", name, len(lat[i]), ms(quantile(lat[i], 0.5)), ms(quantile(lat[i], 0.99)),
			ms(mean(lat[i])), meanMS(v), meanMS(m), plugin[i][cpuSeries].sum/float64(len(lat[i]))*1000)
	}
	added := quantile(lat[1], 0.99) - quantile(lat[0], 0.99)
	fmt.Fprintf(&b, "added p99: %s ms (target < 1 ms: %v); added p50: %s ms\n", ms(added), added < time.Millisecond,
		ms(quantile(lat[1], 0.5)-quantile(lat[0], 0.5)))
	t.Log("\n" + b.String())
	if out := os.Getenv("GPUWISE_BENCH_OUT"); out != "" {
		os.WriteFile(out, []byte(b.String()), 0o644)
	}
	for i := range plugin {
		if plugin[i][cpuSeries].sum <= 0 {
			t.Errorf("API server CPU time in phase %d: %v s, want > 0 (is %s still served?)", i, plugin[i][cpuSeries].sum, cpuSeries)
		}
	}
	if len(lat[0])+len(lat[1]) != n-n%20 {
		t.Errorf("timed %d creates, want %d", len(lat[0])+len(lat[1]), n-n%20)
	}
	for _, name := range []string{"ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"} {
		if got := plugin[1][name].count; got < float64(len(lat[1])) {
			t.Errorf("%s admitted %v creates with the policies bound, want at least %d", name, got, len(lat[1]))
		}
	}
}

func meanMS(s sample) string {
	if s.count == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", s.sum/s.count*1000)
}
