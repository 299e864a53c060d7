package cluster_test

import (
	"testing"

	"github.com/gpuwise/gpuwise/internal/cluster"
)

func TestRoundRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		milli, bytes   int64
		wantCPU, wantM bool
	}{
		{"whole cores from 2 and whole GiB from 4 look guessed", 2000, 4 << 30, true, true},
		{"one core and 2Gi are too small to tell", 1000, 2 << 30, false, false},
		{"measured-looking values", 2500, 4<<30 + 1<<20, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cluster.RoundCPU(tt.milli); got != tt.wantCPU {
				t.Errorf("RoundCPU(%d) = %v, want %v", tt.milli, got, tt.wantCPU)
			}
			if got := cluster.RoundMemory(tt.bytes); got != tt.wantM {
				t.Errorf("RoundMemory(%d) = %v, want %v", tt.bytes, got, tt.wantM)
			}
		})
	}
}

func TestMatchAny(t *testing.T) {
	t.Parallel()
	for ns, want := range map[string]bool{"dev": true, "team-dev": true, "ml-notebooks": true, "prod": false, "development": false} {
		if got := cluster.MatchAny(cluster.DefaultDevNamespaces, ns); got != want {
			t.Errorf("MatchAny(dev globs, %q) = %v, want %v", ns, got, want)
		}
	}
	if cluster.MatchAny([]string{"[bad"}, "[bad") {
		t.Error("a malformed glob matched")
	}
}

func TestPrepareRefusesNilAndReturnsNothingOnError(t *testing.T) {
	t.Parallel()
	if p, err := cluster.Prepare(nil); err == nil || p != nil {
		t.Errorf("Prepare(nil) = %v, %v; want an error", p, err)
	}
	s := &cluster.Snapshot{Nodes: []cluster.Node{{Name: "a"}, {Name: "a"}}}
	if p, err := cluster.Prepare(s); err == nil || p != nil {
		t.Errorf("Prepare(duplicate nodes) = %v, %v; want no Prepared and an error", p, err)
	}
}
