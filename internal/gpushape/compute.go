package gpushape

import "strings"

// denseTFLOPS is each model's peak dense FP16/BF16 tensor throughput in
// TFLOPS, without structured sparsity (the datasheets' "with sparsity"
// figures are twice these). It ranks models by compute so that a cheaper
// GPU is only proposed when it can do the work; it is not a performance
// prediction. Sources, NVIDIA product datasheets unless noted:
//   - A100 40GB/80GB (SXM and PCIe): 312 (A100 datasheet, "BF16/FP16 Tensor Core").
//   - H100 SXM 80GB: 989 (H100 datasheet, 1,979 with sparsity).
//   - H100 NVL 94GB: 835 (H100 datasheet, NVL column, 1,671 with sparsity).
//   - H100 96GB (GH200): 989 (GH200 datasheet, same SXM-class H100).
//   - H200 141GB SXM: 989 (H200 datasheet, 1,979 with sparsity).
//   - B200: 2,250 (HGX B200 datasheet, 4.5 PF FP16/BF16 with sparsity per GPU).
//   - A30: 165 (A30 datasheet, 330 with sparsity).
//   - L4: 121 (L4 datasheet, 242 with sparsity).
//   - L40S: 362 (L40S datasheet, 733 with sparsity).
//   - A10: 125 (A10 datasheet, 250 with sparsity).
//   - A10G: 70 (AWS publishes no datasheet; the figure commonly given for
//     the g5 variant, e.g. Baseten "NVIDIA A10 vs A10G for ML model
//     inference": same memory as A10, lower tensor throughput).
//   - T4: 65 (T4 datasheet, "Mixed Precision (FP16/FP32)"; no sparsity).
//   - V100 SXM2 16/32GB: 125 (V100 datasheet, "Tensor Performance").
var denseTFLOPS = map[string]float64{
	"A100-40GB":  312,
	"A100-80GB":  312,
	"H100-80GB":  989,
	"H100-94GB":  835,
	"H100-96GB":  989,
	"H200-141GB": 989,
	"B200":       2250,
	"A30":        165,
	"L4":         121,
	"L40S":       362,
	"A10":        125,
	"A10G":       70,
	"T4":         65,
	"V100-16GB":  125,
	"V100-32GB":  125,
}

// DenseTFLOPS returns a model's peak dense FP16/BF16 tensor TFLOPS (no
// sparsity), and false for a model the table does not know: callers must
// not guess compute for it.
func DenseTFLOPS(model string) (float64, bool) {
	v, ok := denseTFLOPS[strings.ToUpper(strings.TrimSpace(model))]
	return v, ok
}

// TFLOPS is DenseTFLOPS of the model's name.
func (m Model) TFLOPS() (float64, bool) { return DenseTFLOPS(m.Name) }

// UsableMiB is the framebuffer a workload can count on on a whole GPU of
// the model: 90% of nominal, the same margin the MIG profiles assume
// (drivers, ECC and the CUDA context take the rest).
func (m Model) UsableMiB() int64 { return m.MemoryMiB * 9 / 10 }
