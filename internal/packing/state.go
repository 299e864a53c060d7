package packing

// GPU modes while packing.
const (
	gFree uint8 = iota
	gWhole
	gMIG
	gTimeSlice
	gShared
)

// gpu is one physical GPU's state while packing.
type gpu struct {
	mode uint8
	key  uint32 // MIG layout as a count vector (see layout.go)
	used int64  // shared milli, or time-slice replicas taken
	cls  int32  // time-slice class id
}

// node is one node's state while packing. A node's full (non-MIG) GPUs are
// either exclusive/shared or all time-sliced with one replica count: the
// device plugin applies one sharing config to a whole node.
type node struct {
	*Node
	m       *model
	class   int
	cpu     int64 // free
	mem     int64 // free
	gpus    []gpu
	free    int // GPUs in gFree
	excl    int // GPUs in gWhole or gShared
	tsGPUs  int
	migGPUs int
	shGPUs  int
	tsReps  int // the node's time-slicing replicas; 0 while no GPU is time-sliced
	// tsCls is the named time-slice class of the node while tsNamed pods
	// of a named class are on it: the device plugin offers the replicas
	// of all its GPUs as one resource and the kubelet hands any free
	// replica to any pod, so classes can be kept apart per node, not per
	// GPU. Unclassified pods (class "", id -1) go with any class.
	tsCls   int32
	tsNamed int
	ws      []int32
	opened  bool
	closed  bool // emptied and removed
	full    bool // no GPU can take any more GPU work
	pinned  bool // hosts a pinned workload or must be kept
}

// slot is where a workload went: a node and the GPUs it holds there.
type slot struct {
	node int32 // -1: unplaced
	gpus []int16
	cur  bool // placed with its current shape (pinned or fallback)
}

func (n *node) reset() {
	n.cpu, n.mem = n.CPUMilli, n.MemoryBytes
	for i := range n.gpus {
		n.gpus[i] = gpu{}
	}
	n.free, n.excl, n.tsGPUs, n.tsReps, n.migGPUs, n.shGPUs = len(n.gpus), 0, 0, 0, 0, 0
	n.tsCls, n.tsNamed = -1, 0
	n.ws = n.ws[:0]
	n.opened, n.closed, n.full, n.pinned = false, false, false, false
}

// choose picks the GPUs on n for w without changing anything; ok is false
// when w does not fit. It prefers the GPU already most used (best fit).
//
// With fresh false only GPUs already shared (MIG, time-sliced, shared)
// are considered, so that partly used GPUs anywhere fill up before a new
// GPU is cut.
func (n *node) choose(w *work, buf []int16, fresh bool) ([]int16, bool) {
	if !n.room(w) {
		return nil, false
	}
	buf = buf[:0]
	d := &w.d
	switch d.Kind {
	case NoGPU:
		return buf, true
	case Whole:
		if n.tsGPUs > 0 || n.free < d.GPUs {
			return nil, false
		}
		for i := range n.gpus {
			if n.gpus[i].mode == gFree {
				buf = append(buf, int16(i))
				if len(buf) == d.GPUs {
					return buf, true
				}
			}
		}
		return nil, false
	case MIG:
		if !fresh && n.migGPUs == 0 {
			return nil, false
		}
		return n.chooseMIG(w, buf, fresh)
	case TimeSlice:
		// A node has one replica count R and one class; a pod asking for
		// 1/r of a GPU fits when R ≤ r (it gets at least its share).
		if !n.tsFits(w) || (!fresh && n.tsGPUs == 0) {
			return nil, false
		}
		return n.chooseShared(buf, fresh, gTimeSlice, func(g *gpu) bool {
			return g.used < int64(n.tsReps)
		}, func(g *gpu) int64 { return g.used })
	case Shared:
		if n.tsGPUs > 0 || (!fresh && n.shGPUs == 0) {
			return nil, false
		}
		return n.chooseShared(buf, fresh, gShared, func(g *gpu) bool {
			return g.used+d.Milli <= MilliPerGPU
		}, func(g *gpu) int64 { return g.used })
	}
	return nil, false
}

// room reports whether w's CPU and memory and one more pod fit n.
func (n *node) room(w *work) bool {
	return w.cpu <= n.cpu && w.mem <= n.mem && (n.MaxPods == nil || len(n.ws) < *n.MaxPods)
}

// tsFits reports whether the node's sharing config admits a time-slice
// pod: no exclusive or shared GPU, a replica count no larger than the
// pod's, and the pod's class.
func (n *node) tsFits(w *work) bool {
	if n.tsGPUs == 0 {
		return n.excl == 0
	}
	return n.excl == 0 && n.tsReps <= w.d.Replicas && (w.cls < 0 || n.tsNamed == 0 || n.tsCls == w.cls)
}

