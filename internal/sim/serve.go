package sim

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Exposition returns what the simulated cluster's dcgm-exporter, cAdvisor
// and kube-state-metrics would expose at the end of the window, in the
// Prometheus text format (no timestamps): the last value of every series
// that was still reporting during the window's last step.
func Exposition(cfg Config) ([]byte, error) {
	cfg = cfg.withDefaults()
	latest := &latestWriter{series: map[string]latestValue{}}
	if _, err := WriteOpenMetrics(cfg, latest); err != nil {
		return nil, err
	}
	end := float64(cfg.Start.Add(cfg.Window).UnixMilli())/1000 - float64(infoEvery)*cfg.Step.Seconds()
	keys := make([]string, 0, len(latest.series))
	for k, v := range latest.series {
		if v.t >= end {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, latest.series[k].v)
	}
	return b.Bytes(), nil
}

// Handler serves body as a /metrics endpoint.
func Handler(body []byte) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Write(body)
	})
	return mux
}

// LiveConfig is a config whose window ends at now, for serving.
func LiveConfig(cfg Config, now time.Time) Config {
	cfg = cfg.withDefaults()
	cfg.Start = now.Add(-cfg.Window).Truncate(cfg.Step)
	return cfg
}

type latestValue struct {
	v string
	t float64
}

// latestWriter keeps the last value of every series written to it as
// exposition lines "name{labels} value timestamp".
type latestWriter struct {
	buf    []byte
	series map[string]latestValue
}

func (l *latestWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	consumed := 0
	for {
		i := bytes.IndexByte(l.buf[consumed:], '\n')
		if i < 0 {
			break
		}
		l.line(l.buf[consumed : consumed+i])
		consumed += i + 1
	}
	l.buf = append(l.buf[:0], l.buf[consumed:]...)
	return len(p), nil
}

func (l *latestWriter) line(b []byte) {
	if len(b) == 0 || b[0] == '#' {
		return
	}
	end := bytes.LastIndexByte(b, ' ')
	mid := bytes.LastIndexByte(b[:max(end, 0)], ' ')
	if end < 0 || mid < 0 {
		return
	}
	t, err := strconv.ParseFloat(string(b[end+1:]), 64)
	if err != nil {
		return
	}
	l.series[string(b[:mid])] = latestValue{v: string(b[mid+1 : end]), t: t}
}
