package kube

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// The adapter follows continue tokens with the page size it asked for.
func TestListFollowsContinue(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	var asked []string
	cs.PrependReactor("list", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).GetListOptions()
		asked = append(asked, fmt.Sprintf("limit=%d continue=%q", opts.Limit, opts.Continue))
		page := &corev1.NodeList{}
		switch opts.Continue {
		case "":
			page.Items = []corev1.Node{*node("b", nil, "cpu", "1")}
			page.Continue = "p2"
		case "p2":
			page.Items = []corev1.Node{*node("a", nil, "cpu", "1")}
			page.Continue = "p3"
		case "p3":
			page.Items = []corev1.Node{*node("c", nil, "cpu", "1")}
		}
		return true, page, nil
	})
	c := &Client{Interface: cs, Server: "https://fake"}
	s, err := c.Snapshot(context.Background(), t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range s.Nodes {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, names); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	want := []string{`limit=500 continue=""`, `limit=500 continue="p2"`, `limit=500 continue="p3"`}
	if diff := cmp.Diff(want, asked); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// A forbidden list is classified and names the verb and resource.
func TestListForbidden(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	cs.PrependReactor("list", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "", errors.New("RBAC: denied"))
	})
	c := &Client{Interface: cs, Server: "https://fake"}
	_, err := c.Snapshot(context.Background(), t0, time.Hour)
	ae, ok := err.(*APIError)
	if !ok || ae.Kind != Forbidden || ae.Verb != "list" || ae.Resource != "replicasets.apps" {
		t.Fatalf("got %#v", err)
	}
}
