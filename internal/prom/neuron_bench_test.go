package prom

import (
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

// BenchmarkMeasureNeuron is measureNeuron on 4 trn1-sized nodes (16
// devices, 32 NeuronCores each) over 3 days at 60 s, against the
// map-based measureNeuronRef: "whole" with the simulator's holders (Jobs
// holding all 16 devices, one after another), "mixed" with a lone
// partial holder and sharing pods as well. It reports the points read
// per second.
func BenchmarkMeasureNeuron(b *testing.B) {
	for _, c := range []struct {
		name  string
		kinds []int
	}{
		{"whole", []int{neuronSequential, neuronWhole}},
		{"mixed", []int{neuronSequential, neuronLone, neuronWhole, neuronShared}},
	} {
		in := genNeuron(1, 4, 16, 3, 60, 0, c.kinds)
		points := 0
		for _, m := range []map[neuronCore][]neuronPoint{in.nr.cores, in.nr.mem} {
			for _, ps := range m {
				points += len(ps)
			}
		}
		for _, f := range []struct {
			name    string
			measure func([]*podFacts, gpuRead, *neuronRead, map[string]map[string]int, cluster.Window) neuronMeasure
		}{{"ref", measureNeuronRef}, {"new", measureNeuron}} {
			b.Run(c.name+"/"+f.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					for _, p := range in.pods {
						for i := range p.pod.GPUs {
							p.pod.GPUs[i].Activity, p.pod.GPUs[i].FramebufferMiB = nil, nil
						}
					}
					if out, _, _ := measureWith(f.measure, in); out.measured == 0 {
						b.Fatal("nothing measured")
					}
				}
				b.ReportMetric(float64(points)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
			})
		}
	}
}
