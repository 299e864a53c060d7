package trace

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ct "github.com/gpuwise/gpuwise/internal/cluster/clustertest"
	"github.com/gpuwise/gpuwise/internal/cost"
)

const nodeHeader = "sn,cpu_milli,memory_mib,gpu,model\n"

func FuzzReadOpenBNodes(f *testing.F) {
	f.Add(nodeHeader + "n0,64000,262144,2,P100\nn1,32000,262144,0,\n")
	f.Add(nodeHeader + "n0,-1,262144,2,\n\"n1,1\n")
	f.Add("\ufeff" + nodeHeader + ",,,,\n")
	f.Add(nodeHeader + "n0,99999999999999999999,1,1,G2\n")
	f.Fuzz(func(t *testing.T, in string) {
		nodes, err := ReadOpenBNodes(strings.NewReader(in))
		if err != nil {
			if nodes != nil {
				t.Fatalf("nodes %v returned with error %v", nodes, err)
			}
			return
		}
		for _, n := range nodes {
			if n.CPUMilli < 0 || n.MemoryMiB < 0 || n.GPUs < 0 || n.GPUs > maxOpenBGPUs {
				t.Fatalf("negative capacity accepted: %+v", n)
			}
			if n.GPUs > 0 && n.Model == "" {
				t.Fatalf("GPU node without a model accepted: %+v", n)
			}
		}
	})
}

// FuzzReadGenAI feeds the two metric files of the GenAI trace. A read
// either fails with an error or yields a snapshot whose cost report
// reconciles with finite numbers: no panic, no NaN, no time invented.
func FuzzReadGenAI(f *testing.F) {
	f.Add(gunzipFile(f, "testdata/small/"+DutyCycleFile), gunzipFile(f, "testdata/small/"+MemoryUsedFile))
	f.Add([]byte("value,timestamp_anon,container_ip\n50,1,a\n60,2,a\n"), []byte("timestamp_anon,value,container_ip\n1,1e9,a\n"))
	f.Add([]byte("value,timestamp_anon,container_ip\n50,1e300,a\n60,-1e300,b\n"), []byte("timestamp_anon,value,container_ip\n"))
	f.Add([]byte("container_ip,value,timestamp_anon\na,101,1\n"), []byte("x\n"))
	f.Fuzz(func(t *testing.T, duty, mem []byte) {
		// The files are served from memory: a temporary directory and two
		// file writes per execution cost more than the parse and held the
		// target to a few hundred executions a second (issue 31).
		files := map[string][]byte{filepath.Join("trace", DutyCycleFile): gzipBytes(duty), filepath.Join("trace", MemoryUsedFile): gzipBytes(mem)}
		s, err := readGenAI("trace", GenAIOptions{}, func(path string) (io.ReadCloser, error) {
			b, ok := files[path]
			if !ok {
				return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		})
		if err != nil {
			return
		}
		a, err := cost.Allocate(ct.Prepare(t, s), flatPricer{gpu: 4}, cost.DefaultOptions())
		if err != nil {
			t.Fatalf("Allocate: %v", err)
		}
		r, err := cost.NewReport(a, cost.DefaultReportOptions())
		if err != nil {
			t.Fatalf("a snapshot ReadGenAI accepted does not reconcile: %v", err)
		}
		h := r.Totals.GPUHours
		for _, v := range []float64{h.Allocated, h.Active, h.Idle, h.Unmeasured, r.Totals.TotalCost} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("non-finite or negative figure in %+v, total $%v", h, r.Totals.TotalCost)
			}
		}
		if h.Active > h.Allocated*(1+1e-9)+1e-9 {
			t.Fatalf("active %v GPU-hours above allocated %v", h.Active, h.Allocated)
		}
	})
}

func gunzipFile(f *testing.F, path string) []byte {
	file, err := os.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	zr, err := gzip.NewReader(file)
	if err != nil {
		f.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func gzipBytes(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}
