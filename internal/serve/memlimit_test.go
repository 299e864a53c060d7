package serve_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/gpuwise/gpuwise/internal/serve"
)

func TestMemoryLimit(t *testing.T) {
	v2, v1 := "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"
	for _, tt := range []struct {
		name    string
		env     string
		ratio   float64
		files   map[string]string
		want    int64
		wantSrc string
	}{
		{"cgroup v2 limit", "", 0.9, map[string]string{v2: "536870912\n"}, 483183820, v2},
		{"cgroup v1 limit", "", 0.9, map[string]string{v1: "1073741824\n"}, 966367641, v1},
		{"v2 without a limit", "", 0.9, map[string]string{v2: "max\n", v1: "1073741824\n"}, 0, ""},
		{"v1 without a limit", "", 0.9, map[string]string{v1: "9223372036854771712\n"}, 0, ""},
		{"GOMEMLIMIT set: the runtime's", "400MiB", 0.9, map[string]string{v2: "536870912\n"}, 0, ""},
		{"ratio 0: off", "", 0, map[string]string{v2: "536870912\n"}, 0, ""},
		{"ratio above 1: off", "", 1.5, map[string]string{v2: "536870912\n"}, 0, ""},
		{"no cgroup files", "", 0.9, nil, 0, ""},
		{"garbage", "", 0.9, map[string]string{v2: "lots\n"}, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "GOMEMLIMIT" {
					return tt.env
				}
				return ""
			}
			read := func(p string) ([]byte, error) {
				if s, ok := tt.files[p]; ok {
					return []byte(s), nil
				}
				return nil, errors.New("open " + p + ": " + fs.ErrNotExist.Error())
			}
			got, src := serve.MemoryLimit(tt.ratio, getenv, read)
			if got != tt.want || src != tt.wantSrc {
				t.Errorf("MemoryLimit = %d from %q, want %d from %q", got, src, tt.want, tt.wantSrc)
			}
		})
	}
}

func TestMemoryPacerLimit(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		name        string
		live, other uint64
		capBytes    int64
		want        int64
	}{
		{"a quarter of the live heap over it, with the runtime's other memory", 400 * mib, 20 * mib, 0, 520 * mib},
		{"a small heap gets the minimum headroom", 40 * mib, 10 * mib, 0, 114 * mib},
		{"capped at the container's limit", 400 * mib, 20 * mib, 480 * mib, 480 * mib},
		{"under the cap: not raised to it", 100 * mib, 0, 480 * mib, 164 * mib},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := serve.NewMemoryPacer(serve.PacedMemoryHeadroom, tt.capBytes)
			if got := p.Limit(tt.live, tt.other); got != tt.want {
				t.Errorf("Limit(%d MiB live, %d MiB other) = %.1f MiB, want %.1f MiB", tt.live/mib, tt.other/mib, float64(got)/mib, float64(tt.want)/mib)
			}
		})
	}
}
