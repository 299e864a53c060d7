package sim

import "github.com/gpuwise/gpuwise/internal/cluster"

// deployment is a Deployment whose replicas are pinned to placements.
type deployment struct {
	ns, name, team string
	at             []placement
	resource       string
	ctrs           []ctr
	curve          curve
	// fb is framebuffer as a share of the unit's memory: base and swing.
	fb, fbSwing float64
	// rollout, when positive, replaces every pod at that many seconds
	// from the window start (a new ReplicaSet), two minutes apart.
	rollout int64
	// serve is the inference server and its traffic; nil for none.
	serve *serveLoad
}

// vllm is a vLLM server of model: rps requests per second per pod at full
// activity, tokens per request, and requests waiting once activity passes
// 45% (num_requests_waiting).
func vllm(model string, rps, genTok, promptTok float64) *serveLoad {
	s := &serveLoad{server: cluster.ServerVLLM, model: model, rps: rps, genTok: genTok, promptTok: promptTok, queueFrom: 0.45, queueGain: 20}
	if m := s.latencyMedian(); m > 0 {
		s.latShares = latencyShares(VLLMLatencyBounds, m)
	}
	return s
}

// triton is a Triton server of model: rps requests per second per pod at
// full activity, batch inferences per request, and a queue once activity
// passes 45% (nv_inference_queue_duration_us).
func triton(model string, rps, batch float64) *serveLoad {
	return &serveLoad{server: cluster.ServerTriton, model: model, rps: rps, batch: batch, queueFrom: 0.45, queueGain: 8}
}

// placement is where one replica runs and what it holds.
type placement struct {
	node   *cluster.Node
	units  []string
	memMiB float64 // memory of one unit; 0: the node's GPU memory
}

// replicas pins one replica per unit of a node, starting at GPU i.
func replicas(node *cluster.Node, i, n int) []placement {
	at := make([]placement, n)
	for k, id := range wholeGPUs(node, i, n) {
		at[k] = placement{node: node, units: []string{id}}
	}
	return at
}

// addDeployment adds the deployment's pods, created days before the window.
func (c *cell) addDeployment(d deployment) {
	name := c.pfx + d.name
	hash, next := c.suffix(10), c.suffix(10)
	from := -c.secs(2*day, 40*day)
	for k, at := range d.at {
		to := c.window
		if d.rollout > 0 {
			to = d.rollout + int64(k)*2*minute
		}
		c.addPod(c.deployPod(d, name, hash, at, from, to))
		if d.rollout > 0 {
			c.addPod(c.deployPod(d, name, next, at, to, c.window))
		}
	}
}

func (c *cell) deployPod(d deployment, name, hash string, at placement, from, to int64) *podSpec {
	cv := d.curve
	cv.rnd = c.noise()
	s := &podSpec{
		ns: d.ns, name: c.generated(d.ns, name+"-"+hash), owner: cluster.Owner{Kind: "Deployment", Name: name},
		labels: labels(d.team, d.name, "pod-template-hash", hash), node: at.node, from: from, to: to,
		units: at.units, resource: d.resource, ctrs: d.ctrs,
		load: load{curve: cv, sm: c.between(0.5, 0.8), serve: d.serve},
	}
	if len(at.units) > 0 {
		mem := at.memMiB
		if mem == 0 {
			mem = float64(at.node.GPUs[0].MemoryMiB)
		}
		s.load.fbBase, s.load.fbSwing, s.load.fbCap = d.fb*mem, d.fbSwing*mem, mem
	}
	return s
}

// serverCtrs are an inference server with round-number requests and an
// envoy sidecar.
func serverCtrs(cores, memGi int64) []ctr {
	return []ctr{
		{name: "server", cpuReq: cores * 1000, memReq: memGi * gi, memLim: memGi * gi,
			cpu: use{0.4, float64(cores) * 0.5, 0.1}, mem: use{float64(memGi) * gi * 0.35, float64(memGi) * gi * 0.1, 0.02}},
		{name: "envoy", cpuReq: 250, cpuLim: 1000, memReq: 256 * mi, memLim: 512 * mi,
			cpu: use{0.02, 0.3, 0.2}, mem: use{90 * mi, 60 * mi, 0.05}},
	}
}

// daytime is a diurnal curve from lo at night to hi in the afternoon.
func daytime(lo, hi float64) curve { return curve{shape: diurnal, lo: lo, hi: hi} }

// small is small inference holding a whole GPU: 3–8% busy in 6–10 GiB.
func (c *cell) small(name, team string, at []placement) deployment {
	return deployment{
		ns: "inference", name: name, team: team, at: at, resource: gpuResource,
		ctrs: serverCtrs(4, 16), curve: curve{shape: steady, lo: 0.03, hi: 0.08},
		fb: c.between(6, 9.5) / 80, fbSwing: 0.005,
	}
}

