package pricing

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// formTokens end a GFD product's family name: "NVIDIA-A100-SXM4-80GB"
// is family A100 in an SXM4 form factor.
var formTokens = map[string]bool{
	"SXM": true, "SXM2": true, "SXM4": true, "SXM5": true, "PCIE": true, "NVL": true,
	"HBM3": true, "HBM3E": true, "HBM2": true, "HBM2E": true, "BLACKWELL": true,
	"SERVER": true, "EDITION": true, "NVLINK": true, "MAXQ": true, "MIG": true, "SHARED": true,
}

var memToken = regexp.MustCompile(`^(\d+)GB$`)

// standardGB are memory sizes GPUs are sold with; NVML's MiB figures are
// snapped to them (81559 MiB is an 80 GB H100, 143771 MiB a 141 GB H200).
var standardGB = []float64{8, 12, 16, 24, 32, 40, 48, 64, 80, 94, 96, 141, 144, 180, 192, 288}

// parseProduct splits a GFD product label into the model family and the
// memory its name states (0 when it states none):
// "NVIDIA-H100-80GB-HBM3" → ("H100", 80); "Tesla-T4" → ("T4", 0).
// Suffixes for MIG ("-MIG-1g.10gb") and sharing ("-SHARED") are dropped.
func parseProduct(product string) (family string, memGB float64) {
	p := strings.TrimSpace(product)
	if i := strings.Index(p, "-MIG-"); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSuffix(p, "-SHARED")
	var fam []string
	done := false
	for i, tok := range strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == ' ' || r == '_' }) {
		up := strings.ToUpper(tok)
		if i == 0 && (up == "NVIDIA" || up == "TESLA") {
			continue
		}
		if m := memToken.FindStringSubmatch(up); m != nil {
			if memGB == 0 {
				memGB, _ = strconv.ParseFloat(m[1], 64)
			}
			done = true
			continue
		}
		if formTokens[up] {
			done = true
		}
		if !done {
			fam = append(fam, tok)
		}
	}
	return strings.Join(fam, "-"), memGB
}

// snapGB converts NVML MiB to the nearest standard size within 3%, else
// to whole GiB.
func snapGB(mib int64) float64 {
	gib := float64(mib) / 1024
	for _, s := range standardGB {
		if math.Abs(gib-s)/s <= 0.03 {
			return s
		}
	}
	return math.Round(gib)
}

// ModelFromProduct normalizes a GPU feature discovery product label
// ("NVIDIA-H100-80GB-HBM3") and memory label in MiB to the catalog's model
// name ("H100-80GB") and the GPU's memory in GB (0 when unknown).
func ModelFromProduct(product string, memMiB int64) (model string, memGB float64) {
	family, memGB := parseProduct(product)
	if family == "" {
		return "", 0
	}
	if memGB == 0 && memMiB > 0 {
		memGB = snapGB(memMiB)
	}
	return NormalizeGPUModel(family, memGB), memGB
}
