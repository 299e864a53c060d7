package kube

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	admissioninformers "k8s.io/client-go/informers/admissionregistration/v1"
	autoscalinginformers "k8s.io/client-go/informers/autoscaling/v2"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// controlsWatch keeps the controls current for the watcher: one informer
// per control resource (typed for HPAs and the admissionregistration
// kinds, dynamic for the custom resources), each caching its objects
// already converted by the functions the list uses (controlKind.add), so
// that a snapshot's Controls equal the one-shot list's. Each resource runs
// on its own, as each is listed on its own: one not served (its CRD not
// installed) stops its informer and is in NotServed, one forbidden stops
// its informer with a partial note. Which resources are served is decided
// at start: a CRD installed later is read after serve restarts.
type controlsWatch struct {
	kinds []*controlInformer // those that run, in controlKinds order
	// notServed are the resources the API does not serve; partial the
	// notes on forbidden ones.
	notServed, partial []string
}

// controlInformer is one control resource's informer.
type controlInformer struct {
	kind controlKind
	inf  cache.SharedIndexInformer
	stop context.CancelFunc
}

func (c *controlsWatch) stop() {
	for _, k := range c.kinds {
		k.stop()
	}
}

func (c *controlsWatch) informers() map[string]cache.SharedIndexInformer {
	out := map[string]cache.SharedIndexInformer{}
	for _, k := range c.kinds {
		out[k.kind.resource] = k.inf
	}
	return out
}

// cachedControl is what a control informer keeps of one object: its
// identity and how it adds itself to the controls.
type cachedControl struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	add func(*cluster.Controls)
}

// DeepCopyObject copies the cached object (the informer's contract;
// nothing writes a cached one).
func (c *cachedControl) DeepCopyObject() runtime.Object {
	cp := *c
	return &cp
}

// cacheControl is the transform of k's informer: the object converted now,
// so the cache holds only what the controls read. Objects it already
// transformed (a relist), and tombstones, pass unchanged.
func cacheControl(k controlKind) cache.TransformFunc {
	return func(obj any) (any, error) {
		if _, done := obj.(*cachedControl); done {
			return obj, nil
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return obj, nil //nolint:nilerr // not an API object (a tombstone): kept as it is
		}
		one := &cluster.Controls{}
		if !k.add(obj, one) {
			return obj, nil
		}
		return &cachedControl{ObjectMeta: metav1.ObjectMeta{Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion()}, add: func(ctl *cluster.Controls) {
			ctl.Autoscalers = append(ctl.Autoscalers, one.Autoscalers...)
			ctl.NodePools = append(ctl.NodePools, one.NodePools...)
			ctl.Policies = append(ctl.Policies, one.Policies...)
			ctl.Bindings = append(ctl.Bindings, one.Bindings...)
		}}, nil
	}
}

// controlInformers makes an informer for each control resource: the typed
// ones, then (with a dynamic client) the custom resources.
func controlInformers(cs kubernetes.Interface, dc dynamic.Interface) []*controlInformer {
	out := []*controlInformer{
		{kind: typedControls[0], inf: autoscalinginformers.NewHorizontalPodAutoscalerInformer(cs, metav1.NamespaceAll, 0, cache.Indexers{})},
		{kind: typedControls[1], inf: admissioninformers.NewValidatingAdmissionPolicyInformer(cs, 0, cache.Indexers{})},
		{kind: typedControls[2], inf: admissioninformers.NewValidatingAdmissionPolicyBindingInformer(cs, 0, cache.Indexers{})},
	}
	if dc == nil {
		return out
	}
	for _, k := range dynamicControls {
		out = append(out, &controlInformer{kind: k, inf: dynamicinformer.NewFilteredDynamicInformer(dc, k.gvr, metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()})
	}
	return out
}

// startControls starts the control informers and waits until each cache
// is filled or its resource turns out not served or forbidden (then that
// informer stops), or ctx ends.
func (w *Watcher) startControls(ctx context.Context, cs kubernetes.Interface, dc dynamic.Interface) error {
	all := controlInformers(cs, dc)
	for _, k := range all {
		if err := k.inf.SetTransform(cacheControl(k.kind)); err != nil {
			return fmt.Errorf("watching %s: %w", k.kind.resource, err)
		}
		if err := k.inf.SetWatchErrorHandlerWithContext(w.controlWatchError(k.kind.resource)); err != nil {
			return fmt.Errorf("watching %s: %w", k.kind.resource, err)
		}
		runCtx, stop := context.WithCancel(context.Background())
		k.stop = stop
		go k.inf.RunWithContext(runCtx)
	}
	stopAll := func() {
		for _, k := range all {
			k.stop()
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if w.controlsSynced(all) {
			return nil
		}
		select {
		case <-ctx.Done():
			stopAll()
			return w.syncError(w.unfilledControl(all), ctx.Err())
		case <-tick.C:
		}
	}
}

// controlsSynced checks once whether every control informer is ready:
// its cache filled, or its resource not served or forbidden (its
// informer then stopped). When all are, w.controls is set.
func (w *Watcher) controlsSynced(all []*controlInformer) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range all {
		if w.controlFail[k.kind.resource] == nil && !k.inf.HasSynced() {
			return false
		}
	}
	cw := &controlsWatch{}
	for _, k := range all {
		fail := w.controlFail[k.kind.resource]
		switch {
		case fail == nil:
			cw.kinds = append(cw.kinds, k)
			continue
		case apierrors.IsNotFound(fail):
			cw.notServed = append(cw.notServed, k.kind.resource)
		default: // forbidden
			cw.partial = append(cw.partial, fmt.Sprintf("watching %s is forbidden (grant list and watch on it, see docs/rbac.md): %s", k.kind.resource, k.kind.lost))
		}
		k.stop()
	}
	w.controls = cw
	return true
}

// unfilledControl names the first control resource whose cache is not
// filled and that did not fail, for the error when the wait ends.
func (w *Watcher) unfilledControl(all []*controlInformer) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range all {
		if w.controlFail[k.kind.resource] == nil && !k.inf.HasSynced() {
			return k.kind.resource
		}
	}
	return all[0].kind.resource
}

// controlWatchError records a control informer's list or watch failure:
// before the caches are filled, "not served" and "forbidden" turn that
// resource off; anything else is a watch failure like any other.
func (w *Watcher) controlWatchError(resource string) cache.WatchErrorHandlerWithContext {
	return func(_ context.Context, _ *cache.Reflector, err error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.controls == nil && (apierrors.IsNotFound(err) || apierrors.IsForbidden(err)) {
			if w.controlFail[resource] == nil {
				w.controlFail[resource] = err
			}
			return
		}
		w.watchErr, w.errAt = classify(err, "watch", resource, w.server), w.now()
	}
}

// controlObjects are the control caches as the one-shot list reads them
// (nil when no resource was read nor known absent), and the partial notes
// on forbidden resources.
func (w *Watcher) controlObjects() (*cluster.Controls, []string) {
	w.mu.Lock()
	cw := w.controls
	w.mu.Unlock()
	if cw == nil {
		return nil, nil
	}
	ctl := &cluster.Controls{NotServed: append([]string(nil), cw.notServed...)}
	for _, k := range cw.kinds {
		ctl.Read = append(ctl.Read, k.kind.resource)
		for _, obj := range k.inf.GetStore().List() {
			if c, ok := obj.(*cachedControl); ok {
				c.add(ctl)
			}
		}
	}
	if len(ctl.Read) == 0 && len(ctl.NotServed) == 0 {
		return nil, cw.partial
	}
	ctl.Sort()
	return ctl, cw.partial
}
