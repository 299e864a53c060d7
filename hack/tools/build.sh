#!/usr/bin/env bash
# build.sh TOOL...: builds pinned external tools from their Go modules into
# the cache beside the control plane ($GPUWISE_CACHE/tools/bin, default
# ~/.cache/gpuwise), and reuses a binary that already reports the pinned
# version (a stamp file beside it records the module@version it was built
# from: module builds carry no version of their own). Tools: helm (helm.sh/helm/v3 v3.22.0) and victoria-metrics
# (VictoriaMetrics single-node v1.151.0, the newest whose go.mod builds with
# Go 1.26, with CGO_ENABLED=0: a static binary on the pure-Go zstd).
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

for tool in "$@"; do
  case $tool in
  helm) ensure helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ;;
  victoria-metrics)
    ensure victoria-metrics "github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@$VM_VERSION" CGO_ENABLED=0 ;;
  *) echo "tools: unknown tool $tool (helm, victoria-metrics)" >&2; exit 2 ;;
  esac
done
