#!/usr/bin/env bash
# build.sh builds kube-apiserver, kube-scheduler, kube-controller-manager,
# etcd and kwok (and kubectl, into hack/tools' cache) from the Go module
# proxy into a cache outside the repository, and reuses binaries that
# already report the pinned versions.
# Recipe: ../shared/reference/controlplane.md.
set -euo pipefail

K8S=v1.37.2
STAGING=v0.37.2
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/../tools/env.sh"
KWOK=$KWOK_VERSION
mkdir -p "$BIN" "$CP/mod"

have() { # have BINARY PATTERN: true when bin/BINARY --version matches.
  [ -x "$BIN/$1" ] && "$BIN/$1" --version 2>/dev/null | grep -- "$2" >/dev/null
}

if have kube-apiserver "Kubernetes $K8S" && have kube-scheduler "Kubernetes $K8S" &&
  have kube-controller-manager "Kubernetes $K8S" && have etcd "etcd Version: 3.7.0" &&
  have kwok "$KWOK" && [ -x "$TOOLS_BIN/kubectl" ] &&
  [ "$(cat "$TOOLS_BIN/.kubectl.built-from" 2>/dev/null)" = "k8s.io/kubernetes/cmd/kubectl@$K8S" ]; then
  echo "controlplane: binaries in $BIN (and kubectl in $TOOLS_BIN) are current"
  exit 0
fi

free_kb=$(df -Pk "$CP" | awk 'NR==2{print $4}')
if [ "${free_kb:-0}" -lt 6000000 ]; then
  echo "controlplane: need about 6 GB free under $CP (have ${free_kb} kB)" >&2
  exit 1
fi

start=$(date +%s)
cd "$CP/mod"
kmod=$(go mod download -json "k8s.io/kubernetes@$K8S" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
{
  printf 'module cp\n\ngo 1.26.0\n\ngodebug default=go1.26\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S"
  grep -oE '^\s+k8s.io/[a-z-]+ => \./staging' "$kmod" | awk '{print $1}' | grep -v '^k8s.io/sample-c' |
    while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$STAGING"; done
  printf ')\n'
} >go.mod
rm -f go.sum

ld="-s -w"
for p in client-go/pkg/version component-base/version; do
  ld="$ld -X k8s.io/$p.gitVersion=$K8S -X k8s.io/$p.gitMajor=1 -X k8s.io/$p.gitMinor=37"
  ld="$ld -X k8s.io/$p.gitTreeState=clean -X k8s.io/$p.buildDate=2026-01-01T00:00:00Z"
done
export GOFLAGS=-buildvcs=false GOWORK=off
# One go build for every binary of this module that is missing (the three
# components, etcd and kubectl): the go command then compiles the packages
# they share once and fills both cores with the others' packages and
# links, where one build after another left a core idle on each build's
# last packages and link (issue 32 item 4). kubectl goes to the tools
# cache, stamped as hack/tools/build.sh stamps it.
kubectl_want="k8s.io/kubernetes/cmd/kubectl@$K8S"
pkgs=()
for c in kube-apiserver kube-scheduler kube-controller-manager; do
  have "$c" "Kubernetes $K8S" || pkgs+=("k8s.io/kubernetes/cmd/$c")
done
have etcd "etcd Version: 3.7.0" || pkgs+=(go.etcd.io/etcd/server/v3)
if ! [ -x "$TOOLS_BIN/kubectl" ] || [ "$(cat "$TOOLS_BIN/.kubectl.built-from" 2>/dev/null)" != "$kubectl_want" ]; then
  pkgs+=(k8s.io/kubernetes/cmd/kubectl)
fi
if [ ${#pkgs[@]} -gt 0 ]; then
  echo "controlplane: building ${pkgs[*]##*/cmd/} in one go build"
  out=$(mktemp -d "$CP/build.XXXXXX")
  go build -mod=mod -trimpath -ldflags="$ld" -o "$out/" "${pkgs[@]}"
  for c in kube-apiserver kube-scheduler kube-controller-manager; do
    [ ! -f "$out/$c" ] || mv "$out/$c" "$BIN/$c"
  done
  [ ! -f "$out/server" ] || mv "$out/server" "$BIN/etcd" # go.etcd.io/etcd/server/v3's binary
  if [ -f "$out/kubectl" ]; then
    mkdir -p "$TOOLS_BIN"
    mv "$out/kubectl" "$TOOLS_BIN/kubectl"
    echo "$kubectl_want" >"$TOOLS_BIN/.kubectl.built-from"
  fi
  rm -rf "$out"
fi
if ! have kwok "$KWOK"; then
  echo "controlplane: building kwok $KWOK"
  GOBIN=$BIN go install -trimpath -ldflags="-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK"
fi
echo "controlplane: built in $(($(date +%s) - start)) s into $BIN"
