package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func strp(s string) *string { return &s }

func gpuDevice(name, uuid, product string, memGiB int64) resourcev1.Device {
	return resourcev1.Device{Name: name,
		Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
			draType: {StringValue: strp(draTypeGPU)}, draUUID: {StringValue: strp(uuid)}, draProduct: {StringValue: strp(product)}},
		Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{draMemory: {Value: *resource.NewQuantity(memGiB<<30, resource.BinarySI)}}}
}

func migDevice(name, parent, profile, product string) resourcev1.Device {
	return resourcev1.Device{Name: name, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
		draType: {StringValue: strp(draTypeMIG)}, draParentUUID: {StringValue: strp(parent)},
		draProfile: {StringValue: strp(profile)}, draProduct: {StringValue: strp(product)}}}
}

func slice(name, node string, generation int64, devs ...resourcev1.Device) *resourcev1.ResourceSlice {
	return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourcev1.ResourceSliceSpec{
		Driver: draGPUDriver, Pool: resourcev1.ResourcePool{Name: node, Generation: generation, ResourceSliceCount: 1},
		NodeName: strp(node), Devices: devs}}
}

// claim is an allocated claim in ns for device class class, its devices
// on pool, reserved for pods.
func claim(ns, name, class, pool string, devices []string, pods ...string) *resourcev1.ResourceClaim {
	c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	c.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class, Count: int64(len(devices))}}}
	c.Status.Allocation = &resourcev1.AllocationResult{}
	for _, d := range devices {
		c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results,
			resourcev1.DeviceRequestAllocationResult{Request: "gpu", Driver: draGPUDriver, Pool: pool, Device: d})
	}
	for _, p := range pods {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p})
	}
	return c
}

// draCluster: node dra-a publishes four whole A100s (an older pool
// generation with a fifth is stale) and a static-MIG A100 with two MIG
// devices; pods hold them through claims: one whole GPU, one GPU shared
// by three pods, one MIG device. Node hami-a has two A10s split by HAMi.
func draCluster() *Client {
	const a100 = "NVIDIA A100-SXM4-40GB"
	// The API names a reserved pod by UID too: s-b's matches.
	shared := claim("ml", "shared-gpu", "gpu.nvidia.com", "dra-a", []string{"gpu-1"}, "s-b", "s-a", "s-c")
	shared.Status.ReservedFor[0].UID = "uid-ml-s-b"
	// nb's claim was made from its template.
	nb := pod("dev", "nb", "dra-a", t0)
	nb.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: strp("mig-1g")}}
	nb.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: strp("nb-mig")}}
	hami := node("hami-a", map[string]string{lblProduct: "NVIDIA-A10", lblCount: "2", lblMemory: "24576"}, "cpu", "32", "memory", "128Gi", "nvidia.com/gpu", "20")
	hami.Annotations = map[string]string{annHAMi: "GPU-a,10,24576,100,NVIDIA-A10,0,true:GPU-b,10,24576,100,NVIDIA-A10,0,true:"}
	objs := []runtime.Object{
		node("dra-a", nil, "cpu", "96", "memory", "1Ti"),
		slice("dra-a-old", "dra-a", 1, gpuDevice("gpu-9", "GPU-9", a100, 40)),
		slice("dra-a-gpu", "dra-a", 2, gpuDevice("gpu-0", "GPU-0", a100, 40), gpuDevice("gpu-1", "GPU-1", a100, 40),
			gpuDevice("gpu-2", "GPU-2", a100, 40),
			migDevice("gpu-3-mig-1g5gb-19-0", "GPU-3", "1g.5gb", a100), migDevice("gpu-3-mig-3g20gb-9-4", "GPU-3", "3g.20gb", a100)),
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu.nvidia.com"}, Spec: resourcev1.DeviceClassSpec{
			Selectors:            []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}},
			ExtendedResourceName: strp("nvidia.com/gpu")}},
		claim("ml", "train-gpu", "gpu.nvidia.com", "dra-a", []string{"gpu-0"}, "train"),
		shared,
		claim("dev", "nb-mig", "mig.nvidia.com", "dra-a", []string{"gpu-3-mig-1g5gb-19-0"}, "nb"),
		claim("dev", "shared-mig", "mig.nvidia.com", "dra-a", []string{"gpu-3-mig-3g20gb-9-4"}, "m-b", "m-a"),
		pod("ml", "train", "dra-a", t0, "cpu", "8"),
		pod("ml", "s-a", "dra-a", t0.Add(time.Hour)),
		pod("ml", "s-b", "dra-a", t0.Add(time.Hour)),
		pod("ml", "s-c", "dra-a", t0.Add(2*time.Hour)),
		nb,
		pod("dev", "m-a", "dra-a", t0),
		pod("dev", "m-b", "dra-a", t0.Add(time.Hour)),
		hami,
		pod("ml", "quarter", "hami-a", t0, "nvidia.com/gpu", "1", "nvidia.com/gpucores", "25", "nvidia.com/gpumem", "4096"),
		pod("ml", "half-mem", "hami-a", t0.Add(time.Hour), "nvidia.com/gpu", "1", "nvidia.com/gpucores", "10", "nvidia.com/gpumem-percentage", "50"),
		pod("ml", "plain", "hami-a", t0.Add(2*time.Hour), "nvidia.com/gpu", "1"),
	}
	return &Client{Interface: fake.NewClientset(objs...), Server: "https://fake", Source: "test"}
}

