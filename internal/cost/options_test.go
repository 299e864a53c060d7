package cost

import (
	"math"
	"strings"
	"testing"
)

func TestOptionsValidateListsEveryProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"defaults", DefaultOptions().Validate(), nil},
		{"report defaults", DefaultReportOptions().Validate(), nil},
		{"allocation", Options{IdleThreshold: 2, IdleShare: "all"}.Validate(),
			[]string{"idle threshold: 2 is outside [0, 1]", `idle share: "all" is not one of none, node, cluster`}},
		{"NaN threshold", Options{IdleThreshold: math.NaN(), IdleShare: ShareNone}.Validate(), []string{"idle threshold: NaN is outside [0, 1]"}},
		{"report", ReportOptions{By: "team", TopN: -1}.Validate(), []string{`by: "team" is not one of`, "top: -1 is negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == nil {
				if tt.err != nil {
					t.Errorf("Validate() = %v, want nil", tt.err)
				}
				return
			}
			if tt.err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(tt.err.Error(), w) {
					t.Errorf("Validate() = %q, lacks %q", tt.err, w)
				}
			}
		})
	}
}
