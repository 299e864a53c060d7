package wire_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/prom/wire"
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
			body:         `{"status":"success","data":{"resultType":"matrix","stats":{"x":[1,{"y":2}],"t":true,"f":false,"n":null},"result":[]},"warnings":["too many"],"infos":["i"]}`,
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
		{name: "empty body", body: ``, wantErr: "unexpected EOF"},
		{name: "not json", body: `<html>502</html>`, wantErr: "decoding response"},
		{name: "a number of 100 digits", body: `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[` + strings.Repeat("1", 100) + `,"1"]]}]}}`, wantErr: "number longer than"},
		{name: "unknown values nested 100 deep", body: `{"status":"success","x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, wantErr: "nested deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []point
			warnings, err := wire.DecodeMatrix(strings.NewReader(tt.body), wire.Limits{}, func(l wire.Labels) wire.PointFunc {
				name := l.Get("pod")
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
	if _, err := wire.DecodeSeries(strings.NewReader(body), wire.Limits{}, func(l wire.Labels) { got = append(got, l.Get("node")) }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n1", "n2"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDecodeLimits: a listing of more series than allowed, or a label
// longer than allowed, fails with a wire.LimitError naming the option, however
// the string is split across reads.
func TestDecodeLimits(t *testing.T) {
	t.Parallel()
	list := func(n int, value string) string {
		var b strings.Builder
		b.WriteString(`{"status":"success","data":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"node":"n%d","v":"%s"}`, i, value)
		}
		b.WriteString("]}")
		return b.String()
	}
	tests := []struct {
		name       string
		body       string
		lim        wire.Limits
		wantOption string
	}{
		{"1000 series, 999 allowed", list(1000, "x"), wire.Limits{MaxSeries: 999}, "--prometheus-max-series"},
		{"1000 series, 1000 allowed", list(1000, "x"), wire.Limits{MaxSeries: 1000}, ""},
		{"a 200 KiB label, 64 KiB allowed", list(1, strings.Repeat("v", 200<<10)), wire.Limits{MaxLabelBytes: 64 << 10}, "--prometheus-max-label-bytes"},
		{"a 100-byte label, 99 allowed", list(1, strings.Repeat("v", 100)), wire.Limits{MaxLabelBytes: 99}, "--prometheus-max-label-bytes"},
		{"an escaped 100-byte label, 99 allowed", list(1, `\"`+strings.Repeat("v", 98)), wire.Limits{MaxLabelBytes: 99}, "--prometheus-max-label-bytes"},
		{"a 100-byte label, 100 allowed", list(1, strings.Repeat("v", 100)), wire.Limits{MaxLabelBytes: 100}, ""},
	}
	for _, tt := range tests {
		for name, r := range map[string]func() io.Reader{
			"one buffer": func() io.Reader { return strings.NewReader(tt.body) },
			"half reads": func() io.Reader { return iotest.HalfReader(strings.NewReader(tt.body)) },
		} {
			t.Run(tt.name+", "+name, func(t *testing.T) {
				_, err := wire.DecodeSeries(r(), tt.lim, func(wire.Labels) {})
				var lim *wire.LimitError
				if got := errors.As(err, &lim); got != (tt.wantOption != "") || got && lim.Option != tt.wantOption {
					t.Errorf("error %v, want a limit error naming %q: %v", err, tt.wantOption, tt.wantOption != "")
				}
			})
		}
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
		_, err := wire.DecodeMatrix(strings.NewReader(body), wire.Limits{}, func(wire.Labels) wire.PointFunc {
			return func(_, v float64) { sum += v; n++ }
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
			_, err := wire.DecodeMatrix(r(), wire.Limits{}, func(l wire.Labels) wire.PointFunc {
				labels = l.Map()
				pod := l.Get("pod")
				return func(ts, v float64) { got = append(got, point{pod, ts, v}) }
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

// FuzzDecodeMatrix: any answer is decoded or refused without a panic;
// points handed on are never NaN, and a refused answer says why.
func FuzzDecodeMatrix(f *testing.F) {
	f.Add(matrixBody(2, 3))
	f.Add(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"\u00e9\"x"},"values":[[1,"NaN"],[2e3,"-1"]]}]},"warnings":["w"]}`)
	f.Add(`{"status":"error","errorType":"bad_data","error":"x"}`)
	f.Add(`{"status":"success","data":[{"node":"n1"}]}`)
	f.Add(`{"x":[[[{"y":null}]]],"status":"success"}`)
	f.Fuzz(func(t *testing.T, body string) {
		lim := wire.Limits{MaxSeries: 100, MaxLabelBytes: 1 << 10}
		_, err := wire.DecodeMatrix(strings.NewReader(body), lim, func(wire.Labels) wire.PointFunc {
			return func(_, v float64) {
				if v != v {
					t.Fatal("a NaN point was handed on")
				}
			}
		})
		if err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
		wire.DecodeSeries(strings.NewReader(body), lim, func(wire.Labels) {})
	})
}
