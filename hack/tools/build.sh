#!/usr/bin/env bash
# build.sh TOOL...: builds pinned external tools from their Go modules into
# the cache beside the control plane ($GPUWISE_CACHE/tools/bin, default
# ~/.cache/gpuwise), and reuses a binary that already reports the pinned
# version. Tools: helm (helm.sh/helm/v3 v3.22.0) and victoria-metrics
# (VictoriaMetrics single-node v1.151.0, the newest whose go.mod builds with
# Go 1.26, with CGO_ENABLED=0: a static binary on the pure-Go zstd).
# Facts: ../shared/reference/service.md §5 and §7.
set -euo pipefail
. "$(dirname "$0")/env.sh"
mkdir -p "$TOOLS_BIN"

have() { # have BINARY ARGS... PATTERN
  local bin=$1 pattern=${*: -1}
  [ -x "$TOOLS_BIN/$bin" ] && "$TOOLS_BIN/$bin" "${@:2:$#-2}" 2>&1 | grep -q -- "$pattern"
}

build() { # build BINARY MODULE@VERSION [ENV...]
  local bin=$1 mod=$2
  shift 2
  local start
  start=$(date +%s)
  echo "tools: building $bin from $mod (once; reused afterwards)"
  (cd "$(mktemp -d)" && env GOWORK=off GOFLAGS=-buildvcs=false GOBIN="$TOOLS_BIN" "$@" go install -trimpath -ldflags='-s -w' "$mod")
  echo "tools: $bin built in $(($(date +%s) - start)) s into $TOOLS_BIN"
}

for tool in "$@"; do
  case $tool in
  helm)
    have helm version --short "$HELM_VERSION" || build helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ;;
  victoria-metrics)
    have victoria-metrics -version "victoria-metrics-.*$VM_VERSION\|$VM_VERSION" ||
      build victoria-metrics "github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@$VM_VERSION" CGO_ENABLED=0 ;;
  *) echo "tools: unknown tool $tool (helm, victoria-metrics)" >&2; exit 2 ;;
  esac
done
