package yamldoc

import (
	"strings"
	"testing"
)

func TestSingle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		wantErr string
	}{
		{name: "one document", data: "prices:\n  - nodeUSDPerHour: 1\n"},
		{name: "a leading marker", data: "---\nprices: []\n"},
		{name: "a trailing marker with nothing after it", data: "prices: []\n---\n"},
		{name: "empty", data: ""},
		{name: "a second document", data: "prices: []\n---\nrightsize: {}\n", wantErr: "line 3: a second YAML document"},
		{name: "a second document that does not parse", data: "a: 1\n---\n[\n", wantErr: "a second YAML document after the first"},
		{name: "a first document that does not parse is the parser's to report", data: "[\n---\nb: 2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Single([]byte(tt.data))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Single: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Single: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
