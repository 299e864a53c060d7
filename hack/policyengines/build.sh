#!/usr/bin/env bash
# build.sh [crds] [gator] [kyverno]: fetches the Kyverno and Gatekeeper
# CRDs from their Go modules and builds their CLIs from the Go module proxy
# into a cache outside the repository; each part is skipped when the cache
# already holds it for the pinned version.
#   crds     the CRD YAML of Kyverno (policies.kyverno.io, kyverno.io
#            ClusterPolicy) and Gatekeeper (ConstraintTemplate): module
#            downloads only, seconds.
#   gator    `go install …/gatekeeper/v3/cmd/gator`: about 3 min cold.
#   kyverno  the kyverno CLI, built from a writable copy of its module
#            because its go.mod has a replace directive (`go install` refuses
#            it): over 10 min cold on 2 cores, ~400 MB binary.
set -euo pipefail
. "$(dirname "$0")/env.sh"
mkdir -p "$PE_BIN" "$PE_CRDS"

# moddir MODULE VERSION: the module's directory in the module cache.
moddir() {
  (cd "$PE" && go mod download -json "$1@$2" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
}
# built NAME WANT: the cache holds NAME built from WANT.
built() { [ -x "$PE_BIN/$1" ] && [ "$(cat "$PE_BIN/.$1.built-from" 2>/dev/null)" = "$2" ]; }

crds() {
  local want="$KYVERNO_MODULE@$KYVERNO_VERSION $GATEKEEPER_MODULE@$GATEKEEPER_VERSION"
  if [ "$(cat "$PE_CRDS/.built-from" 2>/dev/null)" = "$want" ]; then
    echo "policyengines: CRDs in $PE_CRDS are current"
    return
  fi
  local k g
  k=$(moddir "$KYVERNO_MODULE" "$KYVERNO_VERSION")
  g=$(moddir "$GATEKEEPER_MODULE" "$GATEKEEPER_VERSION")
  rm -rf "$PE_CRDS" && mkdir -p "$PE_CRDS/kyverno" "$PE_CRDS/gatekeeper"
  cp "$k"/config/crds/policies.kyverno.io/*.yaml "$k/config/crds/kyverno/kyverno.io_clusterpolicies.yaml" "$PE_CRDS/kyverno/"
  cp "$g/config/crd/bases/constrainttemplate-customresourcedefinition.yaml" "$PE_CRDS/gatekeeper/"
  cp "$k/LICENSE" "$PE_CRDS/kyverno/LICENSE"
  cp "$g/LICENSE" "$PE_CRDS/gatekeeper/LICENSE"
  chmod -R u+w "$PE_CRDS"
  echo "$want" >"$PE_CRDS/.built-from"
  echo "policyengines: CRDs from $want in $PE_CRDS"
}

gator() {
  local want="$GATEKEEPER_MODULE/cmd/gator@$GATEKEEPER_VERSION"
  if built gator "$want"; then echo "policyengines: gator is current"; return; fi
  local start=$SECONDS
  GOBIN=$PE_BIN go install -trimpath -ldflags="-s -w" "$want"
  echo "$want" >"$PE_BIN/.gator.built-from"
  echo "policyengines: built gator in $((SECONDS - start)) s"
}

kyverno() {
  local want="$KYVERNO_MODULE/cmd/cli/kubectl-kyverno@$KYVERNO_VERSION"
  if built kyverno "$want"; then echo "policyengines: kyverno is current"; return; fi
  local start=$SECONDS src=$PE/src/kyverno-$KYVERNO_VERSION
  if [ ! -f "$src/go.mod" ]; then
    rm -rf "$src" && mkdir -p "$PE/src"
    cp -r "$(moddir "$KYVERNO_MODULE" "$KYVERNO_VERSION")" "$src"
    chmod -R u+w "$src"
  fi
  (cd "$src" && go build -mod=mod -trimpath -ldflags="-s -w" -o "$PE_BIN/kyverno" ./cmd/cli/kubectl-kyverno)
  echo "$want" >"$PE_BIN/.kyverno.built-from"
  echo "policyengines: built kyverno in $((SECONDS - start)) s"
}

[ $# -gt 0 ] || set -- crds gator
for part in "$@"; do
  case $part in
  crds | gator | kyverno) "$part" ;;
  *) echo "policyengines: unknown part $part (want crds, gator or kyverno)" >&2; exit 2 ;;
  esac
done
