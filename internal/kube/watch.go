package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// Watcher keeps the cluster's nodes, pods, ReplicaSets and Jobs current
// (and DRA's and Kueue's objects and the controls where the cluster
// serves them) with
// shared informers: one list per resource at start, then watches, so
// a snapshot reads the informers' caches and never relists. Objects are
// stripped to the fields the snapshot reads before they are cached
// (strip.go). Pods and nodes deleted from the API are remembered, with
// the time their deletion was seen as their end, for as long as a
// snapshot's window can reach them; GPU units a pod was given stay its
// own across snapshots (sticky), and a pod that terminates keeps them.
//
// It is read-only: list and watch only.
type Watcher struct {
	server, source string
	now            func() time.Time
	nodes, pods    cache.SharedIndexInformer
	rs, jobs       cache.SharedIndexInformer
	stop           context.CancelFunc

	mu        sync.Mutex
	gonePods  map[string]cluster.Pod  // UID → pod, End set
	goneNodes map[string]cluster.Node // name → node, Deleted set
	held      map[string][]string     // UID → units last given
	watchErr  error                   // the last watch failure, cleared on sync
	errAt     time.Time
	// dra are the resource.k8s.io informers, nil when the API is not
	// served or not readable (draPartial then says so when forbidden);
	// draFail is the not-served or forbidden error that turned it off,
	// on the resource draFailOn (watchdra.go).
	dra        *draWatch
	draPartial string
	draFail    error
	draFailOn  string
	// kueue are the kueue.x-k8s.io informers, nil without a dynamic
	// client or when Kueue is not served or not readable (kueuePartial
	// then says so when forbidden); kueueFail holds, by resource, the
	// not-served or forbidden errors seen before their caches were
	// filled (watchkueue.go).
	kueue        *kueueWatch
	kueuePartial string
	kueueFail    map[string]error
	// goneCtrl are the controller UIDs of the remembered pods, by UID,
	// for Kueue's workloads (owners.controllers).
	goneCtrl map[string][]string
	// controls are the informers of the autoscalers, NodePools and
	// admission policies (watchcontrols.go), nil until started;
	// controlFail holds, by resource, the not-served or forbidden errors
	// seen before their caches were filled.
	controls    *controlsWatch
	controlFail map[string]error
}

// Watch starts the informers and waits until their caches are filled
// (ctx bounds the wait). now stamps deletions. The watcher runs until
// Stop.
func (c *Client) Watch(ctx context.Context, now func() time.Time) (*Watcher, error) {
	cs, dc := c.Interface, c.Dynamic
	if c.rest != nil {
		cfg := *c.rest
		cfg.Timeout = 0 // a watch is a long request; the reflector times it itself
		var err error
		if cs, err = kubernetes.NewForConfig(&cfg); err != nil {
			return nil, &ConfigError{Err: err}
		}
		if dc, err = dynamic.NewForConfig(&cfg); err != nil {
			return nil, &ConfigError{Err: err}
		}
	}
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTransform(strip))
	w := &Watcher{server: c.Server, source: c.Source, now: now,
		nodes: f.Core().V1().Nodes().Informer(), pods: f.Core().V1().Pods().Informer(),
		rs: f.Apps().V1().ReplicaSets().Informer(), jobs: f.Batch().V1().Jobs().Informer(),
		gonePods: map[string]cluster.Pod{}, goneNodes: map[string]cluster.Node{}, held: map[string][]string{},
		kueueFail: map[string]error{}, goneCtrl: map[string][]string{}, controlFail: map[string]error{}}
	if err := w.handle(); err != nil {
		return nil, err
	}
	runCtx, stop := context.WithCancel(context.Background())
	w.stop = stop
	f.Start(runCtx.Done())
	for name, inf := range w.informers() {
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			stop()
			return nil, w.syncError(name, ctx.Err())
		}
	}
	if err := w.startDRA(ctx, cs); err != nil {
		stop()
		return nil, err
	}
	if err := w.startKueue(ctx, dc); err != nil {
		w.Stop()
		return nil, err
	}
	if err := w.startControls(ctx, cs, dc); err != nil {
		w.Stop()
		return nil, err
	}
	return w, nil
}

// Stop stops the informers.
func (w *Watcher) Stop() {
	w.stop()
	if w.dra != nil {
		w.dra.stop()
	}
	if w.kueue != nil {
		w.kueue.stop()
	}
	w.mu.Lock()
	cw := w.controls
	w.mu.Unlock()
	if cw != nil {
		cw.stop()
	}
}

func (w *Watcher) informers() map[string]cache.SharedIndexInformer {
	return map[string]cache.SharedIndexInformer{"nodes": w.nodes, "replicasets.apps": w.rs, "jobs.batch": w.jobs, "pods": w.pods}
}

