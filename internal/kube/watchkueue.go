package kube

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// kueueWatch keeps kueue.x-k8s.io/v1beta2 current for the watcher: one
// dynamic informer per Kueue kind (kueueKinds), each caching its objects
// already decoded (cachedKueue), so that a snapshot reads Kueue as the
// one-shot list does (kueue.go) and never relists. Each informer runs on
// its own: a cluster without Cohort objects stops only that one, while
// Kueue not served (no CRDs) or not readable turns all of Kueue off, as
// the list does.
type kueueWatch struct {
	informers map[string]cache.SharedIndexInformer // by "resource.group"
	stops     map[string]context.CancelFunc
}

func (k *kueueWatch) stop() {
	for _, stop := range k.stops {
		stop()
	}
}

// cachedKueue is what a Kueue informer keeps of one object: its identity
// and the object decoded as the list decodes it (a workload that asks for
// no GPU decodes to nothing), or the decoding error.
type cachedKueue struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	objs *kueueObjects
	err  error
}

// DeepCopyObject copies the cached object (the informer's contract;
// nothing writes a cached one).
func (c *cachedKueue) DeepCopyObject() runtime.Object {
	cp := *c
	return &cp
}

// stripKueue is the transform of kk's informer. Objects it already
// transformed come back through it (a relist): they pass unchanged.
func stripKueue(kk kueueKind) cache.TransformFunc {
	return func(obj any) (any, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil
		}
		c := &cachedKueue{ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion()}, objs: &kueueObjects{}}
		c.err = kk.add(u, c.objs)
		return c, nil
	}
}

// startKueue starts the Kueue informers (none without a dynamic client)
// and waits until their caches are filled, Kueue turns out not served or
// forbidden (then Kueue is off: w.kueue nil, w.kueuePartial says why when
// forbidden), or ctx ends.
func (w *Watcher) startKueue(ctx context.Context, dc dynamic.Interface) error {
	if dc == nil {
		return nil
	}
	k := &kueueWatch{informers: map[string]cache.SharedIndexInformer{}, stops: map[string]context.CancelFunc{}}
	for _, kk := range kueueKinds {
		inf := dynamicinformer.NewFilteredDynamicInformer(dc, kk.gvr, metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
		if err := inf.SetTransform(stripKueue(kk)); err != nil {
			return fmt.Errorf("watching %s: %w", kk.resource(), err)
		}
		if err := inf.SetWatchErrorHandlerWithContext(w.kueueWatchError(kk.resource())); err != nil {
			return fmt.Errorf("watching %s: %w", kk.resource(), err)
		}
		runCtx, stop := context.WithCancel(context.Background())
		k.informers[kk.resource()], k.stops[kk.resource()] = inf, stop
		go inf.RunWithContext(runCtx)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		done, err := w.kueueSynced(k)
		if done {
			return err
		}
		select {
		case <-ctx.Done():
			k.stop()
			return w.syncError(kueueKinds[0].resource(), ctx.Err())
		case <-tick.C:
		}
	}
}

// kueueSynced checks once whether the Kueue informers are ready: done
// when every cache is filled (w.kueue set) or a failure turned Kueue off.
func (w *Watcher) kueueSynced(k *kueueWatch) (done bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if fail := w.kueueFail[cohortsResource]; apierrors.IsNotFound(fail) && k.stops[cohortsResource] != nil {
		k.stops[cohortsResource]()
		delete(k.informers, cohortsResource)
		delete(k.stops, cohortsResource)
	}
	for _, kk := range kueueKinds {
		res := kk.resource()
		fail := w.kueueFail[res]
		if fail == nil || (res == cohortsResource && apierrors.IsNotFound(fail)) {
			continue
		}
		k.stop()
		if apierrors.IsForbidden(fail) {
			w.kueuePartial = fmt.Sprintf("watching %s is forbidden (grant list and watch on kueue.x-k8s.io %s, see docs/rbac.md): Kueue queues and workloads are not reported", res, res)
		}
		return true, nil
	}
	for _, inf := range k.informers {
		if !inf.HasSynced() {
			return false, nil
		}
	}
	w.kueue = k
	return true, nil
}

// kueueWatchError records a Kueue informer's list or watch failure: before
// the caches are filled, "not served" and "forbidden" turn Kueue off (or,
// for Cohorts not served, only their informer); anything else is a watch
// failure like any other.
func (w *Watcher) kueueWatchError(resource string) cache.WatchErrorHandlerWithContext {
	return func(_ context.Context, _ *cache.Reflector, err error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.kueue == nil && (apierrors.IsNotFound(err) || apierrors.IsForbidden(err)) {
			if w.kueueFail[resource] == nil {
				w.kueueFail[resource] = err
			}
			return
		}
		w.watchErr, w.errAt = classify(err, "watch", resource, w.server), w.now()
	}
}

// kueueObjects are the Kueue caches as the one-shot list reads them, and
// a partial note for objects that could not be decoded; nil when the
// watcher runs without Kueue.
func (w *Watcher) kueueObjects() (*kueueObjects, string) {
	if w.kueue == nil {
		return nil, ""
	}
	k := &kueueObjects{}
	var bad int
	var first error
	for _, kk := range kueueKinds {
		inf := w.kueue.informers[kk.resource()]
		if inf == nil {
			continue
		}
		for _, obj := range inf.GetStore().List() {
			c := obj.(*cachedKueue)
			if c.err != nil {
				if bad++; first == nil {
					first = c.err
				}
				continue
			}
			k.add(c.objs)
		}
	}
	if bad > 0 {
		return k, fmt.Sprintf("%d Kueue objects could not be decoded and are left out (%v)", bad, first)
	}
	return k, ""
}
