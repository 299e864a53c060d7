package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gpuwise/gpuwise/internal/cluster"
)

// demo is the Scale 1 default snapshot, generated once for the tests that
// only read it.
var demo = sync.OnceValues(func() (*cluster.Snapshot, error) { return Generate(DefaultConfig()) })

func demoSnapshot(t *testing.T) *cluster.Snapshot {
	t.Helper()
	s, err := demo()
	if err != nil {
		t.Fatalf("Generate(DefaultConfig()): %v", err)
	}
	return s
}

func encode(t *testing.T, cfg Config) []byte {
	t.Helper()
	s, err := Generate(cfg)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("encoding snapshot: %v", err)
	}
	return b
}

func TestSameSeedGivesIdenticalSnapshot(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Scale = 3
	a, b := encode(t, cfg), encode(t, cfg)
	if !bytes.Equal(a, b) {
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		t.Fatalf("two runs differ at byte %d: %q vs %q", i, a[i:min(i+80, len(a))], b[i:min(i+80, len(b))])
	}
	other := cfg
	other.Seed++
	if bytes.Equal(a, encode(t, other)) {
		t.Errorf("seeds %d and %d gave the same snapshot", cfg.Seed, other.Seed)
	}
}

func TestCellsDoNotDependOnScale(t *testing.T) {
	t.Parallel()
	one := demoSnapshot(t)
	cfg := DefaultConfig()
	cfg.Scale = 2
	two, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(one.Nodes, two.Nodes[:len(one.Nodes)]); diff != "" {
		t.Errorf("cell 0 nodes differ between Scale 1 and 2 (-scale1 +scale2):\n%s", diff)
	}
}

func TestGeneratePassesPrepare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"demo", DefaultConfig()},
		{"seed 0, scale 2", Config{Seed: 0, Scale: 2}},
		{"seed 42, scale 5", Config{Seed: 42, Scale: 5}},
		{"one day at 1-minute steps", Config{Seed: 7, Window: 24 * time.Hour, Step: time.Minute}},
		{"30 days at hourly steps, start off the hour", Config{Seed: 9, Start: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Window: 30 * 24 * time.Hour, Step: time.Hour}},
		{"3 hours at 7-minute steps", Config{Seed: 3, Window: 3 * time.Hour, Step: 7 * time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Generate(tc.cfg)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if _, err := cluster.Prepare(s); err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			scale := tc.cfg.withDefaults().Scale
			want := scale * GPUsPerScale
			if tc.cfg.AMD {
				want += scale * AMDPerScale
			}
			if tc.cfg.Neuron {
				want += scale * NeuronPerScale
			}
			if tc.cfg.DRA {
				want += scale * DRAPerScale
			}
			if tc.cfg.HAMi {
				want += scale * HAMiPerScale
			}
			if got := countGPUs(s); got != want {
				t.Errorf("%d GPUs, want %d", got, want)
			}
			source := fmt.Sprintf("simulated cluster (seed %d, scale %d)", tc.cfg.Seed, scale)
			if s.Source != source || s.ActivityMetric != "DCGM_FI_PROF_GR_ENGINE_ACTIVE" {
				t.Errorf("source %q, metric %q; want %q, DCGM_FI_PROF_GR_ENGINE_ACTIVE", s.Source, s.ActivityMetric, source)
			}
		})
	}
}

func TestConfigValidateListsEveryProblem(t *testing.T) {
	t.Parallel()
	err := Config{Window: time.Minute, Step: time.Millisecond, Scale: -1}.Validate()
	if err == nil {
		t.Fatal("Validate accepted a bad config")
	}
	for _, want := range []string{"window:", "step:", "scale:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := Generate(Config{Window: 7 * 24 * time.Hour, Step: time.Second / 2}); err == nil {
		t.Error("Generate accepted a sub-second step")
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config (all defaults) rejected: %v", err)
	}
}

// TestSamplesCoverPodLife checks that each series covers exactly the part
// of its pod's life inside the window, at one sample per step.
func TestSamplesCoverPodLife(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 5, Window: 2 * 24 * time.Hour, Step: 7 * time.Minute}
	s, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	step := cfg.Step.Seconds()
	for i := range s.Pods {
		p := &s.Pods[i]
		from, to, ok := s.Window.Interval(p.Start, p.End)
		if !ok {
			t.Fatalf("pod %s lies outside the window", p.Key())
		}
		life := to.Sub(from).Seconds()
		wantSamples := int64(math.Ceil(life / step))
		check := func(what string, secs float64, samples int64) {
			if math.Abs(secs-life) > 1e-6 || samples != wantSamples {
				t.Errorf("pod %s %s: %g s in %d samples, want %g s in %d", p.Key(), what, secs, samples, life, wantSamples)
			}
		}
		for _, c := range p.Containers {
			check(c.Name+" cpu", c.CPU.Seconds, c.CPU.Samples)
			check(c.Name+" memory", c.Memory.Seconds, c.Memory.Samples)
		}
		for _, h := range p.GPUs {
			if h.Activity != nil {
				check(h.UnitID+" activity", h.Activity.Seconds, h.Activity.Samples)
				check(h.UnitID+" framebuffer", h.FramebufferMiB.Seconds, h.FramebufferMiB.Samples)
			}
		}
	}
}

func countGPUs(s *cluster.Snapshot) int {
	n := 0
	for _, node := range s.Nodes {
		n += len(node.GPUs)
	}
	return n
}

// countSamples counts the samples added to every series of s.
func countSamples(s *cluster.Snapshot) int64 {
	var n int64
	for i := range s.Pods {
		p := &s.Pods[i]
		for _, h := range p.GPUs {
			if h.Activity != nil {
				n += h.Activity.Samples + h.SMActive.Samples + h.FramebufferMiB.Samples
			}
		}
		for _, c := range p.Containers {
			n += c.CPU.Samples + c.Memory.Samples
		}
	}
	return n
}