// handle wires deletion memory and watch-error reporting.
func (w *Watcher) handle() error {
	for name, inf := range w.informers() {
		if err := inf.SetWatchErrorHandlerWithContext(w.watchError(name)); err != nil {
			return fmt.Errorf("watching %s: %w", name, err)
		}
	}
	if _, err := w.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: w.podGone}); err != nil {
		return fmt.Errorf("watching pods: %w", err)
	}
	_, err := w.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: w.nodeGone})
	if err != nil {
		return fmt.Errorf("watching nodes: %w", err)
	}
	return nil
}

func (w *Watcher) watchError(resource string) cache.WatchErrorHandlerWithContext {
	return func(_ context.Context, _ *cache.Reflector, err error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.watchErr, w.errAt = classify(err, "watch", resource, w.server), w.now()
	}
}

func (w *Watcher) syncError(resource string, ctxErr error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watchErr != nil {
		return w.watchErr
	}
	return &APIError{Kind: Unreachable, Verb: "list", Resource: resource, Server: w.server,
		Err: fmt.Errorf("caches not filled in time: %w", ctxErr)}
}

// Health is the last watch failure since the caches last served a
// snapshot without one, nil when watches are healthy.
func (w *Watcher) Health() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.watchErr
}

func tombstone(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

func (w *Watcher) podGone(obj any) {
	c, ok := tombstone(obj).(*cachedPod)
	if !ok {
		return
	}
	now := w.now()
	own := newOwners(w.cachedReplicaSets(), w.cachedJobs())
	cp := c.model(own, now)
	if cp.End.IsZero() {
		cp.End = now
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gonePods[string(c.UID)] = cp
	if uids := c.controllers(own); uids != nil {
		w.goneCtrl[string(c.UID)] = uids
	}
}

func (w *Watcher) nodeGone(obj any) {
	n, ok := tombstone(obj).(*corev1.Node)
	if !ok {
		return
	}
	cn, _, _ := convertNode(n)
	cn.Deleted = w.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.goneNodes[n.Name] = cn
}

func (w *Watcher) cachedReplicaSets() []appsv1.ReplicaSet {
	var out []appsv1.ReplicaSet
	for _, o := range w.rs.GetStore().List() {
		out = append(out, *o.(*appsv1.ReplicaSet))
	}
	return out
}

func (w *Watcher) cachedJobs() []batchv1.Job {
	var out []batchv1.Job
	for _, o := range w.jobs.GetStore().List() {
		out = append(out, *o.(*batchv1.Job))
	}
	return out
}

// Snapshot builds the inventory over [now-window, now) from the caches
// and what the watcher remembers: no request reaches the API server.
func (w *Watcher) Snapshot(now time.Time, window time.Duration) (*cluster.Snapshot, error) {
	o := &objects{pools: map[string]map[string][]string{}, ctrl: map[string][]string{}}
	for _, obj := range w.nodes.GetStore().List() {
		n, pools, notes := convertNode(obj.(*corev1.Node))
		o.nodes, o.pools[n.Name] = append(o.nodes, n), pools
		o.nodeNotes = append(o.nodeNotes, notes...)
	}
	own := newOwners(w.cachedReplicaSets(), w.cachedJobs())
	live := map[string]bool{}
	for _, obj := range w.pods.GetStore().List() {
		c := obj.(*cachedPod)
		o.pods = append(o.pods, c.model(own, now))
		o.noteClaimTemplates(c.Namespace, c.templates)
		live[string(c.UID)] = true
		if uids := c.controllers(own); uids != nil {
			o.ctrl[c.Namespace+"/"+c.Name] = uids
		}
	}
	o.dra = w.draObjects()
	var kueueNote string
	o.kueue, kueueNote = w.kueueObjects()
	// the partial notes in the list's order: DRA, the controls, Kueue
	var ctlNotes []string
	o.controls, ctlNotes = w.controlObjects()
	for _, note := range append(append([]string{w.draPartial}, ctlNotes...), w.kueuePartial, kueueNote) {
		if note != "" {
			o.partial = append(o.partial, note)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	start := now.Add(-window)
	w.forget(start, live)
	o.addGone(w.gonePods, w.goneNodes)
	for uid, p := range w.gonePods {
		if _, ok := o.ctrl[p.Key()]; !ok && w.goneCtrl[uid] != nil {
			o.ctrl[p.Key()] = w.goneCtrl[uid]
		}
	}
	s := buildSticky(o, now, window, w.held, w.reserved(o.pods))
	s.Source = fmt.Sprintf("%s (%s), watched", w.source, w.server)
	w.keepHeld(s)
	s.Notes = append(s.Notes, "which physical GPU a pod holds is assigned deterministically, not read from the node")
	return s, nil
}

// forget drops remembered objects that ended before start, and deletions
// of pods the API lists again (a tombstone raced a relist).
func (w *Watcher) forget(start time.Time, live map[string]bool) {
	for uid, p := range w.gonePods {
		if live[uid] || p.End.Before(start) {
			delete(w.gonePods, uid)
			delete(w.held, uid)
			delete(w.goneCtrl, uid)
		}
	}
	for name, n := range w.goneNodes {
		if n.Deleted.Before(start) {
			delete(w.goneNodes, name)
		}
	}
}

// addGone adds the remembered pods and the remembered nodes the API no
// longer lists (a node re-created under its name is the live one).
func (o *objects) addGone(pods map[string]cluster.Pod, nodes map[string]cluster.Node) {
	have := map[string]bool{}
	for _, n := range o.nodes {
		have[n.Name] = true
	}
	for name, n := range nodes {
		if !have[name] {
			o.nodes = append(o.nodes, n)
			o.pools[name] = map[string][]string{} // nothing is free on a deleted node
		}
	}
	started := map[string]time.Time{} // namespace/name → start of the live pod
	for i := range o.pods {
		started[o.pods[i].Key()] = o.pods[i].Start
	}
	uids := make([]string, 0, len(pods))
	for uid := range pods {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	for _, uid := range uids {
		p := pods[uid]
		// A pod re-created under its name (a StatefulSet's) started before
		// its predecessor's deletion was seen: end the old one then.
		if t, ok := started[p.Key()]; ok && t.Before(p.End) {
			p.End = t
			if t.Before(p.Start) {
				p.End = p.Start
			}
		}
		o.pods = append(o.pods, p)
	}
	sort.Slice(o.pods, func(i, j int) bool { return o.pods[i].Key() < o.pods[j].Key() })
}

// reserved maps each unit an ended pod held to the latest such end: the
// assignment gives it only to pods that started after.
func (w *Watcher) reserved(pods []cluster.Pod) map[string]time.Time {
	out := map[string]time.Time{}
	for i := range pods {
		p := &pods[i]
		if p.End.IsZero() {
			continue
		}
		for _, id := range w.held[p.UID] {
			if p.End.After(out[id]) {
				out[id] = p.End
			}
		}
	}
	return out
}

// keepHeld remembers the units of pods that hold some, and gives pods that
// ended (which the assignment skips) the units they had: the assignment
// kept those units from pods that started before the end.
func (w *Watcher) keepHeld(s *cluster.Snapshot) {
	for i := range s.Pods {
		p := &s.Pods[i]
		if len(p.GPUs) > 0 && p.UID != "" {
			w.held[p.UID] = unitIDs(p.GPUs)
		}
	}
	// A DRA unit is not reserved as the device plugin's are (a claim's
	// status says who holds it now), so an ended pod gets back only the
	// units that still exist and that no pod holds during its life; the
	// others (its node's ResourceSlices are gone, its claim's split
	// changed) are counted in a note.
	exists := map[string]bool{}
	for i := range s.Nodes {
		for _, g := range s.Nodes[i].GPUs {
			for _, u := range g.Units {
				exists[u.ID] = true
			}
		}
	}
	holders := map[string][]*cluster.Pod{}
	for i := range s.Pods {
		for _, h := range s.Pods[i].GPUs {
			holders[h.UnitID] = append(holders[h.UnitID], &s.Pods[i])
		}
	}
	lost := 0
	for i := range s.Pods {
		p := &s.Pods[i]
		if ids := w.held[p.UID]; !p.End.IsZero() && len(p.GPUs) == 0 {
			for _, id := range ids {
				if !exists[id] || slices.ContainsFunc(holders[id], func(q *cluster.Pod) bool { return overlaps(p, q, s.Window.End) }) {
					lost++
					continue
				}
				p.GPUs = append(p.GPUs, cluster.Holding{UnitID: id})
			}
		}
	}
	if lost > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d GPU units ended pods held no longer exist as they were or are held by other pods during their lives (a DRA claim's split changed, or its node's ResourceSlices are gone); those pods' GPU-hours are unallocated", lost))
	}
}

// overlaps reports whether p's and q's lives (q running until now when it
// has not ended) overlap.
func overlaps(p, q *cluster.Pod, now time.Time) bool {
	qEnd := q.End
	if qEnd.IsZero() {
		qEnd = now
	}
	return p.Start.Before(qEnd) && q.Start.Before(p.End)
}

func unitIDs(hs []cluster.Holding) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.UnitID
	}
	return out
}

// Counts says how many objects the caches hold, for logs and tests.
func (w *Watcher) Counts() map[string]int {
	out := map[string]int{}
	all := w.informers()
	if w.dra != nil {
		maps.Copy(all, w.dra.informers())
	}
	if w.kueue != nil {
		maps.Copy(all, w.kueue.informers)
	}
	w.mu.Lock()
	cw := w.controls
	w.mu.Unlock()
	if cw != nil {
		maps.Copy(all, cw.informers())
	}
	for name, inf := range all {
		out[name] = len(inf.GetStore().ListKeys())
	}
	return out
}
