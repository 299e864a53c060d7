#!/usr/bin/env bash
# build.sh builds kube-apiserver, kube-scheduler, kube-controller-manager,
# etcd and kwok from the Go module proxy into a cache outside the
# repository, and reuses binaries that already report the pinned versions.
# Recipe: ../shared/reference/controlplane.md.
set -euo pipefail

K8S=v1.37.2
STAGING=v0.37.2
. "$(dirname "$0")/env.sh"
KWOK=$KWOK_VERSION
mkdir -p "$BIN" "$CP/mod"

have() { # have BINARY PATTERN: true when bin/BINARY --version matches.
  [ -x "$BIN/$1" ] && "$BIN/$1" --version 2>/dev/null | grep -- "$2" >/dev/null
}

if have kube-apiserver "Kubernetes $K8S" && have kube-scheduler "Kubernetes $K8S" &&
  have kube-controller-manager "Kubernetes $K8S" && have etcd "etcd Version: 3.7.0" &&
  have kwok "$KWOK"; then
  echo "controlplane: binaries in $BIN are current"
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
for c in kube-apiserver kube-scheduler kube-controller-manager; do
  if ! have "$c" "Kubernetes $K8S"; then
    echo "controlplane: building $c"
    go build -mod=mod -trimpath -ldflags="$ld" -o "$BIN/$c" "k8s.io/kubernetes/cmd/$c"
  fi
done
if ! have etcd "etcd Version: 3.7.0"; then
  echo "controlplane: building etcd"
  go build -mod=mod -trimpath -ldflags="-s -w" -o "$BIN/etcd" go.etcd.io/etcd/server/v3
fi
if ! have kwok "$KWOK"; then
  echo "controlplane: building kwok $KWOK"
  GOBIN=$BIN go install -trimpath -ldflags="-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK"
fi
echo "controlplane: built in $(($(date +%s) - start)) s into $BIN"
