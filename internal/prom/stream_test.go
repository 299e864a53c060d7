package prom

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/usage"
)

type point struct {
	Series string
	T, V   float64
}

func TestDecodeMatrix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		body         string
		want         []point
		wantWarnings []string
		wantErr      string
	}{
		{
			name: "two series, points in order",
			body: `{"status":"success","data":{"resultType":"matrix","result":[
				{"metric":{"pod":"a"},"values":[[100,"0.5"],[400,"1"]]},
				{"metric":{"pod":"b"},"values":[[100.5,"1e-3"]]}]}}`,
			want: []point{{"a", 100, 0.5}, {"a", 400, 1}, {"b", 100.5, 0.001}},
		},
		{
			name:         "warnings and unknown keys are kept or skipped",
			body:         `{"status":"success","data":{"resultType":"matrix","stats":{"x":[1,{"y":2}]},"result":[]},"warnings":["too many"],"infos":["i"]}`,
			wantWarnings: []string{"too many", "i"},
		},
		{
			name: "NaN points are gaps",
			body: `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"pod":"a"},"values":[[1,"NaN"],[2,"2"]]}]}}`,
			want: []point{{"a", 2, 2}},
		},
		{
			name: "null result is empty",
			body: `{"status":"success","data":{"resultType":"matrix","result":null}}`,
		},
		{name: "error status", body: `{"status":"error","errorType":"bad_data","error":"parse error"}`, wantErr: "bad_data: parse error"},
		{name: "vector instead of matrix", body: `{"status":"success","data":{"resultType":"vector","result":[]}}`, wantErr: `result type "vector"`},
		{name: "values before metric", body: `{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"1"]],"metric":{}}]}}`, wantErr: "before its metric"},
		{name: "value not a number", body: `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}`, wantErr: `point value "x"`},
		{name: "truncated body", body: `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"]`, wantErr: "EOF"},
		{name: "not json", body: `<html>502</html>`, wantErr: "decoding response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []point
			warnings, err := decodeMatrix(strings.NewReader(tt.body), func(l map[string]string) PointFunc {
				name := l["pod"]
				return func(ts, v float64) { got = append(got, point{name, ts, v}) }
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeSeries(t *testing.T) {
	t.Parallel()
	body := `{"status":"success","data":[{"__name__":"kube_node_info","node":"n1"},{"__name__":"kube_node_info","node":"n2"}]}`
	var got []string
	if _, err := decodeSeries(strings.NewReader(body), func(l map[string]string) { got = append(got, l["node"]) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n1", "n2"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// matrixBody is a query_range answer of series × points.
func matrixBody(series, points int) string {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for s := range series {
		if s > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metric":{"__name__":"DCGM_FI_PROF_GR_ENGINE_ACTIVE","Hostname":"node-%d","gpu":"%d","UUID":"GPU-%08x","pod":"p-%d","namespace":"ns"},"values":[`, s/8, s%8, s, s)
		for p := range points {
			if p > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d,"0.%03d"]`, 1793491200+300*p, (s*7+p)%1000)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}}")
	return b.String()
}

// BenchmarkDecodeMatrix measures the streaming decoder on one core:
// 100 series × one day of 5-minute points per request.
func BenchmarkDecodeMatrix(b *testing.B) {
	body := matrixBody(100, 289)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		var sum float64
		_, err := decodeMatrix(strings.NewReader(body), func(map[string]string) PointFunc {
			return func(_, v float64) { sum += v; n++ }
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkIngest is the decoder feeding activity accumulators, one per
// series, as Build does: samples/s on one core.
func BenchmarkIngest(b *testing.B) {
	body := matrixBody(100, 289)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		_, err := decodeMatrix(strings.NewReader(body), func(map[string]string) PointFunc {
			a := new(usage.Activity)
			return func(_, v float64) { a.Add(v, 300); n++ }
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
}

// TestLexerEdges: escapes, strings longer than the read buffer and values
// split across reads decode the same as from one buffer.
func TestLexerEdges(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100<<10)
	body := `{"status":"success","data":{"resultType":"matrix","result":[` +
		`{"metric":{"pod":"a\"b\\\\","long":"` + long + `","e":"q\\\"\u00e9"},"values":[[1.5,"2"],[1e3,"-3.25e-1"]]}]}}`
	for name, r := range map[string]func() io.Reader{
		"one buffer": func() io.Reader { return strings.NewReader(body) },
		"byte reads": func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
		"half reads": func() io.Reader { return iotest.HalfReader(strings.NewReader(body)) },
	} {
		t.Run(name, func(t *testing.T) {
			var got []point
			var labels map[string]string
			_, err := decodeMatrix(r(), func(l map[string]string) PointFunc {
				labels = l
				return func(ts, v float64) { got = append(got, point{l["pod"], ts, v}) }
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []point{{`a"b\\`, 1.5, 2}, {`a"b\\`, 1000, -0.325}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
			if labels["long"] != long || labels["e"] != `q\"é` {
				t.Errorf("labels long=%d bytes e=%q, want %d bytes and %q", len(labels["long"]), labels["e"], len(long), `q\"é`)
			}
		})
	}
}
