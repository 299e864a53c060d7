#!/usr/bin/env bash
# up.sh starts etcd, kube-apiserver, kube-scheduler, kube-controller-manager
# and kwok on 127.0.0.1 from the binaries build.sh put in the cache, with
# certificates generated here. It writes $RUN/kubeconfig (admin) and
# $RUN/pids; down.sh stops exactly those processes.
set -euo pipefail
. "$(dirname "$0")/env.sh"

if [ -s "$RUN/pids" ]; then
  echo "controlplane: $RUN/pids exists; run hack/controlplane/down.sh first" >&2
  exit 1
fi
for b in etcd kube-apiserver kube-scheduler kube-controller-manager kwok; do
  [ -x "$BIN/$b" ] || { echo "controlplane: $BIN/$b missing; run hack/controlplane/build.sh" >&2; exit 1; }
done
start=$(date +%s%N)
rm -rf "$RUN" && mkdir -p "$RUN/pki" "$RUN/logs"

# PKI: a CA, the serving certificate, an admin client and the SA key pair.
(
  cd "$RUN/pki"
  o() { openssl "$@" 2>/dev/null; }
  o req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=gpuwise-test-ca"
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default\nextendedKeyUsage=serverAuth\n' >server.ext
  o req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver"
  o x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 30 -extfile server.ext
  echo "extendedKeyUsage=clientAuth" >client.ext
  o req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=admin"
  o x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 30 -extfile client.ext
  o genrsa -out sa.key 2048 && o rsa -in sa.key -pubout -out sa.pub
)

b64() { base64 -w0 <"$1"; }
cat >"$RUN/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: gpuwise-test
  cluster: {server: "https://127.0.0.1:$APISERVER_PORT", certificate-authority-data: $(b64 "$RUN/pki/ca.crt")}
users:
- name: admin
  user: {client-certificate-data: $(b64 "$RUN/pki/admin.crt"), client-key-data: $(b64 "$RUN/pki/admin.key")}
contexts:
- name: gpuwise-test
  context: {cluster: gpuwise-test, user: admin}
current-context: gpuwise-test
KC

# Two profiles: the default one, and gpuwise-binpack, the bin-packing
# setup GPU clusters use (NodeResourcesFit MostAllocated, GPU resources
# weighted): test/integration/kube/verify_test.go's free variant.
weighted() { printf '        - {name: %s, weight: %s}\n' "$1" "$2"; }
cat >"$RUN/sched-config.yaml" <<SC
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$RUN/kubeconfig", qps: 500, burst: 1000}
leaderElection: {leaderElect: false}
profiles:
- schedulerName: default-scheduler
- schedulerName: gpuwise-binpack
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
$(weighted cpu 1; weighted memory 1; weighted nvidia.com/gpu 5; weighted nvidia.com/gpu.shared 5
  for p in 1g.10gb 1g.10gb.me 1g.20gb 2g.20gb 3g.40gb 4g.40gb 7g.80gb 1g.12gb 1g.24gb 2g.24gb 3g.47gb 4g.47gb 7g.94gb 1g.5gb 2g.10gb 3g.20gb 4g.20gb 7g.40gb 1g.6gb 2g.12gb 4g.24gb; do
    weighted "nvidia.com/mig-$p" 5
  done)
SC

kwokdir=$(cd "$RUN" && GOFLAGS= GOWORK=off go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')
{
  cat <<KW
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  cidr: 10.244.0.0/16
  nodeIP: 10.0.0.1
  manageAllNodes: false
  manageNodesWithAnnotationSelector: kwok.x-k8s.io/node=fake
  nodeLeaseDurationSeconds: 40
  nodeLeaseParallelism: 4
  podPlayStageParallelism: 8
  nodePlayStageParallelism: 4
  enablePodsOnNodeSyncStreamWatch: true
KW
  for s in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease \
    pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
    echo "---"
    cat "$kwokdir/kustomize/stage/$s.yaml"
  done
} >"$RUN/kwok.yaml"

# launch NAME ARGS...: start a process in the background and record it.
launch() {
  local name=$1
  shift
  "$BIN/$name" "$@" >"$RUN/logs/$name.log" 2>&1 &
  echo "$name $!" >>"$RUN/pids"
}
# wait_for WHAT CMD...: poll CMD for up to 60 s.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 300); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "controlplane: $what did not become healthy; logs in $RUN/logs" >&2
  "$(dirname "$0")/down.sh" || true
  exit 1
}
ADMIN=(--cacert "$RUN/pki/ca.crt" --cert "$RUN/pki/admin.crt" --key "$RUN/pki/admin.key")

launch etcd --name=gpuwise --data-dir="$RUN/etcd-data" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster="gpuwise=http://127.0.0.1:$ETCD_PEER_PORT" --listen-metrics-urls="http://127.0.0.1:$ETCD_METRICS_PORT" \
  --unsafe-no-fsync
wait_for etcd curl -sf "http://127.0.0.1:$ETCD_PORT/health"

launch kube-apiserver --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
  --tls-cert-file="$RUN/pki/apiserver.crt" --tls-private-key-file="$RUN/pki/apiserver.key" --client-ca-file="$RUN/pki/ca.crt" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$RUN/pki/sa.pub" --service-account-signing-key-file="$RUN/pki/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC \
  --endpoint-reconciler-type=none --cert-dir="$RUN/apiserver-certs"
wait_for kube-apiserver curl -sf "${ADMIN[@]}" "https://127.0.0.1:$APISERVER_PORT/readyz"

launch kube-scheduler --config="$RUN/sched-config.yaml" \
  --authentication-kubeconfig="$RUN/kubeconfig" --authorization-kubeconfig="$RUN/kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT"
launch kube-controller-manager --kubeconfig="$RUN/kubeconfig" \
  --authentication-kubeconfig="$RUN/kubeconfig" --authorization-kubeconfig="$RUN/kubeconfig" \
  --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --leader-elect=false \
  --service-account-private-key-file="$RUN/pki/sa.key" --root-ca-file="$RUN/pki/ca.crt" \
  --controllers='*,-nodeipam' --kube-api-qps=500 --kube-api-burst=1000
launch kwok --kubeconfig="$RUN/kubeconfig" --config="$RUN/kwok.yaml" --server-address="127.0.0.1:$KWOK_PORT"
wait_for kube-scheduler curl -skf "https://127.0.0.1:$SCHEDULER_PORT/healthz"
wait_for kube-controller-manager curl -skf "https://127.0.0.1:$KCM_PORT/healthz"
wait_for kwok curl -sf "http://127.0.0.1:$KWOK_PORT/healthz"

ms=$((($(date +%s%N) - start) / 1000000))
echo "controlplane: up in $((ms / 1000)).$((ms % 1000 / 100)) s; export KUBECONFIG=$RUN/kubeconfig"
