package sim

import "github.com/gpuwise/gpuwise/internal/cluster"

var (
	users = []string{
		"alice", "bob", "carol", "dan", "erin", "frank", "grace", "heidi", "ivan",
		"judy", "kim", "leo", "mia", "noah", "olga", "pat", "quinn", "raj", "sara",
		"tom", "uma", "vic", "wen", "xena", "yuri", "zoe",
	}
	// notebookTeams has empty entries: many notebook pods carry no team label.
	notebookTeams = []string{"data-science", "vision", "", "assistant", "data-science", ""}
)

// notebook is one notebook server pod holding whole GPUs.
type notebook struct {
	name     string
	owner    cluster.Owner
	team     string
	labels   []string // extra label pairs
	node     *cluster.Node
	units    []string
	from, to int64
	oomKills int
}

// notebooks runs the notebooks namespace: JupyterHub servers (bare pods)
// on the untainted p4d hub node, one culled and one started mid-window;
// Kubeflow notebooks (StatefulSets) and a bare pod on single-A100 nodes;
// and a notebook that landed on the untainted H100 serving node. They hold
// whole GPUs and are busy a few percent of the time.
func (c *cell) notebooks(l layout) {
	perm := c.rng.Perm(len(users))
	user := func(i int) string { return users[perm[i]] }
	for i := range 6 {
		from, to := -c.secs(1*day, 20*day), c.window
		switch i {
		case 0:
			to = c.window * 6 / 10
		case 5:
			from = c.window * 3 / 10
		}
		c.hubPod(user(i), l.hub, wholeGPUs(l.hub, i, 1), from, to)
	}
	c.hubPod(user(6), l.serve[0], wholeGPUs(l.serve[0], 7, 1), -c.secs(1*day, 5*day), c.window)
	bare := c.pfx + "jupyter-" + user(7)
	c.addNotebook(notebook{name: bare, owner: cluster.Owner{Kind: "Pod", Name: bare},
		node: l.notebook[0], units: wholeGPUs(l.notebook[0], 0, 1), from: -c.secs(1*day, 10*day), to: c.window})
	for i, kf := range []struct{ name, team string }{{"cv-experiments", "vision"}, {"llm-playground", "assistant"}} {
		node, sts := l.notebook[i+1], c.pfx+kf.name
		nb := notebook{name: sts + "-0", owner: cluster.Owner{Kind: "StatefulSet", Name: sts}, team: kf.team,
			labels: []string{"notebook-name", sts}, node: node, units: wholeGPUs(node, 0, 1),
			from: -c.secs(2*day, 30*day), to: c.window}
		if i == 1 {
			nb.oomKills = 2
		}
		c.addNotebook(nb)
	}
}

// hubPod is a JupyterHub single-user server: a bare pod named for its user.
func (c *cell) hubPod(user string, node *cluster.Node, units []string, from, to int64) {
	name := c.pfx + "jupyter-" + user
	c.addNotebook(notebook{
		name: name, owner: cluster.Owner{Kind: "Pod", Name: name}, team: c.pick(notebookTeams),
		labels: []string{"component", "singleuser-server", "hub.jupyter.org/username", user},
		node:   node, units: units, from: from, to: to,
	})
}

func (c *cell) addNotebook(nb notebook) {
	c.claim("notebooks", nb.name)
	memUse := use{3 * gi, 8 * gi, 0.05}
	if nb.oomKills > 0 { // working set pressed against the limit
		memUse = use{22 * gi, 9 * gi, 0.05}
	}
	cv := curve{shape: sessions, hi: c.between(0.5, 0.9), rnd: c.noise()}
	c.addPod(&podSpec{
		ns: "notebooks", name: nb.name, owner: nb.owner, labels: labels(nb.team, "notebook", nb.labels...),
		node: nb.node, from: nb.from, to: nb.to, units: nb.units, resource: gpuResource,
		ctrs: []ctr{{
			name: "notebook", cpuReq: 4000, memReq: 16 * gi, memLim: 32 * gi,
			cpu: use{0.05, 3, 0.3}, mem: memUse,
		}},
		load:     c.gpuLoad(cv, nb.node, c.between(0.03, 0.35), 0.1),
		oomKills: nb.oomKills,
	})
}

// devBoxes runs the dev namespace on the time-sliced L4 node: one dev-box
// Deployment per replica, scaled up for sessions of hours to days with
// gaps between them. The last replica of every GPU stays free.
func (c *cell) devBoxes(node *cluster.Node) {
	perm := c.rng.Perm(len(users))
	next := 0
	for _, g := range node.GPUs {
		for r, u := range g.Units {
			if r == len(g.Units)-1 {
				continue
			}
			name := c.pfx + "devbox-" + users[perm[next]]
			next++
			hash := c.suffix(10)
			for t := -c.secs(0, 2*day); t < c.window; {
				end := t + c.secs(4*hour, 60*hour)
				cv := curve{shape: sessions, hi: c.between(0.3, 0.7), rnd: c.noise()}
				c.addPod(&podSpec{
					ns: "dev", name: c.generated("dev", name+"-"+hash), owner: cluster.Owner{Kind: "Deployment", Name: name},
					labels: labels("app-dev", "devbox", "pod-template-hash", hash), node: node, from: t, to: end,
					units: []string{u.ID}, resource: sharedResource,
					ctrs: []ctr{{
						name: "devbox", cpuReq: 2000, memReq: 8 * gi, memLim: 8 * gi,
						cpu: use{0.02, 1.5, 0.3}, mem: use{1.5 * gi, 2 * gi, 0.05},
					}},
					load: c.gpuLoad(cv, node, c.between(0.02, 0.12), 0.1),
				})
				t = end + c.secs(2*hour, 36*hour)
			}
		}
	}
}
