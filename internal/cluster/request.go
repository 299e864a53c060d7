package cluster

import "path"

const (
	gib            = int64(1) << 30
	roundCPUMilli  = 2000 // whole cores from 2 up
	roundMemoryMin = 4 * gib
)

// RoundCPU reports a CPU request that looks guessed rather than measured:
// whole cores, from 2 up.
func RoundCPU(milli int64) bool { return milli >= roundCPUMilli && milli%1000 == 0 }

// RoundMemory reports a memory request that looks guessed: whole GiB, from
// 4Gi up.
func RoundMemory(bytes int64) bool { return bytes >= roundMemoryMin && bytes%gib == 0 }

// DefaultDevNamespaces match the usual dev and notebook namespaces: where
// the audit flags whole GPUs and right-sizing may time-slice.
var DefaultDevNamespaces = []string{"dev", "dev-*", "*-dev", "*notebook*", "jupyter*", "sandbox*", "playground*"}

// DefaultNodeAgents are globs over "namespace/owner-name" of the GPU
// stack's and common monitoring agents: pods that belong on every node,
// GPU nodes included (the audit's GW002 allow-list, the admission
// policies' allowed DaemonSets).
var DefaultNodeAgents = []string{
	"*/nvidia-device-plugin*", "*/nvidia-dcgm*", "*/dcgm-exporter*", "*/nvidia-container-toolkit*",
	"*/gpu-feature-discovery*", "*/nvidia-operator-validator*", "*/nvidia-mig-manager*",
	"*/nvidia-driver*", "*/gpu-operator*", "*/node-feature-discovery*", "*/nvidia-node-status-exporter*",
	"*/nvidia-dra-driver*", "*/*node-exporter*", "*/kube-proxy*", "*/hami-*", "kube-system/*",
}

// MatchAny reports whether s matches any of the globs (path.Match syntax);
// a malformed glob matches nothing.
func MatchAny(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}
