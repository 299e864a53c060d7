package policy

import (
	"math/rand/v2"
	"path"
	"regexp"
	"testing"
)

func TestGlobRegexpAgreesWithPathMatch(t *testing.T) {
	t.Parallel()
	globs := []string{"dev", "dev-*", "*-dev", "*notebook*", "jupyter*", "sandbox*", "playground*",
		"*/nvidia-device-plugin*", "kube-system/*", "team-?", "ns[0-9]", "ns[^0-9]x", `a\*b`, "a.b", "[a-c]*[x-z]",
		"*", "?", "ml-[ab]-*", `[\-a]z`}
	names := []string{"dev", "dev-", "dev-a", "a-dev", "adev", "my-notebooks", "jupyter", "jupyterhub", "sandbox-1",
		"playground", "x/nvidia-device-plugin-daemonset", "kube-system/kube-proxy", "kube-system/a/b", "team-a", "team-ab",
		"ns1", "nsa", "nsax", "ns1x", "a*b", "axb", "a.b", "acb", "bbbz", "ml-a-1", "ml-c-1", "", "/", "-z", "az", "bz"}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab-/.x1"
	for range 300 {
		n := make([]byte, rng.IntN(6))
		for i := range n {
			n[i] = alphabet[rng.IntN(len(alphabet))]
		}
		names = append(names, string(n))
	}
	for _, g := range globs {
		re := regexp.MustCompile(globRegexp([]string{g}))
		for _, n := range names {
			want, err := path.Match(g, n)
			if err != nil {
				t.Fatalf("glob %q: %v", g, err)
			}
			if got := re.MatchString(n); got != want {
				t.Errorf("glob %q on %q: regexp %s says %v, path.Match %v", g, n, re, got, want)
			}
		}
	}
}

func TestGlobRegexpOfNoGlobsMatchesNoName(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(globRegexp(nil))
	for _, n := range []string{"a", "dev", "kube-system/x"} {
		if re.MatchString(n) {
			t.Errorf("empty glob list matches %q", n)
		}
	}
}
