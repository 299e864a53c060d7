package kube

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// draWatch keeps resource.k8s.io/v1 current for the watcher: the
// ResourceSlices, DeviceClasses, ResourceClaims and ResourceClaimTemplates
// a snapshot reads, as the one-shot list reads them (dra.go). It has its
// own informer factory so that a cluster that does not serve the API, or
// a role without list and watch on it, stops only these informers: the
// watcher then runs without DRA (a partial snapshot that says so for a
// forbidden API), as Snapshot's list does.
type draWatch struct {
	slices, classes, claims, templates cache.SharedIndexInformer
	stop                               context.CancelFunc
}

func newDRAWatch(cs kubernetes.Interface) (*draWatch, informers.SharedInformerFactory) {
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTransform(strip))
	r := f.Resource().V1()
	return &draWatch{slices: r.ResourceSlices().Informer(), classes: r.DeviceClasses().Informer(),
		claims: r.ResourceClaims().Informer(), templates: r.ResourceClaimTemplates().Informer()}, f
}

func (d *draWatch) informers() map[string]cache.SharedIndexInformer {
	return map[string]cache.SharedIndexInformer{"resourceslices.resource.k8s.io": d.slices, "deviceclasses.resource.k8s.io": d.classes,
		"resourceclaims.resource.k8s.io": d.claims, "resourceclaimtemplates.resource.k8s.io": d.templates}
}

// startDRA starts the DRA informers and waits until their caches are
// filled, the API turns out not served or forbidden (then DRA is off:
// w.dra nil, w.draPartial says why when forbidden), or ctx ends.
func (w *Watcher) startDRA(ctx context.Context, cs kubernetes.Interface) error {
	d, f := newDRAWatch(cs)
	for name, inf := range d.informers() {
		if err := inf.SetWatchErrorHandlerWithContext(w.draWatchError(name)); err != nil {
			return fmt.Errorf("watching %s: %w", name, err)
		}
	}
	runCtx, stop := context.WithCancel(context.Background())
	d.stop = stop
	f.Start(runCtx.Done())
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		synced := true
		for _, inf := range d.informers() {
			synced = synced && inf.HasSynced()
		}
		w.mu.Lock()
		fail, res := w.draFail, w.draFailOn
		if synced && fail == nil {
			w.dra = d
			w.mu.Unlock()
			return nil
		}
		w.mu.Unlock()
		if fail != nil {
			stop()
			if apierrors.IsForbidden(fail) {
				w.draPartial = fmt.Sprintf("watching %s is forbidden (grant list and watch on resource.k8s.io %s, see docs/rbac.md): GPUs allocated through DRA ResourceClaims are not modelled, their pods count as non-GPU pods", res, res)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			stop()
			return w.syncError("resourceslices.resource.k8s.io", ctx.Err())
		case <-tick.C:
		}
	}
}

// draWatchError records a DRA informer's list or watch failure: before
// its caches are filled, "not served" and "forbidden" turn DRA off
// (startDRA); anything else is a watch failure like any other.
func (w *Watcher) draWatchError(resource string) cache.WatchErrorHandlerWithContext {
	return func(_ context.Context, _ *cache.Reflector, err error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.dra == nil && (apierrors.IsNotFound(err) || apierrors.IsForbidden(err)) {
			if w.draFail == nil {
				w.draFail, w.draFailOn = err, resource
			}
			return
		}
		w.watchErr, w.errAt = classify(err, "watch", resource, w.server), w.now()
	}
}

// draObjects are the DRA caches as the one-shot list reads them; nil
// when the watcher runs without DRA.
func (w *Watcher) draObjects() *draObjects {
	d := w.dra
	if d == nil {
		return nil
	}
	o := &draObjects{read: true}
	for _, obj := range d.slices.GetStore().List() {
		o.slices = append(o.slices, *obj.(*resourcev1.ResourceSlice))
	}
	for _, obj := range d.classes.GetStore().List() {
		o.classes = append(o.classes, convertClass(obj.(*resourcev1.DeviceClass)))
	}
	for _, obj := range d.claims.GetStore().List() {
		o.claims = append(o.claims, *obj.(*resourcev1.ResourceClaim))
	}
	for _, obj := range d.templates.GetStore().List() {
		o.templates = append(o.templates, convertTemplate(obj.(*resourcev1.ResourceClaimTemplate)))
	}
	return o
}

// stripDRA keeps what dra.go reads of a resource.k8s.io object: its
// identity, spec and (for a claim) status; no managed fields, labels or
// annotations.
func stripDRA(obj any) (any, bool) {
	switch o := obj.(type) {
	case *resourcev1.ResourceSlice:
		return &resourcev1.ResourceSlice{ObjectMeta: ownerMeta(&o.ObjectMeta), Spec: o.Spec}, true
	case *resourcev1.DeviceClass:
		return &resourcev1.DeviceClass{ObjectMeta: ownerMeta(&o.ObjectMeta), Spec: o.Spec}, true
	case *resourcev1.ResourceClaim:
		return &resourcev1.ResourceClaim{ObjectMeta: ownerMeta(&o.ObjectMeta), Spec: o.Spec, Status: o.Status}, true
	case *resourcev1.ResourceClaimTemplate:
		return &resourcev1.ResourceClaimTemplate{ObjectMeta: ownerMeta(&o.ObjectMeta), Spec: o.Spec}, true
	}
	return nil, false
}

// podClaimTemplates maps each claim made from one of p's
// ResourceClaimTemplates to the template: spec.resourceClaims names the
// template, status.resourceClaimStatuses the claim made from it. Keys
// are claim names in p's namespace.
func podClaimTemplates(p *corev1.Pod) map[string]string {
	var out map[string]string
	for _, st := range p.Status.ResourceClaimStatuses {
		if st.ResourceClaimName == nil {
			continue
		}
		for _, c := range p.Spec.ResourceClaims {
			if c.Name == st.Name && c.ResourceClaimTemplateName != nil {
				if out == nil {
					out = map[string]string{}
				}
				out[*st.ResourceClaimName] = *c.ResourceClaimTemplateName
			}
		}
	}
	return out
}

// noteClaimTemplates remembers which template each of a pod's generated
// claims (templates, from podClaimTemplates) was made from.
func (o *objects) noteClaimTemplates(namespace string, templates map[string]string) {
	for claim, tmpl := range templates {
		if o.templateOf == nil {
			o.templateOf = map[string]string{}
		}
		o.templateOf[namespace+"/"+claim] = tmpl
	}
}
