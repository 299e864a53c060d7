package cluster

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// MIGGeometry is a MIG-capable GPU's compute and memory slices: 7 and 8
// for A100/H100/H200/B200, 4 and 4 for A30.
func MIGGeometry(model string) (compute, memory int) {
	if strings.HasPrefix(model, "A30") {
		return 4, 4
	}
	return 7, 8
}

// profileRE matches a MIG profile as NVIDIA names it in resources and DCGM
// labels: "3g.40gb", "1g.10gb.me", "1g.10gb+me", "1c.3g.20gb".
var profileRE = regexp.MustCompile(`^(?:\d+c\.)?(\d+)g\.(\d+)gb(?:[.+][a-z.]+)?$`)

// ParseMIGProfile returns a profile's compute and memory slices on a GPU of
// model with gpuGB of memory (0: unknown, use the standard shapes). Names
// differ per product (1g.10gb on 80 GB, 1g.18gb on H200), so memory slices
// come from the profile's share of the GPU's memory, not from the name.
func ParseMIGProfile(profile, model string, gpuGB float64) (compute, memory int, ok bool) {
	m := profileRE.FindStringSubmatch(profile)
	if m == nil {
		return 0, 0, false
	}
	compute, _ = strconv.Atoi(m[1])
	gb, _ := strconv.ParseFloat(m[2], 64)
	geoC, geoM := MIGGeometry(model)
	if compute < 1 || compute > geoC || gb <= 0 {
		return 0, 0, false
	}
	if gpuGB > 0 {
		memory = int(math.Round(gb / (gpuGB / float64(geoM))))
	} else {
		memory = map[int]int{1: 1, 2: 2, 3: 4, 4: 4, 7: 8}[compute]
	}
	return compute, min(max(memory, 1), geoM), true
}
