package finops

import "testing"

// TestBand grades shares against the utilization and idle targets
// (docs/savings.md): at or past the good end ok, past the bad end act,
// review between.
func TestBand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    float64
		want Status
	}{{0.7, OK}, {0.6, OK}, {0.45, Review}, {0.29, Act}} {
		if got := band("u", "", &c.v, "%", "", utilTarget, utilInvestigate, true, "").Status; got != c.want {
			t.Errorf("utilization %v: %s, want %s", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		v    float64
		want Status
	}{{0.3, OK}, {0.5, Review}, {0.8, Act}} {
		if got := band("i", "", &c.v, "%", "", idleOK, idleAct, false, "").Status; got != c.want {
			t.Errorf("idle share %v: %s, want %s", c.v, got, c.want)
		}
	}
}