func (n *node) chooseMIG(w *work, buf []int16, fresh bool) ([]int16, bool) {
	pi := n.m.profileIndex(w.prof)
	if pi < 0 {
		return nil, false
	}
	best, bestUsed, firstFree := -1, -1, -1
	for i := range n.gpus {
		g := &n.gpus[i]
		switch g.mode {
		case gFree:
			if firstFree < 0 {
				firstFree = i
			}
		case gMIG:
			if _, ok := n.m.add(g.key, pi); ok {
				if u := n.m.computeUsed(g.key); u > bestUsed {
					best, bestUsed = i, u
				}
			}
		}
	}
	if best < 0 && fresh {
		best = firstFree
	}
	if best < 0 {
		return nil, false
	}
	return append(buf, int16(best)), true
}

func (n *node) chooseShared(buf []int16, fresh bool, mode uint8, room func(*gpu) bool, used func(*gpu) int64) ([]int16, bool) {
	best, firstFree := -1, -1
	var bestUsed int64 = -1
	for i := range n.gpus {
		g := &n.gpus[i]
		switch {
		case g.mode == gFree && firstFree < 0:
			firstFree = i
		case g.mode == mode && room(g):
			if u := used(g); u > bestUsed {
				best, bestUsed = i, u
			}
		}
	}
	if best < 0 && fresh {
		best = firstFree
	}
	if best < 0 {
		return nil, false
	}
	return append(buf, int16(best)), true
}

// apply records w (index wi) on the chosen GPUs of n.
func (n *node) apply(wi int32, w *work, gpus []int16) {
	n.cpu -= w.cpu
	n.mem -= w.mem
	n.ws = append(n.ws, wi)
	for _, gi := range gpus {
		g := &n.gpus[gi]
		if g.mode == gFree {
			n.free--
		}
		switch w.d.Kind {
		case Whole:
			g.mode = gWhole
			n.excl++
		case MIG:
			if g.mode == gFree {
				n.migGPUs++
			}
			g.mode = gMIG
			g.key, _ = n.m.add(g.key, n.m.profileIndex(w.prof))
		case TimeSlice:
			if g.mode == gFree {
				n.tsGPUs++
				g.cls = w.cls
			}
			if w.cls >= 0 {
				n.tsCls = w.cls
				n.tsNamed++
			}
			g.mode = gTimeSlice
			g.used++
			if n.tsReps == 0 {
				n.tsReps = w.d.Replicas
			}
		case Shared:
			if g.mode == gFree {
				n.excl++
				n.shGPUs++
			}
			g.mode = gShared
			g.used += w.d.Milli
		}
	}
	n.full = n.gpuFull()
}

// remove undoes apply.
func (n *node) remove(wi int32, w *work, gpus []int16) {
	n.cpu += w.cpu
	n.mem += w.mem
	for i, x := range n.ws {
		if x == wi {
			n.ws = append(n.ws[:i], n.ws[i+1:]...)
			break
		}
	}
	for _, gi := range gpus {
		g := &n.gpus[gi]
		switch w.d.Kind {
		case Whole:
			*g = gpu{}
			n.excl--
		case MIG:
			g.key -= 1 << (uint(n.m.profileIndex(w.prof)) * migBits)
			if g.key == 0 {
				*g = gpu{}
				n.migGPUs--
			}
		case TimeSlice:
			g.used--
			if g.used == 0 {
				*g = gpu{}
				n.tsGPUs--
			}
			if w.cls >= 0 {
				n.tsNamed--
			}
		case Shared:
			g.used -= w.d.Milli
			if g.used == 0 {
				*g = gpu{}
				n.excl--
				n.shGPUs--
			}
		}
		if g.mode == gFree {
			n.free++
		}
	}
	if n.tsGPUs == 0 {
		n.tsReps = 0
	}
	n.full = n.gpuFull()
}

// gpuFull reports whether no GPU of n can take any more GPU work.
func (n *node) gpuFull() bool {
	if n.free > 0 {
		return false
	}
	for i := range n.gpus {
		g := &n.gpus[i]
		switch g.mode {
		case gMIG:
			if !n.m.isFull(g.key) {
				return false
			}
		case gTimeSlice:
			if g.used < int64(n.tsReps) {
				return false
			}
		case gShared:
			if g.used < MilliPerGPU {
				return false
			}
		}
	}
	return true
}

// fill is the share of n's GPUs in use (0–1), for ordering.
func (n *node) fill() float64 {
	if len(n.gpus) == 0 {
		return 0
	}
	var f float64
	for i := range n.gpus {
		g := &n.gpus[i]
		switch g.mode {
		case gWhole:
			f++
		case gMIG:
			f += float64(n.m.computeUsed(g.key)) / float64(max(n.m.ComputeSlices, 1))
		case gTimeSlice:
			f += float64(g.used) / float64(max(n.tsReps, 1))
		case gShared:
			f += float64(g.used) / MilliPerGPU
		}
	}
	return f / float64(len(n.gpus))
}