func TestDRAAndHAMiSnapshot(t *testing.T) {
	t.Parallel()
	s, err := draCluster().Snapshot(context.Background(), t0.Add(24*time.Hour), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cluster.Prepare(s)
	if err != nil {
		t.Fatal(err)
	}
	type unit struct {
		ID, Via, Claim string
		Fraction       float64
	}
	var units []unit
	for _, n := range s.Nodes {
		for gi := range n.GPUs {
			g := &n.GPUs[gi]
			for ui := range g.Units {
				u := &g.Units[ui]
				units = append(units, unit{u.ID, cluster.Mechanism(g, u), u.Claim, u.Fraction})
			}
		}
	}
	// Hand-computed: the shared GPU is three units of 1/3; MIG 1g.5gb on
	// an A100-40GB is max(1/7, 1/8) = 1/7, 3g.20gb max(3/7, 4/8) = 1/2,
	// which its claim shares between two pods: 1/4 each;
	// HAMi "quarter" max(25%, 4096/24576) = 1/4, "half-mem" max(10%, 50%)
	// = 1/2, "plain" (no memory ask: all of it) 1.
	want := []unit{
		{"dra-a/gpu-0", "dra", "ml/train-gpu", 1},
		{"dra-a/gpu-1/share-0", "dra", "ml/shared-gpu", 1.0 / 3},
		{"dra-a/gpu-1/share-1", "dra", "ml/shared-gpu", 1.0 / 3},
		{"dra-a/gpu-1/share-2", "dra", "ml/shared-gpu", 1.0 / 3},
		{"dra-a/gpu-2", "dra", "", 1},
		{"dra-a/gpu-3-mig-1g5gb-19-0", "dra", "dev/nb-mig", 1.0 / 7},
		{"dra-a/gpu-3-mig-3g20gb-9-4/share-0", "dra", "dev/shared-mig", 0.25},
		{"dra-a/gpu-3-mig-3g20gb-9-4/share-1", "dra", "dev/shared-mig", 0.25},
	}
	// HAMi: the pool alternates the GPUs, so quarter takes gpu0/ts-0,
	// half-mem gpu1/ts-0, plain gpu0/ts-1. GPU 0 holds 1/4 + 1 > 1: scaled
	// to 1/5 and 4/5, its 8 free vGPUs 0; GPU 1 holds 1/2, its 9 free
	// vGPUs share the other half (1/18 each).
	for g := range 2 {
		for r := range 10 {
			f := map[[2]int]float64{{0, 0}: 0.2, {0, 1}: 0.8, {1, 0}: 0.5}[[2]int{g, r}]
			if f == 0 && g == 1 {
				f = 0.5 / 9
			}
			want = append(want, unit{ID: "hami-a/gpu" + string(rune('0'+g)) + "/ts-" + itoa(r), Via: "hami", Fraction: f})
		}
	}
	if diff := cmp.Diff(want, units, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	holds := map[string][]string{}
	for _, pod := range p.Pods() {
		for _, h := range pod.GPUs {
			holds[pod.Key()] = append(holds[pod.Key()], h.UnitID)
		}
		if len(pod.Claims) > 0 {
			holds[pod.Key()] = append(holds[pod.Key()], "claim "+pod.Claims[0])
		}
	}
	wantHolds := map[string][]string{
		"ml/train": {"dra-a/gpu-0", "claim ml/train-gpu"},
		// In (start, name) order: s-a and s-b started at 1h, s-c at 2h.
		"ml/s-a": {"dra-a/gpu-1/share-0", "claim ml/shared-gpu"},
		"ml/s-b": {"dra-a/gpu-1/share-1", "claim ml/shared-gpu"},
		"ml/s-c": {"dra-a/gpu-1/share-2", "claim ml/shared-gpu"},
		"dev/nb": {"dra-a/gpu-3-mig-1g5gb-19-0", "claim dev/nb-mig"},
		// m-a started first.
		"dev/m-a":     {"dra-a/gpu-3-mig-3g20gb-9-4/share-0", "claim dev/shared-mig"},
		"dev/m-b":     {"dra-a/gpu-3-mig-3g20gb-9-4/share-1", "claim dev/shared-mig"},
		"ml/quarter":  {"hami-a/gpu0/ts-0"},
		"ml/half-mem": {"hami-a/gpu1/ts-0"},
		"ml/plain":    {"hami-a/gpu0/ts-1"},
	}
	if diff := cmp.Diff(wantHolds, holds); diff != "" {
		t.Errorf("holdings (-want +got):\n%s", diff)
	}
	for _, k := range []string{"ml/train", "ml/s-a", "dev/nb"} {
		for _, pod := range p.Pods() {
			if pod.Key() == k && !pod.RequestsGPU() {
				t.Errorf("%s holds a GPU claim but is not a GPU pod", k)
			}
		}
	}
	if s.DRA == nil || len(s.DRA.Claims) != 4 || len(s.DRA.DeviceClasses) != 1 || s.DRA.DeviceClasses[0].ExtendedResource != "nvidia.com/gpu" {
		t.Fatalf("DRA section %+v", s.DRA)
	}
	for _, c := range s.DRA.Claims {
		if want := map[string]string{"dev/nb-mig": "mig-1g"}[c.Key()]; c.Template != want {
			t.Errorf("claim %s: template %q, want %q", c.Key(), c.Template, want)
		}
	}
	if diff := cmp.Diff([]cluster.DRADriver{{Name: draGPUDriver, Devices: 5}}, s.DRA.Drivers); diff != "" {
		t.Errorf("drivers (-want +got):\n%s", diff)
	}
	if got := s.Nodes[0].GPUModel; got != "A100-40GB" {
		t.Errorf("DRA node's model %q, want A100-40GB", got)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// A role without list on resource.k8s.io gives a partial snapshot that
// says what it lacks; a cluster that does not serve the API is read
// without it, whole.
func TestDRAForbiddenIsPartialNotServedIsNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		err     error
		partial bool
	}{
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}, "", nil), true},
		{"not served", apierrors.NewNotFound(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}, ""), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := draCluster()
			c.Interface.(*fake.Clientset).PrependReactor("list", "resourceslices", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, tt.err
			})
			s, err := c.Snapshot(context.Background(), t0.Add(24*time.Hour), 24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if s.DRA != nil {
				t.Errorf("DRA section %+v from an unreadable API", s.DRA)
			}
			if got := len(s.Partial) == 1 && strings.Contains(s.Partial[0], "resourceslices is forbidden"); got != tt.partial {
				t.Errorf("partial %q, want partial=%v", s.Partial, tt.partial)
			}
		})
	}
}
