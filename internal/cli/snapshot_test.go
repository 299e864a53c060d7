package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuwise/gpuwise/internal/cluster"
	"github.com/gpuwise/gpuwise/internal/snapshot"
)

// A snapshot saved by an older gpuwise (version 1, gzip JSON) reports the
// same as the one demo --save writes now; a corrupt one, or one past
// --max-snapshot-bytes, is an input error naming the problem.
func TestFromOldAndLimitedSnapshots(t *testing.T) {
	dir := t.TempDir()
	v2 := filepath.Join(dir, "snap.gwsnap")
	demo, _, code := run(t, "demo", "-o", "json", "--save", v2)
	if code != ExitOK {
		t.Fatalf("demo --save: exit %d", code)
	}
	s, err := snapshot.ReadFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	v1 := filepath.Join(dir, "old.json.gz")
	good := writeV1(t, s)
	os.WriteFile(v1, good, 0o644)
	badCRC := filepath.Join(dir, "crc.json.gz")
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)-8] ^= 1
	os.WriteFile(badCRC, corrupt, 0o644)

	for _, path := range []string{v1, v2} {
		rep, errOut, code := run(t, "report", "--from", path, "-o", "json")
		if code != ExitOK {
			t.Fatalf("report --from %s: exit %d: %s", path, code, errOut)
		}
		if diff := cmp.Diff(demo, rep); diff != "" {
			t.Errorf("report --from %s differs from demo (-demo +report):\n%s", filepath.Base(path), diff)
		}
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"gzip CRC mismatch", []string{"report", "--from", badCRC}, ExitInput, "checksum"},
		{"over --max-snapshot-bytes", []string{"report", "--from", v2, "--max-snapshot-bytes", "1000"}, ExitInput, "over the limit of 1000 bytes (ReadOptions.MaxBytes; gpuwise --max-snapshot-bytes"},
		{"version 1 over --max-snapshot-bytes", []string{"audit", "--from", v1, "--max-snapshot-bytes", "1000"}, ExitInput, "ReadOptions.MaxBytes"},
		{"negative --max-snapshot-bytes", []string{"report", "--from", v2, "--max-snapshot-bytes", "-1"}, ExitUsage, "max-snapshot-bytes: -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.wantCode, tt.wantErr)
			}
		})
	}
}

// writeV1 is s as gpuwise wrote snapshots before version 2.
func writeV1(t *testing.T, s *cluster.Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	doc := struct {
		Kind     string            `json:"kind"`
		Version  int               `json:"version"`
		Snapshot *cluster.Snapshot `json:"snapshot"`
	}{snapshot.Kind, 1, s}
	if err := json.NewEncoder(zw).Encode(doc); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return b.Bytes()
}
