package snapshot

import "github.com/gpuwise/gpuwise/internal/cluster"

// Version 6 ends the header, after the DRA section, with the Kueue
// section: a presence byte, then ClusterQueues, LocalQueues,
// ResourceFlavors, Cohorts and Workloads, each a count and its items in
// declaration order; an optional limit is a presence byte and its value.

func (e *encoder) kueue(k *cluster.KueueInfo) {
	if k == nil {
		e.byte(0)
		return
	}
	e.byte(1)
	e.uvarint(uint64(len(k.ClusterQueues)))
	for i := range k.ClusterQueues {
		q := &k.ClusterQueues[i]
		e.str(q.Name)
		e.str(q.Cohort)
		e.uvarint(uint64(len(q.Quotas)))
		for _, r := range q.Quotas {
			e.str(r.Flavor)
			e.str(r.Resource)
			e.varint(r.Nominal)
			e.limit(r.BorrowingLimit)
			e.limit(r.LendingLimit)
			e.varint(r.Used)
			e.varint(r.Borrowed)
		}
		e.varint(int64(q.Pending))
		e.varint(int64(q.Admitted))
	}
	e.uvarint(uint64(len(k.LocalQueues)))
	for _, q := range k.LocalQueues {
		e.str(q.Namespace)
		e.str(q.Name)
		e.str(q.ClusterQueue)
	}
	e.uvarint(uint64(len(k.Flavors)))
	for _, f := range k.Flavors {
		e.str(f.Name)
		e.stringMap(f.NodeLabels)
	}
	e.uvarint(uint64(len(k.Cohorts)))
	for _, c := range k.Cohorts {
		e.str(c.Name)
		e.str(c.Parent)
	}
	e.uvarint(uint64(len(k.Workloads)))
	for i := range k.Workloads {
		e.queuedWorkload(&k.Workloads[i])
	}
}

func (e *encoder) queuedWorkload(w *cluster.QueuedWorkload) {
	e.str(w.Namespace)
	e.str(w.Name)
	e.str(w.Queue)
	e.str(w.ClusterQueue)
	e.str(w.Owner.Kind)
	e.str(w.Owner.Name)
	e.time(w.Created)
	e.time(w.Admitted)
	e.time(w.Finished)
	e.uvarint(uint64(len(w.GPUs)))
	for _, r := range sortedKeys(e, w.GPUs) {
		e.str(r)
		e.varint(w.GPUs[r])
	}
	e.strList(w.Flavors)
	e.strList(w.Pods)
}

func (e *encoder) limit(v *int64) {
	if v == nil {
		e.byte(0)
		return
	}
	e.byte(1)
	e.varint(*v)
}

func (d *decoder) limit() *int64 {
	if d.byte() == 0 || d.err != nil {
		return nil
	}
	v := d.varint()
	return &v
}

func (d *decoder) kueue() *cluster.KueueInfo {
	if d.byte() == 0 || d.err != nil {
		return nil
	}
	k := &cluster.KueueInfo{}
	if n := d.count("ClusterQueues"); n > 0 {
		k.ClusterQueues = make([]cluster.ClusterQueue, n)
		for i := range k.ClusterQueues {
			q := &k.ClusterQueues[i]
			q.Name, q.Cohort = d.str(), d.str()
			if m := d.count("queue quotas"); m > 0 {
				q.Quotas = make([]cluster.QueueQuota, m)
				for j := range q.Quotas {
					q.Quotas[j] = cluster.QueueQuota{Flavor: d.str(), Resource: d.str(), Nominal: d.varint(),
						BorrowingLimit: d.limit(), LendingLimit: d.limit(), Used: d.varint(), Borrowed: d.varint()}
				}
			}
			q.Pending, q.Admitted = d.int(), d.int()
		}
	}
	if n := d.count("LocalQueues"); n > 0 {
		k.LocalQueues = make([]cluster.LocalQueue, n)
		for i := range k.LocalQueues {
			k.LocalQueues[i] = cluster.LocalQueue{Namespace: d.str(), Name: d.str(), ClusterQueue: d.str()}
		}
	}
	if n := d.count("ResourceFlavors"); n > 0 {
		k.Flavors = make([]cluster.ResourceFlavor, n)
		for i := range k.Flavors {
			k.Flavors[i] = cluster.ResourceFlavor{Name: d.str(), NodeLabels: d.stringMap()}
		}
	}
	if n := d.count("Cohorts"); n > 0 {
		k.Cohorts = make([]cluster.Cohort, n)
		for i := range k.Cohorts {
			k.Cohorts[i] = cluster.Cohort{Name: d.str(), Parent: d.str()}
		}
	}
	if n := d.count("Workloads"); n > 0 {
		k.Workloads = make([]cluster.QueuedWorkload, n)
		for i := range k.Workloads {
			d.queuedWorkload(&k.Workloads[i])
		}
	}
	return k
}

func (d *decoder) queuedWorkload(w *cluster.QueuedWorkload) {
	w.Namespace, w.Name, w.Queue, w.ClusterQueue = d.str(), d.str(), d.str(), d.str()
	w.Owner = cluster.Owner{Kind: d.str(), Name: d.str()}
	w.Created, w.Admitted, w.Finished = d.time(), d.time(), d.time()
	if n := d.count("workload GPUs"); n > 0 {
		w.GPUs = make(map[string]int64, n)
		for range n {
			r := d.str()
			w.GPUs[r] = d.varint()
		}
		if len(w.GPUs) != n && d.err == nil {
			d.fail("workload %s/%s GPUs: a resource appears twice", w.Namespace, w.Name)
		}
	}
	w.Flavors, w.Pods = d.strs("workload flavors"), d.strs("workload pods")
}
