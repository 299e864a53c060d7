//go:build integration

package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuwise/gpuwise/internal/cli"
	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/cost"
	"github.com/gpuwise/gpuwise/internal/kube"
	"github.com/gpuwise/gpuwise/internal/nodeprice"
	"github.com/gpuwise/gpuwise/internal/pricing"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

const (
	draNS   = "dra-ml"
	draNode = "dra-a100"
)

var draTaint = corev1.Taint{Key: "gpuwise.io/dra-test", Value: "only", Effect: corev1.TaintEffectNoSchedule}

func sp(s string) *string { return &s }

// draDevices are what NVIDIA's DRA driver publishes for a p4d node with
// three whole A100-40GBs and one in static MIG mode (docs/dra.md).
func draDevices() []resourcev1.Device {
	attrs := func(kv ...string) map[resourcev1.QualifiedName]resourcev1.DeviceAttribute {
		m := map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[resourcev1.QualifiedName(kv[i])] = resourcev1.DeviceAttribute{StringValue: sp(kv[i+1])}
		}
		return m
	}
	const product = "NVIDIA A100-SXM4-40GB"
	var ds []resourcev1.Device
	for i := range 3 {
		ds = append(ds, resourcev1.Device{Name: fmt.Sprintf("gpu-%d", i),
			Attributes: attrs("type", "gpu", "uuid", fmt.Sprintf("GPU-%d", i), "productName", product),
			Capacity:   map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}}})
	}
	for _, m := range []struct{ name, profile string }{
		{"gpu-3-mig-1g5gb-19-0", "1g.5gb"}, {"gpu-3-mig-1g5gb-19-1", "1g.5gb"}, {"gpu-3-mig-3g20gb-9-4", "3g.20gb"},
	} {
		ds = append(ds, resourcev1.Device{Name: m.name,
			Attributes: attrs("type", "mig", "uuid", "MIG-"+m.name, "parentUUID", "GPU-3", "profile", m.profile, "productName", product)})
	}
	return ds
}

// draPod asks its claim (a template's or a named one) and tolerates the
// test's taint.
func draPod(name string, claim corev1.PodResourceClaim) *corev1.Pod {
	no := false
	claim.Name = "gpu"
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: draNS, Name: name}, Spec: corev1.PodSpec{
		AutomountServiceAccountToken: &no, NodeSelector: map[string]string{"kubernetes.io/hostname": draNode},
		Tolerations:    []corev1.Toleration{{Key: draTaint.Key, Operator: corev1.TolerationOpExists}},
		ResourceClaims: []corev1.PodResourceClaim{claim},
		Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/app:1", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{"cpu": resource.MustParse("2"), "memory": resource.MustParse("8Gi")},
			Claims:   []corev1.ResourceClaim{{Name: "gpu"}}}}}}}
}

func exactly(class string, selectors ...string) resourcev1.DeviceClaim {
	r := &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}
	for _, s := range selectors {
		r.Selectors = append(r.Selectors, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: s}})
	}
	return resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: r}}}
}

