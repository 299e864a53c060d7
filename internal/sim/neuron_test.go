package sim

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// TestNeuronMonitorSeries: the Trainium node's devices are exported as
// neuron-monitor's Prometheus exporter writes them: one
// neuroncore_utilization_ratio series per NeuronCore (2 per Trainium, 32
// on the trn1.32xlarge) while a Job holds the device, labelled with the
// EC2 instance id of the node's providerID and no pod label, a ratio
// 0–1, as many samples per core as the snapshot's holdings of its device
// measured; and no DCGM series from the node.
func TestNeuronMonitorSeries(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 3, Scale: 1, Window: 2 * 24 * time.Hour, Neuron: true}
	var out bytes.Buffer
	snap, err := WriteOpenMetrics(cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	var node *cluster.Node
	for i := range snap.Nodes {
		if snap.Nodes[i].Vendor() == cluster.VendorNeuron {
			node = &snap.Nodes[i]
		}
	}
	if node == nil {
		t.Fatal("no Neuron node")
	}
	id := cluster.EC2InstanceID(providerID(node))
	if id == "" {
		t.Fatalf("providerID %q has no instance id", providerID(node))
	}
	want := map[int]int64{}      // samples per device
	wantMiB := map[int]float64{} // MiB × seconds per device
	wantSec := map[int]float64{}
	for _, p := range snap.Pods {
		for _, h := range p.GPUs {
			if dev, ok := strings.CutPrefix(h.UnitID, node.Name+"/gpu"); ok && h.Activity != nil {
				d, _ := strconv.Atoi(dev)
				want[d] += h.Activity.Samples
				wantMiB[d] += h.FramebufferMiB.Integral
				wantSec[d] += h.FramebufferMiB.Seconds
			}
		}
	}
	if len(want) != 16 {
		t.Fatalf("holdings on %d of the 16 devices", len(want))
	}
	got := map[int]int64{} // samples per core
	memBytes := map[int]float64{}
	memLines := map[int]int64{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "DCGM_") && strings.Contains(line, `"`+node.Name+`"`) {
			t.Fatalf("DCGM series from the Neuron node: %s", line)
		}
		if strings.HasPrefix(line, "neuroncore_memory_usage_") {
			i := strings.Index(line, `neuroncore="`) + len(`neuroncore="`)
			c, err := strconv.Atoi(line[i : i+strings.IndexByte(line[i:], '"')])
			f := strings.Fields(line[strings.LastIndexByte(line, '}')+1:])
			v, perr := strconv.ParseFloat(f[0], 64)
			if err != nil || perr != nil || v < 0 || !strings.Contains(line, `memory_location="None"`) || strings.Contains(line, "pod=") {
				t.Fatalf("memory series %s: want a core, bytes, memory_location None and no pod", line)
			}
			memBytes[c/2] += v
			memLines[c]++
			continue
		}
		if !strings.HasPrefix(line, "neuroncore_utilization_ratio{") {
			continue
		}
		if !strings.Contains(line, `instance_id="`+id+`"`) || !strings.Contains(line, `instance_type="trn1.32xlarge"`) || strings.Contains(line, "pod=") {
			t.Fatalf("labels of %s: want instance_id %q, the instance type and no pod", line, id)
		}
		f := strings.Fields(line[strings.LastIndexByte(line, '}')+1:])
		if v, err := strconv.ParseFloat(f[0], 64); err != nil || v < 0 || v > 1 {
			t.Fatalf("value of %s: not a ratio", line)
		}
		i := strings.Index(line, `neuroncore="`) + len(`neuroncore="`)
		c, err := strconv.Atoi(line[i : i+strings.IndexByte(line[i:], '"')])
		if err != nil {
			t.Fatalf("core of %s: %v", line, err)
		}
		got[c]++
	}
	if len(got) != 32 {
		t.Fatalf("%d cores reported, want 32", len(got))
	}
	for c, n := range got {
		if n != want[c/2] {
			t.Errorf("core %d: %d samples, want %d (its device's measured samples)", c, n, want[c/2])
		}
		if memLines[c] != 2*n {
			t.Errorf("core %d: %d memory samples, want 2 kinds × %d", c, memLines[c], n)
		}
	}
	// A device's cores' memory, summed over kinds and cores, is the
	// device's memory: its mean per sample is the holdings' mean MiB.
	for d, n := range want {
		got, mean := memBytes[d]/(1<<20)/float64(n), wantMiB[d]/wantSec[d]
		if math.Abs(got-mean) > 0.02*mean {
			t.Errorf("device %d: %.1f MiB a sample from the memory series, the holdings' mean %.1f", d, got, mean)
		}
	}
}
