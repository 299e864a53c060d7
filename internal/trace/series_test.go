package trace

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	dutyHeader = "value,timestamp_anon,container_ip\n"
	memHeader  = "timestamp_anon,value,container_ip\n"
	goodMemory = memHeader + "1000,1024,p1\n1060,1024,p1\n"
)

// writeTrace writes the two metric files, gzipped, into a new directory.
// An empty text leaves that file out.
func writeTrace(t *testing.T, duty, memory string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{DutyCycleFile: duty, MemoryUsedFile: memory} {
		if text == "" {
			continue
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		zw := gzip.NewWriter(f)
		if _, err := zw.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadGenAIMalformedFixture(t *testing.T) {
	t.Parallel()
	_, err := ReadGenAI("testdata/malformed", GenAIOptions{})
	want := `testdata/malformed/pod_gpu_duty_cycle.csv.gz line 4: value "abc" is not a finite number`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to contain %q", err, want)
	}
}

func TestReadGenAIBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, duty, memory string
		wantErr            string
	}{
		{"missing column", "value,time,container_ip\n1,2,p1\n", goodMemory,
			DutyCycleFile + ` line 1: header is ["value" "time" "container_ip"], want the columns value, timestamp_anon and container_ip`},
		{"short row", dutyHeader + "1,1000,p1\n2,1060\n", goodMemory,
			DutyCycleFile + " line 3: wrong number of fields"},
		{"timestamp not a number", dutyHeader + "1,1000,p1\n2,soon,p1\n", goodMemory,
			DutyCycleFile + ` line 3: timestamp_anon "soon" is not a finite number`},
		{"NaN duty cycle", dutyHeader + "NaN,1000,p1\n", goodMemory,
			DutyCycleFile + ` line 2: value "NaN" is not a finite number`},
		{"duty cycle above 100%", dutyHeader + "1,1000,p1\n101,1060,p1\n", goodMemory,
			DutyCycleFile + " line 3: value 101: duty cycle is outside [0, 100] percent"},
		{"empty pod", dutyHeader + "1,1000,\n", goodMemory,
			DutyCycleFile + " line 2: empty container_ip"},
		{"rows out of time order", dutyHeader + "1,1060,p1\n1,1000,p1\n", goodMemory,
			DutyCycleFile + " line 3: pod p1: sample at 1000 is not after its previous sample at 1060"},
		{"duplicate sample", dutyHeader + "1,1000,p1\n2,1000,p1\n", goodMemory,
			DutyCycleFile + " line 3: pod p1: sample at 1000 is not after"},
		{"no step to infer", dutyHeader + "1,1000,p1\n1,1000,p2\n", goodMemory,
			DutyCycleFile + ": cannot infer the sampling step: no pod has two samples"},
		{"header only", dutyHeader, goodMemory, DutyCycleFile + ": no samples"},
		{"negative memory", dutyHeader + "1,1000,p1\n1,1060,p1\n", memHeader + "1000,-1,p1\n",
			MemoryUsedFile + " line 2: value -1: memory used is negative"},
		{"missing memory file", dutyHeader + "1,1000,p1\n1,1060,p1\n", "",
			MemoryUsedFile + ": no such file or directory"},
		{"missing duty-cycle file", "", "", DutyCycleFile + ": no such file or directory"},
		// Issue 31 M6: a CSV parse error that leaves no record (a quote
		// in a bare field, an unterminated quote) panicked in FieldPos.
		{"M6 bare quote panicked", dutyHeader + "1,1000,p1\n1,10\"60,p1\n", goodMemory,
			DutyCycleFile + ` line 3: bare " in non-quoted-field`},
		{"M6 unterminated quote panicked", dutyHeader + "1,1000,p1\n\"1,1060,p1\n", goodMemory,
			DutyCycleFile + ` line 3: extraneous or missing " in quoted-field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeTrace(t, tt.duty, tt.memory)
			_, err := ReadGenAI(dir, GenAIOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestReadGenAINotGzip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DutyCycleFile), []byte(dutyHeader+"1,1000,p1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadGenAI(dir, GenAIOptions{})
	if err == nil || !strings.Contains(err.Error(), DutyCycleFile+": gzip: invalid header") {
		t.Errorf("err = %v, want a gzip error naming the file", err)
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		counts map[float64]int
		want   float64
	}{
		{"none", nil, 0},
		{"one value", map[float64]int{57: 3}, 57},
		{"odd count", map[float64]int{57: 2, 114: 1}, 57},
		{"even count averages the middle two", map[float64]int{60: 1, 120: 1}, 90},
		{"long tail does not move it", map[float64]int{57: 10, 114: 2, 35967: 1}, 57},
	}
	for _, tt := range tests {
		if got := median(tt.counts); got != tt.want {
			t.Errorf("%s: median(%v) = %v, want %v", tt.name, tt.counts, got, tt.want)
		}
	}
}