// TestDRAClaimsBilledToTheirPods: the real scheduler allocates
// ResourceClaims from the ResourceSlice the test publishes (the
// controller-manager makes the templates' claims): a whole GPU, a MIG
// device by CEL selector and a GPU one claim shares between two pods.
// gpuwise collects the cluster with the shipped read-only role, and its
// report bills each device to the pods the claims' status names: each
// pod's GPU-hours are its device's share (1, 1/7, 1/2) of its held time,
// its GPU dollars those hours at the node's GPU price, to the cent.
func TestDRAClaimsBilledToTheirPods(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, cfg := admin(t)
	ensureNamespace(ctx, t, cs, draNS)
	t.Cleanup(func() { deleteDRA(cs) })
	createDRA(ctx, t, cs)
	pods := []*corev1.Pod{
		draPod("whole", corev1.PodResourceClaim{ResourceClaimTemplateName: sp("one-gpu")}),
		draPod("mig", corev1.PodResourceClaim{ResourceClaimTemplateName: sp("mig-1g5gb")}),
		draPod("share-a", corev1.PodResourceClaim{ResourceClaimName: sp("shared-gpu")}),
		draPod("share-b", corev1.PodResourceClaim{ResourceClaimName: sp("shared-gpu")}),
	}
	for _, p := range pods {
		if _, err := cs.CoreV1().Pods(draNS).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s: %v", p.Name, err)
		}
	}
	waitFor(t, "DRA pods running with allocated claims", 90*time.Second, func() (bool, string) {
		l, err := cs.CoreV1().Pods(draNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var not []string
		for _, p := range l.Items {
			if p.Status.Phase != corev1.PodRunning || p.Status.StartTime == nil {
				not = append(not, p.Name+" "+string(p.Status.Phase))
			}
		}
		return len(l.Items) == len(pods) && len(not) == 0, strings.Join(not, ", ")
	})
	want := claimedUnits(ctx, t, cs)

	ensureNamespace(ctx, t, cs, "gpuwise")
	reader := serviceAccountKubeconfig(ctx, t, cs, cfg, "gpuwise", true)
	path := filepath.Join(t.TempDir(), "dra.gwsnap")
	if _, errOut, code := execute(t, "collect", "--kubeconfig", reader, "-o", path); code != cli.ExitOK {
		t.Fatalf("collect exit %d: %s", code, errOut)
	}
	s, err := snapshot.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Partial) > 0 {
		t.Errorf("collect with the shipped role is partial: %q", s.Partial)
	}
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	start := map[string]time.Time{}
	frac := map[string]float64{}
	for _, pod := range p.Pods() {
		if pod.Namespace != draNS {
			continue
		}
		start[pod.Name] = pod.Start
		for _, h := range pod.GPUs {
			ref := p.Index().Units[h.UnitID]
			// The snapshot's unit is the claim's device (a shared claim's
			// GPU split into one share per pod).
			got[pod.Name] = append(got[pod.Name], ref.Unit.Device)
			frac[pod.Name] += ref.Unit.Fraction
			if cluster.Mechanism(ref.GPU, ref.Unit) != cluster.ViaDRA {
				t.Errorf("pod %s unit %s: mechanism %s, want dra", pod.Name, h.UnitID, cluster.Mechanism(ref.GPU, ref.Unit))
			}
		}
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("units by pod: the API's claims say %v, the snapshot %v", want, got)
	}
	wantFrac := map[string]float64{"whole": 1, "mig": 1.0 / 7, "share-a": 0.5, "share-b": 0.5}
	for name, f := range wantFrac {
		if math.Abs(frac[name]-f) > 1e-12 {
			t.Errorf("pod %s holds %v of a GPU, want %v", name, frac[name], f)
		}
	}
	checkDRABill(t, path, s, start, wantFrac)
	checkWatchedDRA(ctx, t, reader, s, want, start, wantFrac)

	// The DRA pods are GPU pods: the audit does not call them non-GPU pods.
	out, errOut, code := execute(t, "audit", "--kubeconfig", reader, "-o", "json")
	if code != cli.ExitOK && code != cli.ExitFindings {
		t.Fatalf("audit exit %d: %s", code, errOut)
	}
	if strings.Contains(out, draNS+"/") && strings.Contains(out, "pods that request no GPU run on GPU node "+draNode) {
		t.Errorf("audit calls the DRA pods non-GPU pods:\n%s", out)
	}
	inv, errOut, code := execute(t, "inventory", "--kubeconfig", reader)
	if code != cli.ExitOK || !strings.Contains(inv, "DRA drivers: gpu.nvidia.com (6 devices)") || !strings.Contains(inv, "mig.nvidia.com") {
		t.Errorf("inventory exit %d (%s) does not list the DRA driver and classes:\n%s", code, errOut, inv)
	}
}

// checkWatchedDRA: serve's watcher, with the same shipped role, sees the
// same DRA units held by the same pods as collect, and the report of its
// snapshot bills them the same dollars, to the cent.
func checkWatchedDRA(ctx context.Context, t *testing.T, kubeconfig string, listed *cluster.Snapshot, want map[string][]string, start map[string]time.Time, frac map[string]float64) {
	t.Helper()
	c, err := kube.Connect(kube.Options{Kubeconfig: kubeconfig, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, time.Now)
	if err != nil {
		t.Fatalf("watch with the shipped role: %v", err)
	}
	defer w.Stop()
	ws, err := w.Snapshot(listed.Window.End, listed.Window.End.Sub(listed.Window.Start))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Partial) > 0 || ws.DRA == nil || len(ws.DRA.Claims) != len(listed.DRA.Claims) {
		t.Fatalf("watched snapshot: partial %q, DRA %+v; collect read %d claims", ws.Partial, ws.DRA, len(listed.DRA.Claims))
	}
	p, err := cluster.Prepare(ws)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, pod := range p.Pods() {
		for _, h := range pod.GPUs {
			if pod.Namespace == draNS {
				got[pod.Name] = append(got[pod.Name], p.Index().Units[h.UnitID].Unit.Device)
			}
		}
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("units by pod: the API's claims say %v, the watcher's snapshot %v", want, got)
	}
	path := filepath.Join(t.TempDir(), "watched.gwsnap")
	if err := snapshot.WriteFile(path, ws); err != nil {
		t.Fatal(err)
	}
	checkDRABill(t, path, ws, start, frac)
}