// withServer gives a deployment an inference server.
func withServer(d deployment, s *serveLoad) deployment {
	d.serve = s
	return d
}

// serving runs the inference namespace on the H100 and L4 nodes. Serving
// node 1 is untainted; L4 node 1's dcgm-exporter is down.
func (c *cell) serving(l layout) {
	s1, s2 := l.serve[0], l.serve[1]
	chat := deployment{
		ns: "inference", name: "chat-llm", team: "assistant", resource: gpuResource,
		at:   append(replicas(s1, 0, 3), replicas(s2, 0, 2)...),
		ctrs: serverCtrs(8, 64), curve: daytime(0.05, 0.6), fb: 0.9, rollout: c.window * 45 / 100,
		serve: vllm("meta-llama/Llama-3.1-70B-Instruct", 6, 220, 900),
	}
	for _, d := range []deployment{
		chat,
		{ns: "inference", name: "embed-api", team: "search", resource: gpuResource, at: replicas(s1, 3, 2),
			ctrs: serverCtrs(8, 32), curve: daytime(0.04, 0.45), fb: 0.35, fbSwing: 0.1, serve: triton("bge-large-en-v1.5", 300, 16)},
		withServer(c.small("fraud-scorer", "risk", replicas(s1, 5, 1)), triton("fraud-xgb", 150, 1)),
		c.small("rerank-small", "search", replicas(s1, 6, 1)),
		{ns: "inference", name: "summarize-llm", team: "assistant", resource: gpuResource, at: replicas(s2, 2, 2),
			ctrs: serverCtrs(8, 64), curve: daytime(0.04, 0.5), fb: 0.9, serve: vllm("mistralai/Mistral-Small-24B-Instruct-2501", 3, 350, 3000)},
		{ns: "inference", name: "ocr-vision", team: "docs", resource: gpuResource, at: replicas(s2, 4, 1),
			ctrs: serverCtrs(6, 24), curve: daytime(0.03, 0.35), fb: 0.3, fbSwing: 0.15, serve: triton("trocr-base", 25, 4)},
		c.small("intent-classifier", "support", replicas(s2, 5, 1)),
		{ns: "inference", name: "asr-whisper", team: "voice", resource: gpuResource, at: replicas(l.serveL4, 0, 4),
			ctrs: serverCtrs(8, 32), curve: daytime(0.05, 0.6), fb: 0.45, fbSwing: 0.2, serve: triton("whisper-large-v3", 12, 1)},
		{ns: "inference", name: "tts-api", team: "voice", resource: gpuResource, at: replicas(l.edgeL4, 0, 1),
			ctrs: serverCtrs(2, 8), curve: daytime(0.05, 0.5), fb: 0.3, fbSwing: 0.2},
	} {
		c.addDeployment(d)
	}
}

// migServing runs inference on the MIG node, each Deployment requesting
// one MIG profile; some instances stay free.
func (c *cell) migServing(node *cluster.Node) {
	free := map[string][]string{} // profile → unit IDs, in GPU order
	for _, g := range node.GPUs {
		for _, u := range g.Units {
			free[u.Profile] = append(free[u.Profile], u.ID)
		}
	}
	for _, d := range []struct {
		name, team, profile string
		n                   int
		lo, hi              float64
	}{
		{"ner-extract", "docs", "3g.40gb", 3, 0.08, 0.55},
		{"sentiment-api", "support", "2g.20gb", 3, 0.1, 0.65},
		{"spam-filter", "trust-safety", "1g.10gb", 6, 0.1, 0.7},
		{"doc-layout", "docs", "4g.40gb", 1, 0.05, 0.45},
		{"llm-7b-chat", "assistant", "7g.80gb", 1, 0.05, 0.55},
		{"toxicity-embed", "trust-safety", "1g.20gb", 2, 0.08, 0.5},
	} {
		mem := float64(migShapes[d.profile][1]) * 10240 // MiB per memory slice of an 80GB GPU
		at := make([]placement, d.n)
		for k := range at {
			at[k] = placement{node: node, units: free[d.profile][k : k+1], memMiB: mem}
		}
		dep := deployment{
			ns: "inference", name: d.name, team: d.team, at: at, resource: "nvidia.com/mig-" + d.profile,
			ctrs: serverCtrs(4, 16), curve: daytime(d.lo, d.hi), fb: c.between(0.55, 0.8), fbSwing: 0.1,
		}
		if d.name == "llm-7b-chat" {
			dep.serve = vllm("Qwen/Qwen2.5-7B-Instruct", 10, 180, 600)
		}
		c.addDeployment(dep)
	}
}

