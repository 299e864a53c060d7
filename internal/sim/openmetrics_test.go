package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWriteOpenMetricsKeepsTheSnapshot checks that exporting draws no
// random numbers: the snapshot is byte for byte Generate's.
func TestWriteOpenMetricsKeepsTheSnapshot(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 3, Scale: 2, Window: 2 * 24 * time.Hour}
	var out bytes.Buffer
	got, err := WriteOpenMetrics(cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	if b := encode(t, cfg); !bytes.Equal(a, b) {
		t.Error("the exported snapshot differs from Generate's")
	}
	checkOpenMetrics(t, out.Bytes())
}

// checkOpenMetrics checks what promtool needs: samples with timestamps,
// each series in time order, and a final # EOF.
func checkOpenMetrics(t *testing.T, text []byte) {
	t.Helper()
	if !bytes.HasSuffix(text, []byte("# EOF\n")) {
		t.Fatal("no # EOF at the end")
	}
	last := map[string]float64{}
	metrics := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		end := strings.LastIndexByte(line, ' ')
		mid := strings.LastIndexByte(line[:end], ' ')
		ts, err := strconv.ParseFloat(line[end+1:], 64)
		if _, verr := strconv.ParseFloat(line[mid+1:end], 64); err != nil || verr != nil {
			t.Fatalf("bad sample line %q", line)
		}
		series := line[:mid]
		if prev, ok := last[series]; ok && ts <= prev {
			t.Fatalf("series %s goes back in time: %g after %g", series, ts, prev)
		}
		last[series] = ts
		metrics[series[:strings.IndexByte(series, '{')]]++
	}
	for _, m := range []string{"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_DEV_FB_USED",
		"container_cpu_usage_seconds_total", "container_memory_working_set_bytes", "kube_pod_info",
		"kube_pod_container_resource_requests", "kube_node_labels", "kube_replicaset_owner", "kube_job_owner",
		"kube_node_deletion_timestamp", "kube_pod_completion_time", "kube_pod_container_status_last_terminated_reason",
		"DCGM_FI_PROF_PCIE_RX_BYTES", "DCGM_FI_PROF_NVLINK_RX_BYTES", "container_cpu_cfs_periods_total",
		"container_cpu_cfs_throttled_periods_total", "container_oom_events_total",
		"vllm:request_success_total", "vllm:generation_tokens_total", "vllm:prompt_tokens_total", "vllm:num_requests_waiting",
		"nv_inference_request_success", "nv_inference_count", "nv_inference_queue_duration_us"} {
		if metrics[m] == 0 {
			t.Errorf("no %s samples", m)
		}
	}
	for s := range last {
		if strings.HasPrefix(s, "DCGM_") && strings.Contains(s, `Hostname="serve-l4-1"`) {
			t.Errorf("series %s from the node whose exporter is down", s)
		}
	}
}

func TestExposition(t *testing.T) {
	t.Parallel()
	body, err := Exposition(LiveConfig(Config{Window: 6 * time.Hour}, time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	for _, want := range []string{"DCGM_FI_PROF_GR_ENGINE_ACTIVE{", `GPU_I_PROFILE="3g.40gb"`, `vgpu="`, "kube_pod_info{", "container_cpu_usage_seconds_total{"} {
		if !strings.Contains(text, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
	if strings.Contains(text, "# EOF") {
		t.Error("exposition carries the OpenMetrics EOF marker")
	}
}
