package promtest

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
)

// ParseOpenMetrics reads the simulator's OpenMetrics lines: name{labels}
// value timestamp, label values without escapes but for \" and \\.
func ParseOpenMetrics(r io.Reader) ([]Series, error) {
	idx := map[string]int{}
	var out []Series
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		end := strings.LastIndexByte(line, ' ')
		mid := strings.LastIndexByte(line[:end], ' ')
		key := line[:mid]
		v, err := strconv.ParseFloat(line[mid+1:end], 64)
		if err != nil {
			return nil, err
		}
		ts, err := strconv.ParseFloat(line[end+1:], 64)
		if err != nil {
			return nil, err
		}
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, Series{Labels: parseLabels(key)})
		}
		out[i].Samples = append(out[i].Samples, wire.Sample{T: int64(math.Round(ts * 1000)), V: v})
	}
	return out, sc.Err()
}

func parseLabels(key string) map[string]string {
	open := strings.IndexByte(key, '{')
	l := map[string]string{"__name__": key[:open]}
	rest := key[open+1 : len(key)-1]
	for rest != "" {
		eq := strings.Index(rest, `="`)
		name := rest[:eq]
		rest = rest[eq+2:]
		var val strings.Builder
		i := 0
		for ; rest[i] != '"'; i++ {
			if rest[i] == '\\' {
				i++
			}
			val.WriteByte(rest[i])
		}
		l[name] = val.String()
		rest = strings.TrimPrefix(rest[i+1:], ",")
	}
	return l
}
