package pricing

import (
	"fmt"
	"math"
	"strings"
)

// memoryVariants are the GPU families sold with more than one memory size
// (or named by it, like H200-141GB), so their normalized name carries it.
var memoryVariants = map[string]bool{
	"A100": true, "H100": true, "H200": true, "V100": true, "P100": true,
}

// NormalizeGPUModel returns the normalized model name for a catalog model
// and its per-GPU memory in GB: ("H100", 80) is "H100-80GB", ("L4", 24) is
// "L4". A vendor prefix and a " Blackwell" suffix are dropped and spaces
// become dashes. It is idempotent, and memoryGB 0 means unknown.
func NormalizeGPUModel(catalogModel string, memoryGB float64) string {
	name := strings.TrimSpace(catalogModel)
	for _, vendor := range []string{"NVIDIA ", "AMD "} {
		if len(name) > len(vendor) && strings.EqualFold(name[:len(vendor)], vendor) {
			name = name[len(vendor):]
		}
	}
	name = strings.TrimSuffix(name, " Blackwell")
	name = strings.Join(strings.Fields(name), "-")
	if hasMemorySuffix(name) || !memoryVariants[strings.ToUpper(name)] {
		return name
	}
	name = strings.ToUpper(name)
	if memoryGB <= 0 || math.IsNaN(memoryGB) || math.IsInf(memoryGB, 0) {
		return name
	}
	return fmt.Sprintf("%s-%.0fGB", name, math.Round(memoryGB))
}

// hasMemorySuffix reports whether name already ends in "-<digits>GB".
func hasMemorySuffix(name string) bool {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || !strings.HasSuffix(name, "GB") {
		return false
	}
	digits := name[i+1 : len(name)-2]
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}
