package trace

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/shareddata"
)

var update = flag.Bool("update", false, "rewrite the openb golden files")

// realOpenBDir is the shared copy of the openb trace, relative to this package.
const realOpenBDir = "../../../shared/data/openb"

const (
	podHeader      = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
	shortPodHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
)

func TestReadOpenBPods(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []OpenBPod
		wantErr []string // substrings, in order
	}{
		{
			name: "fractional pod with a model list and a pending pod never scheduled",
			in: podHeader +
				"p0,6000,12288,1,460,V100M16||V100M32,LS,Running,10,20,10\n" +
				"p1,88000,327680,8,1000,,BE,Pending,5,9,\n",
			want: []OpenBPod{
				{Name: "p0", CPUMilli: 6000, MemoryMiB: 12288, NumGPU: 1, GPUMilli: 460, GPUSpec: []string{"V100M16", "V100M32"},
					QoS: "LS", Phase: "Running", Created: 10, Deleted: 20, Scheduled: 10, Lifecycle: true},
				{Name: "p1", CPUMilli: 88000, MemoryMiB: 327680, NumGPU: 8, GPUMilli: 1000,
					QoS: "BE", Phase: "Pending", Created: 5, Deleted: 9, Scheduled: OpenBNever, Lifecycle: true},
			},
		},
		{
			name: "5-column variant: no model constraint, no QoS, phase or times",
			in:   shortPodHeader + "p0,6000,12288,1,460\n" + "p1,20000,65536,0,0\n",
			want: []OpenBPod{
				{Name: "p0", CPUMilli: 6000, MemoryMiB: 12288, NumGPU: 1, GPUMilli: 460, Scheduled: OpenBNever},
				{Name: "p1", CPUMilli: 20000, MemoryMiB: 65536, Scheduled: OpenBNever},
			},
		},
		{
			name:    "5-column variant: an 11-field row names the variant header",
			in:      shortPodHeader + "p0,6000,12288,1,460,,LS,Running,0,1,0\n",
			wantErr: []string{`openb pods line 2: has 11 fields, want 5 (name,cpu_milli,memory_mib,num_gpu,gpu_milli)`},
		},
		{
			name:    "a non-integer names its line and column",
			in:      podHeader + "p0,6000,12288,1,460,,LS,Running,0,1,0\n" + "p1,6000,12288,1,abc,,LS,Running,0,1,0\n",
			wantErr: []string{`openb pods line 3: gpu_milli "abc": not an integer`},
		},
		{
			name:    "negative, empty name and short row are all reported",
			in:      podHeader + ",-1,12288,1,460,,LS,Running,0,1,0\n" + "p1,1\n",
			wantErr: []string{`line 2: name "": empty`, `line 2: cpu_milli "-1": negative`, `line 3: has 2 fields, want 11`},
		},
		{
			name:    "wrong header",
			in:      "name,cpu\np0,1\n",
			wantErr: []string{`openb pods line 1: header is "name,cpu", want name,cpu_milli`, `scheduled_time or name,cpu_milli,memory_mib,num_gpu,gpu_milli`},
		},
		{
			name:    "empty file",
			in:      "",
			wantErr: []string{"openb pods: empty file"},
		},
		{
			name:    "bare quote",
			in:      podHeader + "p\"0,1,1,1,1,,LS,Running,0,1,0\n",
			wantErr: []string{`openb pods line 2: bare " in non-quoted-field`},
		},
		{
			// Issue 31 low item: 10^8 GPUs, a deletion before the creation
			// and an unknown phase were accepted.
			name: "openb reader accepts 10^8 GPUs, inverted times and unknown phases",
			in: podHeader + "p0,6000,12288,100000000,460,,LS,Running,0,1,0\n" +
				"p1,6000,12288,1,460,,LS,Running,20,10,\n" +
				"p2,6000,12288,1,460,,LS,Running,10,20,30\n" +
				"p3,6000,12288,1,460,,LS,Sleeping,10,20,10\n",
			wantErr: []string{`line 2: num_gpu "100000000": more than 64 GPUs`, `line 3: deletion_time "10": before creation_time 20`,
				`line 4: scheduled_time "30": outside [creation_time 10, deletion_time 20]`, `line 5: pod_phase "Sleeping": not a pod phase`},
		},
		{
			name:    "stops after ten errors",
			in:      podHeader + strings.Repeat("p,x,1,1,1,,LS,Running,0,1,0\n", 30),
			wantErr: []string{"line 2:", "line 11:", "stopped after 10 errors"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadOpenBPods(strings.NewReader(tt.in))
			checkErrs(t, err, tt.wantErr)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadOpenBNodes(t *testing.T) {
	t.Parallel()
	const header = "sn,cpu_milli,memory_mib,gpu,model\n"
	tests := []struct {
		name    string
		in      string
		want    []OpenBNode
		wantErr []string
	}{
		{
			name: "GPU and CPU-only nodes",
			in:   header + "n0,64000,262144,2,P100\n" + "n1,32000,262144,0,\n",
			want: []OpenBNode{
				{Name: "n0", CPUMilli: 64000, MemoryMiB: 262144, GPUs: 2, Model: "P100"},
				{Name: "n1", CPUMilli: 32000, MemoryMiB: 262144},
			},
		},
		{
			name:    "GPUs without a model",
			in:      header + "n0,64000,262144,2,\n",
			wantErr: []string{`openb nodes line 2: model "": empty on a node with 2 GPUs`},
		},
		{
			name:    "openb reader accepts 10^8 GPUs per node",
			in:      header + "n0,64000,262144,100000000,T4\n",
			wantErr: []string{`openb nodes line 2: gpu "100000000": more than 64 GPUs`},
		},
		{
			name:    "overflow",
			in:      header + "n0,99999999999999999999,262144,2,T4\n",
			wantErr: []string{`openb nodes line 2: cpu_milli "99999999999999999999": out of range`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadOpenBNodes(strings.NewReader(tt.in))
			checkErrs(t, err, tt.wantErr)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

// checkErrs wants err to contain each of want in order, or to be nil when
// want is empty.
func checkErrs(t *testing.T, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	msg := err.Error()
	for _, w := range want {
		i := strings.Index(msg, w)
		if i < 0 {
			t.Fatalf("error %q lacks %q", err, w)
		}
		msg = msg[i+len(w):]
	}
}

func TestReadOpenBRealData(t *testing.T) {
	t.Parallel()
	shareddata.Need(t, realOpenBDir)
	nodes := readFile(t, filepath.Join(realOpenBDir, "openb_node_list_gpu_node.csv"), ReadOpenBNodes)
	gpus := 0
	for _, n := range nodes {
		gpus += n.GPUs
	}
	if len(nodes) != 1213 || gpus != 6212 {
		t.Errorf("GPU node list: %d nodes, %d GPUs; want 1213, 6212", len(nodes), gpus)
	}
	all := readFile(t, filepath.Join(realOpenBDir, "openb_node_list_all_node.csv"), ReadOpenBNodes)
	if len(all) != 1523 {
		t.Errorf("all-node list: %d nodes, want 1523", len(all))
	}
	pods := readFile(t, filepath.Join(realOpenBDir, "openb_pod_list_default.csv"), ReadOpenBPods)
	var frac, never int
	for _, p := range pods {
		if p.NumGPU == 1 && p.GPUMilli < 1000 {
			frac++
		}
		if p.Scheduled == OpenBNever {
			never++
		}
	}
	if len(pods) != 8152 || frac != 3078 || never != 897 {
		t.Errorf("pods: %d, fractional %d, never scheduled %d; want 8152, 3078, 897", len(pods), frac, never)
	}
}

func readFile[T any](t *testing.T, path string, read func(io.Reader) ([]T, error)) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := read(f)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// FuzzReadOpenBPods feeds both shapes. Whatever the input, the reader
// returns pods or an error, never both, and no negative request; pods it
// accepts, written back in their file's shape, read back the same.
func FuzzReadOpenBPods(f *testing.F) {
	f.Add(podHeader + "p0,6000,12288,1,460,V100M16|V100M32,LS,Running,10,20,10\n")
	f.Add(podHeader + "p\"0,1,1,1,1,,LS,Running,0,1,\n\"a\n")
	f.Add("\ufeff" + podHeader + ",,,,,,,,,,\n")
	f.Add(shortPodHeader + "p0,6000,12288,1,460\np1,88000,327680,8,1000\n")
	f.Add(shortPodHeader + "p0,6000,12288,1,460,,LS,Running,0,1,0\n")
	f.Add("\ufeff" + shortPodHeader + ",,,,\n\"q\n")
	f.Fuzz(func(t *testing.T, in string) {
		pods, err := ReadOpenBPods(strings.NewReader(in))
		if err != nil && pods != nil {
			t.Fatalf("pods %v returned with error %v", pods, err)
		}
		for _, p := range pods {
			if p.CPUMilli < 0 || p.MemoryMiB < 0 || p.NumGPU < 0 || p.GPUMilli < 0 {
				t.Fatalf("negative request accepted: %+v", p)
			}
			if p.NumGPU > maxOpenBGPUs || p.Lifecycle && (p.Deleted < p.Created || !slices.Contains(openbPhases, p.Phase) ||
				p.Scheduled != OpenBNever && (p.Scheduled < p.Created || p.Scheduled > p.Deleted)) {
				t.Fatalf("out-of-range pod accepted: %+v", p)
			}
			if !p.Lifecycle && (p.GPUSpec != nil || p.QoS != "" || p.Phase != "" || p.Created != 0 || p.Deleted != 0 || p.Scheduled != OpenBNever) {
				t.Fatalf("5-column row with values it cannot have: %+v", p)
			}
		}
		if len(pods) == 0 {
			return
		}
		again, err := ReadOpenBPods(bytes.NewReader(writeOpenBPods(t, pods)))
		if err != nil {
			t.Fatalf("written back, the pods do not read: %v", err)
		}
		if diff := cmp.Diff(pods, again); diff != "" {
			t.Fatalf("written back and read again (-first +again):\n%s", diff)
		}
	})
}

// writeOpenBPods writes pods in their shape: 5 columns when they carry no
// lifecycle. Model lists are written without their empty items, which the
// reader drops.
func writeOpenBPods(t *testing.T, pods []OpenBPod) []byte {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	header := strings.Split(strings.TrimSpace(podHeader), ",")
	if !pods[0].Lifecycle {
		header = header[:5]
	}
	rows := [][]string{header}
	for _, p := range pods {
		row := []string{p.Name, itoa(p.CPUMilli), itoa(p.MemoryMiB), itoa(int64(p.NumGPU)), itoa(p.GPUMilli)}
		if p.Lifecycle {
			sched := ""
			if p.Scheduled != OpenBNever {
				sched = itoa(p.Scheduled)
			}
			row = append(row, strings.Join(p.GPUSpec, "|"), p.QoS, p.Phase, itoa(p.Created), itoa(p.Deleted), sched)
		}
		rows = append(rows, row)
	}
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestReadOpenBPodFiles reads the good fixtures of both shapes against
// their .json goldens and the bad ones against their .err goldens
// (go test -run TestReadOpenBPodFiles -update rewrites them).
func TestReadOpenBPodFiles(t *testing.T) {
	t.Parallel()
	good, _ := filepath.Glob("testdata/openb/good/*.csv")
	bad, _ := filepath.Glob("testdata/openb/bad/*.csv")
	if len(good) < 2 || len(bad) < 2 {
		t.Fatalf("fixtures missing: good %v, bad %v", good, bad)
	}
	for _, path := range good {
		pods := readFile(t, path, ReadOpenBPods)
		got, err := json.MarshalIndent(pods, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, strings.TrimSuffix(path, ".csv")+".json", append(got, '\n'))
	}
	for _, path := range bad {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		pods, err := ReadOpenBPods(bytes.NewReader(in))
		if err == nil || pods != nil {
			t.Errorf("%s: read %d pods, error %v; want an error and no pods", path, len(pods), err)
			continue
		}
		checkGolden(t, strings.TrimSuffix(path, ".csv")+".err", []byte(err.Error()+"\n"))
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}