// claimedUnits is, per pod, the devices the claims' allocation status
// gives it: every device of each claim reserved for the pod.
func claimedUnits(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) map[string][]string {
	t.Helper()
	var claims *resourcev1.ResourceClaimList
	waitFor(t, "claims allocated and reserved", 30*time.Second, func() (bool, string) {
		var err error
		claims, err = cs.ResourceV1().ResourceClaims(draNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, c := range claims.Items {
			if c.Status.Allocation == nil || len(c.Status.ReservedFor) == 0 {
				return false, "claim " + c.Name + " not allocated and reserved"
			}
		}
		return len(claims.Items) == 3, fmt.Sprintf("%d claims", len(claims.Items))
	})
	out := map[string][]string{}
	for _, c := range claims.Items {
		for _, r := range c.Status.ReservedFor {
			for _, d := range c.Status.Allocation.Devices.Results {
				out[r.Name] = append(out[r.Name], d.Device)
			}
		}
	}
	for k := range out {
		sort.Strings(out[k])
	}
	if out["share-a"] == nil || fmt.Sprint(out["share-a"]) != fmt.Sprint(out["share-b"]) {
		t.Fatalf("the shared claim is not reserved for both pods: %v", out)
	}
	return out
}

// checkDRABill: the report by pod of the collected snapshot bills each
// pod its share of its device over its held time at the node's GPU price.
func checkDRABill(t *testing.T, path string, s *cluster.Snapshot, start map[string]time.Time, frac map[string]float64) {
	t.Helper()
	out, errOut, code := execute(t, "report", "--from", path, "--by", "pod", "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("report exit %d: %s", code, errOut)
	}
	var r cost.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var node *cluster.Node
	for i := range s.Nodes {
		if s.Nodes[i].Name == draNode {
			node = &s.Nodes[i]
		}
	}
	if node == nil || node.GPUModel != "A100-40GB" || len(node.GPUs) != 4 {
		t.Fatalf("DRA node in the snapshot: %+v", node)
	}
	// The embedded catalog, as report prices the node.
	price, err := pricing.Embedded().Price(nodeprice.Spec(node))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]cost.Row{}
	for _, row := range r.Rows {
		rows[row.Key] = row
	}
	for name, f := range frac {
		row, ok := rows[draNS+"/"+name]
		if !ok {
			t.Errorf("no report row for pod %s", name)
			continue
		}
		held := s.Window.End.Sub(start[name]).Hours()
		hours := f * held
		if math.Abs(row.GPUHours.Allocated-hours) > 1e-9 {
			t.Errorf("pod %s: %v allocated GPU-hours, want %v × %v h", name, row.GPUHours.Allocated, f, held)
		}
		usd := row.GPUCost.Active + row.GPUCost.AllocatedIdle + row.GPUCost.Unmeasured
		if math.Round(usd*100) != math.Round(hours*price.GPUUSDPerHour*100) || math.Abs(row.GPUCost.Unmeasured-usd) > 1e-9 {
			t.Errorf("pod %s: GPU $%v (unmeasured $%v), want %v GPU-h × $%v = $%.2f, all unmeasured (no usage source)",
				name, usd, row.GPUCost.Unmeasured, hours, price.GPUUSDPerHour, hours*price.GPUUSDPerHour)
		}
	}
}

