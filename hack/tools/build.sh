#!/usr/bin/env bash
# build.sh TOOL...: builds pinned external tools from their Go modules into
# the cache beside the control plane ($GPUWISE_CACHE/tools/bin, default
# ~/.cache/gpuwise), and reuses a binary that already reports the pinned
# version (a stamp file beside it records the module@version it was built
# from: module builds carry no version of their own). Tools: helm (helm.sh/helm/v3 v3.22.0) and victoria-metrics
# (VictoriaMetrics single-node v1.151.0, the newest whose go.mod builds with
# Go 1.26, with CGO_ENABLED=0: a static binary on the pure-Go zstd) and
# kubectl (the control plane's Kubernetes version, built in the module
# hack/controlplane/build.sh sets up: run that first; the machine's own
# kubectl, if any, is not relied on).
# Facts: ../shared/reference/service.md §5 and §7.
set -euo pipefail
. "$(dirname "$0")/env.sh"
mkdir -p "$TOOLS_BIN"

# ensure BINARY MODULE@VERSION [ENV...]: build unless the stamp matches.
ensure() {
  local bin=$1 mod=$2 stamp="$TOOLS_BIN/.$1.built-from"
  shift 2
  if [ -x "$TOOLS_BIN/$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$mod $*" ]; then
    echo "tools: $bin ($mod) is current"
    return
  fi
  local start tmp
  start=$(date +%s)
  tmp=$(mktemp -d)
  echo "tools: building $bin from $mod (once; reused afterwards)"
  (cd "$tmp" && env GOWORK=off GOFLAGS=-buildvcs=false GOBIN="$TOOLS_BIN" "$@" go install -trimpath -ldflags='-s -w' "$mod")
  rm -rf "$tmp"
  echo "$mod $*" >"$stamp"
  echo "tools: $bin built in $(($(date +%s) - start)) s into $TOOLS_BIN"
}

# ensure_kubectl: kubectl of the control plane's version, built in its
# module (k8s.io/kubernetes needs the staging replaces set up there).
ensure_kubectl() {
  local k8s mod stamp="$TOOLS_BIN/.kubectl.built-from" cpmod="$CP_CACHE/mod" start
  k8s=$(sed -n 's/^K8S=//p' "$(dirname "$0")/../controlplane/build.sh")
  mod="k8s.io/kubernetes/cmd/kubectl@$k8s"
  if [ -x "$TOOLS_BIN/kubectl" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$mod" ]; then
    echo "tools: kubectl ($mod) is current"
    return
  fi
  [ -f "$cpmod/go.mod" ] || { echo "tools: $cpmod/go.mod missing: run hack/controlplane/build.sh first" >&2; exit 1; }
  start=$(date +%s)
  echo "tools: building kubectl $k8s (once; reused afterwards)"
  (cd "$cpmod" && env GOWORK=off GOFLAGS=-buildvcs=false go build -mod=mod -trimpath -ldflags='-s -w' \
    -o "$TOOLS_BIN/kubectl" k8s.io/kubernetes/cmd/kubectl)
  echo "$mod" >"$stamp"
  echo "tools: kubectl built in $(($(date +%s) - start)) s into $TOOLS_BIN"
}

for tool in "$@"; do
  case $tool in
  helm) ensure helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ;;
  victoria-metrics)
    ensure victoria-metrics "github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@$VM_VERSION" CGO_ENABLED=0 ;;
  kubectl) ensure_kubectl ;;
  *) echo "tools: unknown tool $tool (helm, victoria-metrics, kubectl)" >&2; exit 2 ;;
  esac
done
