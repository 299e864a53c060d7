package kube

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Every page listed is reported: objects so far, and the total when the
// server says how many remain (remainingItemCount), 0 when it does not.
func TestListReportsPages(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).GetListOptions()
		page := &corev1.PodList{}
		for i := range 2 {
			page.Items = append(page.Items, corev1.Pod{})
			page.Items[i].Namespace, page.Items[i].Name = "ns", fmt.Sprintf("p%s-%d", opts.Continue, i)
		}
		remaining := int64(2)
		switch opts.Continue {
		case "":
			page.Continue, page.RemainingItemCount = "2", &remaining
		case "2":
			page.Items = page.Items[:1]
		}
		return true, page, nil
	})
	type call struct {
		Phase       string
		Done, Total int64
	}
	var got []call
	c := &Client{Interface: cs, Server: "https://fake", Progress: func(phase string, done, total int64) {
		got = append(got, call{phase, done, total})
	}}
	if _, err := c.Snapshot(context.Background(), t0, time.Hour); err != nil {
		t.Fatal(err)
	}
	want := []call{{"listing nodes", 0, 0}, {"listing replicasets.apps", 0, 0}, {"listing jobs.batch", 0, 0},
		{"listing pods", 2, 4}, {"listing pods", 3, 0},
		{"listing resourceslices", 0, 0}, {"listing deviceclasses", 0, 0}, {"listing resourceclaims", 0, 0}, {"listing resourceclaimtemplates", 0, 0},
		{"listing horizontalpodautoscalers.autoscaling", 0, 0}, {"listing validatingadmissionpolicies.admissionregistration.k8s.io", 0, 0},
		{"listing validatingadmissionpolicybindings.admissionregistration.k8s.io", 0, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}