func createDRA(ctx context.Context, t *testing.T, cs *kubernetes.Clientset) {
	t.Helper()
	n := kwokNode(draNode, awsLabels("p4d.24xlarge", "on-demand"), []corev1.Taint{draTaint}, "aws:///us-east-1a/i-dra",
		"cpu", "96", "memory", "1152Gi")
	if _, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating node: %v", err)
	}
	r := cs.ResourceV1()
	for _, c := range []resourcev1.DeviceClass{
		{ObjectMeta: metav1.ObjectMeta{Name: cluster.DRAGPUClass}, Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: cluster.DRAMIGClass}, Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"}}}}},
	} {
		if _, err := r.DeviceClasses().Create(ctx, &c, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating device class %s: %v", c.Name, err)
		}
	}
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: draNode + "-gpu.nvidia.com"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: cluster.DRAGPUDriver, NodeName: sp(draNode), Devices: draDevices(),
		Pool: resourcev1.ResourcePool{Name: draNode, Generation: 1, ResourceSliceCount: 1}}}
	if _, err := r.ResourceSlices().Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating resource slice: %v", err)
	}
	for _, tpl := range []*resourcev1.ResourceClaimTemplate{
		{ObjectMeta: metav1.ObjectMeta{Namespace: draNS, Name: "one-gpu"},
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: exactly(cluster.DRAGPUClass)}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: draNS, Name: "mig-1g5gb"},
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: exactly(cluster.DRAMIGClass, cluster.DRAMIGSelector("1g.5gb"))}}},
	} {
		if _, err := r.ResourceClaimTemplates(draNS).Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating claim template %s: %v", tpl.Name, err)
		}
	}
	shared := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: draNS, Name: "shared-gpu"},
		Spec: resourcev1.ResourceClaimSpec{Devices: exactly(cluster.DRAGPUClass)}}
	if _, err := r.ResourceClaims(draNS).Create(ctx, shared, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating shared claim: %v", err)
	}
}

// deleteDRA removes what the test made, so the tests after it see the
// cluster they expect.
func deleteDRA(cs *kubernetes.Clientset) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	zero := int64(0)
	_ = cs.CoreV1().Pods(draNS).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
	_ = cs.ResourceV1().ResourceClaims(draNS).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_ = cs.ResourceV1().ResourceClaimTemplates(draNS).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_ = cs.ResourceV1().ResourceSlices().Delete(ctx, draNode+"-gpu.nvidia.com", metav1.DeleteOptions{})
	_ = cs.CoreV1().Nodes().Delete(ctx, draNode, metav1.DeleteOptions{})
	for _, c := range []string{cluster.DRAGPUClass, cluster.DRAMIGClass} {
		_ = cs.ResourceV1().DeviceClasses().Delete(ctx, c, metav1.DeleteOptions{})
	}
	for range 100 {
		l, err := cs.CoreV1().Pods(draNS).List(ctx, metav1.ListOptions{})
		if err == nil && len(l.Items) == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestDRAModelSelectorAllocatedByTheScheduler: the claim right-sizing
// writes for a DRA workload's cheaper GPU model (cluster.DRAModelSelector,
// docs/recommendations.md) is accepted by the real apiserver and
// allocated by the real scheduler to a whole GPU of that model holding
// the need; one naming another model, or a need above the GPU's memory,
// is left unallocated.
func TestDRAModelSelectorAllocatedByTheScheduler(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, _ := admin(t)
	ensureNamespace(ctx, t, cs, draNS)
	t.Cleanup(func() { deleteDRA(cs) })
	createDRA(ctx, t, cs)
	claims := map[string]string{
		"by-model":    cluster.DRAModelSelector("A100-40GB", 30000),
		"other-model": cluster.DRAModelSelector("L40S", 30000),
		"too-big":     cluster.DRAModelSelector("A100-40GB", 50000),
	}
	for name, sel := range claims {
		c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: draNS, Name: name},
			Spec: resourcev1.ResourceClaimSpec{Devices: exactly(cluster.DRAGPUClass, sel)}}
		if _, err := cs.ResourceV1().ResourceClaims(draNS).Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatalf("the apiserver refused claim %s with selector %s: %v", name, sel, err)
		}
		if _, err := cs.CoreV1().Pods(draNS).Create(ctx, draPod(name, corev1.PodResourceClaim{ResourceClaimName: sp(name)}), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating pod %s: %v", name, err)
		}
	}
	allocated := func(name string) (string, bool) {
		c, err := cs.ResourceV1().ResourceClaims(draNS).Get(ctx, name, metav1.GetOptions{})
		if err != nil || c.Status.Allocation == nil || len(c.Status.Allocation.Devices.Results) == 0 {
			return "", false
		}
		return c.Status.Allocation.Devices.Results[0].Device, true
	}
	waitFor(t, "the by-model claim allocated", 90*time.Second, func() (bool, string) {
		d, ok := allocated("by-model")
		return ok, d
	})
	if d, _ := allocated("by-model"); !strings.HasPrefix(d, "gpu-") || strings.Contains(d, "mig") {
		t.Errorf("by-model got device %q, want a whole A100 (gpu-N)", d)
	}
	time.Sleep(10 * time.Second) // the scheduler has tried the others meanwhile
	for _, name := range []string{"other-model", "too-big"} {
		if d, ok := allocated(name); ok {
			t.Errorf("claim %s (%s) was allocated %s; no device matches it", name, claims[name], d)
		}
	}
}
