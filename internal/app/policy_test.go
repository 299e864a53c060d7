package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gpuwise/gpuwise/internal/policy"
)

// GeneratePolicy as a use case: the engine's files, the settings file
// over what the snapshot taught, the mode, and each bad request refused
// with its field named.
func TestPolicyUseCase(t *testing.T) {
	t.Parallel()
	settings := writeFile(t, "admission.yaml", "mode: deny\nmutate: false\n")
	broken := writeFile(t, "broken.yaml", "mode: [\n")
	fixture := Data{Source: Source{File: fixtureFile(t, nil)}}
	cases := []struct {
		name    string
		req     PolicyRequest
		files   []string // path prefixes
		noFile  string   // a prefix no file may have
		note    string
		kind    Kind
		wantErr string
	}{
		{name: "native defaults", req: PolicyRequest{Engine: policy.Native}, files: []string{"policy/native/"}},
		{name: "gatekeeper", req: PolicyRequest{Engine: policy.Gatekeeper}, files: []string{"policy/gatekeeper/"}},
		{name: "kyverno legacy", req: PolicyRequest{Engine: policy.Kyverno, KyvernoLegacy: true}, files: []string{"policy/kyverno/"}},
		{name: "learnt from the fixture", req: PolicyRequest{Data: &fixture, Engine: policy.Native}, files: []string{"policy/native/"},
			note: "would refuse"},
		{name: "a settings file without the mutation", req: PolicyRequest{Engine: policy.Native, Settings: MustLoadAdmissionSettings(settings)},
			files: []string{"policy/native/"}, noFile: "policy/native/gpuwise-gw004-add-gpu-toleration"},
		{name: "an unknown engine", req: PolicyRequest{Engine: "opa"}, kind: Usage, wantErr: "engine"},
		{name: "an unknown mode", req: PolicyRequest{Engine: policy.Native, Mode: "audit"}, kind: Usage, wantErr: `mode: "audit"`},
		{name: "a missing settings file", req: PolicyRequest{Engine: policy.Native, Settings: MustLoadAdmissionSettings(settings + ".missing")}, kind: Input,
			wantErr: "reading admission settings"},
		{name: "a broken settings file", req: PolicyRequest{Engine: policy.Native, Settings: MustLoadAdmissionSettings(broken)}, kind: Input, wantErr: "broken.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := testApp().GeneratePolicy(context.Background(), tc.req)
			if tc.wantErr != "" {
				if err == nil || KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v (kind %v), want kind %v with %q", err, KindOf(err), tc.kind, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := paths(res.Files)
			for _, want := range tc.files {
				if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, want) }) {
					t.Errorf("no file under %s among %q", want, got)
				}
			}
			if tc.noFile != "" && slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, tc.noFile) }) {
				t.Errorf("a file %s* among %q", tc.noFile, got)
			}
			if tc.note != "" && !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("no note with %q among %q", tc.note, res.Notes)
			}
		})
	}
}
