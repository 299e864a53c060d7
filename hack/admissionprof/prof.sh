#!/usr/bin/env bash
# prof.sh OUT DIR...: the API server's CPU per pod create with each set of
# generated native policies (DIR: `gpuwise generate policy -d DIR`), and a
# CPU profile of it: on a fresh hack/controlplane, per DIR, bench pods are
# created one at a time for DUR+4 s with the policies bound (a DUR-second
# profile taken meanwhile) and again with the bindings deleted. OUT gets
# DIR-on|off.txt (creates, wall and API server CPU per create) and .pprof;
# share.sh OUT reads the admission plugins' share from the profiles.
# KIND=cpu times pods without a GPU. Take the integration lock:
#   flock /tmp/gpuwise-integration.lock hack/admissionprof/prof.sh /tmp/out /tmp/a /tmp/b
set -euo pipefail
out=$(realpath -m "$1")
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
KIND=${KIND:-gpu}
DUR=${DUR:-20}
drv=$(mktemp -d)/driver
(cd "$here" && go build -o "$drv" ./driver)
cd "$root"
./hack/controlplane/down.sh >/dev/null 2>&1 || true
trap './hack/controlplane/down.sh' EXIT
./hack/controlplane/up.sh
. ./hack/controlplane/env.sh
export KUBECONFIG=$RUN/kubeconfig
C=(--cacert "$RUN/pki/ca.crt" --cert "$RUN/pki/admin.crt" --key "$RUN/pki/admin.key")
kubectl create ns bench-adm >/dev/null
mkdir -p "$out"
i=0
for d in "$@"; do
  v=$(basename "$d")
  for f in "$d"/policy/native/*.yaml; do kubectl apply -f "$f" >/dev/null; done
  sleep 3
  "$drv" -dur 5s -kind "$KIND" -prefix "w$i-$v" >/dev/null
  for arm in on off; do
    if [ $arm = off ]; then
      kubectl delete validatingadmissionpolicybindings,mutatingadmissionpolicybindings -l app.kubernetes.io/managed-by=gpuwise >/dev/null
      sleep 3
    fi
    "$drv" -dur $((DUR + 4))s -kind "$KIND" -prefix "$arm$i-$v" >"$out/$v-$arm.txt" &
    sleep 2
    curl -s "${C[@]}" "https://127.0.0.1:$APISERVER_PORT/debug/pprof/profile?seconds=$DUR" -o "$out/$v-$arm.pprof"
    wait
    echo "$v $arm: $(cat "$out/$v-$arm.txt")"
  done
  i=$((i + 1))
done
