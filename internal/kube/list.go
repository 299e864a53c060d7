package kube

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// pageSize bounds each list response so large clusters are read in
// chunks the API server can serve from its watch cache.
const pageSize = 500

// objects is everything Snapshot reads, cluster-wide, already converted
// page by page so the API objects of a large cluster are never all held
// in memory at once.
type objects struct {
	nodes      []cluster.Node
	pools      map[string]map[string][]string
	nodeNotes  []string
	pods       []cluster.Pod
	rsOwners   []appsv1.ReplicaSet
	jobsOwners []batchv1.Job
	// dra is what resource.k8s.io says; nil when not read (the watcher).
	dra *draObjects
	// partial are what could not be read, for Snapshot.Partial.
	partial []string
	// templateOf maps a claim made from a pod's ResourceClaimTemplate
	// ("namespace/claim") to the template's name.
	templateOf map[string]string
	// kueue is what kueue.x-k8s.io says; nil when not read (no dynamic
	// client, Kueue not installed, the watcher).
	kueue *kueueObjects
	// ctrl maps a pod ("namespace/name") with a controller to its
	// controllers' UIDs (owners.controllers), for Kueue's workloads.
	ctrl map[string][]string
	// controls are the autoscalers, NodePools and admission policies; nil
	// when none of their resources was read nor known absent.
	controls *cluster.Controls
}

// page is what one list response says about the list: its continue
// token, how many objects it held and how many remain after it (nil when
// the server does not say).
type page struct {
	next      string
	items     int
	remaining *int64
}

// listAll pages through one resource, telling progress how far it got:
// fetch returns one page.
func listAll(ctx context.Context, resource string, progress func(string, int64, int64), fetch func(context.Context, metav1.ListOptions) (page, error)) error {
	opts := metav1.ListOptions{Limit: pageSize}
	var done int64
	for {
		pg, err := fetch(ctx, opts)
		if err != nil {
			return err
		}
		done += int64(pg.items)
		if progress != nil {
			var total int64
			if pg.remaining != nil {
				total = done + *pg.remaining
			}
			progress("listing "+resource, done, total)
		}
		if pg.next == "" {
			return nil
		}
		opts.Continue = pg.next
	}
}

func pageOf(m metav1.ListMeta, items int) page {
	return page{next: m.Continue, items: items, remaining: m.RemainingItemCount}
}

type step struct {
	resource string
	fetch    func(context.Context, metav1.ListOptions) (page, error)
}

// list reads nodes, then the ReplicaSets and Jobs owners resolve through,
// then pods (converted with those owners).
func (c *Client) list(ctx context.Context, now time.Time) (*objects, error) {
	o := &objects{pools: map[string]map[string][]string{}, ctrl: map[string][]string{}}
	var own *owners
	for _, s := range c.steps(o, &own, now) {
		if s.resource == "pods" {
			own = newOwners(o.rsOwners, o.jobsOwners)
			o.rsOwners, o.jobsOwners = nil, nil
		}
		if err := listAll(ctx, s.resource, c.Progress, s.fetch); err != nil {
			return nil, classify(err, "list", s.resource, c.Server)
		}
	}
	if err := c.listDRA(ctx, o); err != nil {
		return nil, err
	}
	if err := c.listControls(ctx, o); err != nil {
		return nil, err
	}
	if c.Dynamic != nil {
		k := &kueueObjects{}
		read, partial, err := c.listKueue(ctx, k)
		if err != nil {
			return nil, err
		}
		if read {
			o.kueue = k
		}
		if partial != "" {
			o.partial = append(o.partial, partial)
		}
	}
	return o, nil
}

// listDRA reads the DRA objects into o.dra; nil when resource.k8s.io/v1
// is not served or listing it is forbidden (a partial note says so).
func (c *Client) listDRA(ctx context.Context, o *objects) error {
	o.dra = &draObjects{read: true}
	for _, s := range c.draSteps(o.dra) {
		err := listAll(ctx, s.resource, c.Progress, s.fetch)
		switch {
		case err == nil:
		case apierrors.IsNotFound(err):
			// resource.k8s.io/v1 is not served (Kubernetes before 1.34, or
			// DRA off): the cluster has no DRA devices to model.
			o.dra = nil
			return nil
		case apierrors.IsForbidden(err):
			o.partial = append(o.partial, fmt.Sprintf("listing %s is forbidden (grant list on resource.k8s.io %s, see docs/rbac.md): GPUs allocated through DRA ResourceClaims are not modelled, their pods count as non-GPU pods", s.resource, s.resource))
			o.dra = nil
			return nil
		default:
			return classify(err, "list", s.resource+".resource.k8s.io", c.Server)
		}
	}
	return nil
}

// draSteps list the DRA objects: slices, device classes, claims and
// claim templates (resource.k8s.io/v1).
func (c *Client) draSteps(d *draObjects) []step {
	r := c.Interface.ResourceV1()
	return []step{
		{"resourceslices", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := r.ResourceSlices().List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			d.slices = append(d.slices, l.Items...)
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
		{"deviceclasses", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := r.DeviceClasses().List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				d.classes = append(d.classes, convertClass(&l.Items[i]))
			}
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
		{"resourceclaims", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := r.ResourceClaims(metav1.NamespaceAll).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			d.claims = append(d.claims, l.Items...)
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
		{"resourceclaimtemplates", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := r.ResourceClaimTemplates(metav1.NamespaceAll).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				d.templates = append(d.templates, convertTemplate(&l.Items[i]))
			}
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
	}
}

func (c *Client) steps(o *objects, own **owners, now time.Time) []step {
	cs := c.Interface
	return []step{
		{"nodes", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := cs.CoreV1().Nodes().List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				n, pools, notes := convertNode(&l.Items[i])
				o.nodes = append(o.nodes, n)
				o.pools[n.Name] = pools
				o.nodeNotes = append(o.nodeNotes, notes...)
			}
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
		{"replicasets.apps", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := cs.AppsV1().ReplicaSets(metav1.NamespaceAll).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			o.rsOwners = append(o.rsOwners, l.Items...)
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
		{"jobs.batch", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := cs.BatchV1().Jobs(metav1.NamespaceAll).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			o.jobsOwners = append(o.jobsOwners, l.Items...)
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
		{"pods", func(ctx context.Context, lo metav1.ListOptions) (page, error) {
			l, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, lo)
			if err != nil {
				return page{}, err
			}
			for i := range l.Items {
				p := &l.Items[i]
				o.pods = append(o.pods, convertPod(p, (*own).of(p), now))
				o.noteClaimTemplates(p.Namespace, podClaimTemplates(p))
				if uids := (*own).controllers(p); uids != nil {
					o.ctrl[p.Namespace+"/"+p.Name] = uids
				}
			}
			return pageOf(l.ListMeta, len(l.Items)), nil
		}},
	}
}
