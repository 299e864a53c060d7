package gpushape

import "testing"

func TestDenseTFLOPSCoversEveryModel(t *testing.T) {
	for _, m := range Models() {
		v, ok := m.TFLOPS()
		if !ok || v <= 0 {
			t.Errorf("%s: no dense TFLOPS figure", m.Name)
		}
	}
	if _, ok := DenseTFLOPS("MI300X"); ok {
		t.Error("unknown model got a compute figure")
	}
	// Ordering a cheaper-model decision relies on.
	l4, _ := DenseTFLOPS("l4")
	a100, _ := DenseTFLOPS("A100-80GB")
	t4, _ := DenseTFLOPS("T4")
	if !(t4 < l4 && l4 < a100) {
		t.Errorf("T4 %v < L4 %v < A100 %v does not hold", t4, l4, a100)
	}
}

func TestUsableMiB(t *testing.T) {
	if got := mustModel(t, "L4").UsableMiB(); got != 24*1024*9/10 {
		t.Errorf("L4 usable = %d MiB", got)
	}
}