// services runs pods that need no GPU. Without a GPU request they land on
// untainted GPU nodes as readily as on the system node: storefront on
// serving node 1 and the spot L4 node, the log aggregator on the hub node.
func (c *cell) services(l layout) {
	web := func(cores, memGi int64) []ctr {
		return []ctr{{
			name: "app", cpuReq: cores * 1000, memReq: memGi * gi, memLim: memGi * gi,
			cpu: use{0.05, float64(cores) * 0.8, 0.2}, mem: use{float64(memGi) * gi * 0.3, float64(memGi) * gi * 0.25, 0.05},
		}}
	}
	sys := l.system
	for _, d := range []deployment{
		{ns: "web", name: "storefront", team: "web", ctrs: web(1, 2), curve: daytime(0.1, 1),
			at: []placement{{node: l.serve[0]}, {node: l.edgeL4}, {node: sys}}},
		{ns: "web", name: "api-gateway", team: "web", ctrs: web(2, 4), curve: daytime(0.1, 1),
			at: []placement{{node: sys}, {node: sys}}},
		{ns: "logging", name: "log-aggregator", team: "platform", ctrs: web(4, 16), curve: daytime(0.3, 0.9),
			at: []placement{{node: l.hub}, {node: sys}}},
	} {
		c.addDeployment(d)
	}
	sts := c.pfx + "prometheus-k8s"
	c.claim("monitoring", sts+"-0")
	c.addPod(&podSpec{
		ns: "monitoring", name: sts + "-0", owner: cluster.Owner{Kind: "StatefulSet", Name: sts},
		labels: labels("platform", "prometheus"), node: sys, from: -c.secs(10*day, 60*day), to: c.window,
		ctrs: []ctr{{
			name: "prometheus", cpuReq: 1500, memReq: 12 * gi, memLim: 16 * gi,
			cpu: use{0.3, 0.6, 0.2}, mem: use{9 * gi, 2 * gi, 0.02},
		}},
		load: load{curve: curve{shape: steady, lo: 0.2, hi: 0.8, rnd: c.noise()}},
	})
}

// daemonSets runs agents on every node from its start to its end: the
// device plugin and dcgm-exporter on GPU nodes (namespace gpu-operator)
// and fluent-bit everywhere.
func (c *cell) daemonSets() {
	opTolerations := []cluster.Toleration{gpuToleration}
	anyTaint := []cluster.Toleration{{Operator: "Exists"}}
	for _, n := range c.nodes {
		from, to := c.nodeLife(n)
		from += 30 // the kubelet starts agents once the node is ready
		if n.HasGPUs() {
			c.agent("gpu-operator", "nvidia-device-plugin-daemonset", n, from, to, opTolerations, true,
				ctr{name: "nvidia-device-plugin", cpuReq: 50, memReq: 64 * mi, memLim: 128 * mi,
					cpu: use{0.002, 0.004, 0.3}, mem: use{28 * mi, 6 * mi, 0.05}})
			c.agent("gpu-operator", "nvidia-dcgm-exporter", n, from, to, opTolerations, true,
				ctr{name: "nvidia-dcgm-exporter", cpuReq: 100, memReq: 128 * mi, memLim: 512 * mi,
					cpu: use{0.01, 0.04, 0.3}, mem: use{140 * mi, 60 * mi, 0.05}})
		}
		c.agent("logging", "fluent-bit", n, from, to, anyTaint, false,
			ctr{name: "fluent-bit", cpuReq: 100, memReq: 128 * mi, memLim: 256 * mi,
				cpu: use{0.01, 0.08, 0.3}, mem: use{40 * mi, 30 * mi, 0.05}})
	}
}

func (c *cell) agent(ns, ds string, n *cluster.Node, from, to int64, tol []cluster.Toleration, gpuOnly bool, k ctr) {
	name := c.pfx + ds
	var sel map[string][]string
	if gpuOnly {
		sel = map[string][]string{"nvidia.com/gpu.present": {"true"}}
	}
	c.addPod(&podSpec{
		ns: ns, name: c.generated(ns, name), owner: cluster.Owner{Kind: "DaemonSet", Name: name},
		labels: labels("platform", ds), node: n, from: from, to: to, selector: sel,
		tolerations: append([]cluster.Toleration(nil), tol...),
		ctrs:        []ctr{k},
		load:        load{curve: curve{shape: steady, lo: 0.2, hi: 0.6, rnd: c.noise()}},
	})
}
