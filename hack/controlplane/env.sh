# env.sh: paths and ports shared by build.sh, up.sh and down.sh (sourced).
CP=${GPUWISE_CACHE:-$HOME/.cache/gpuwise}/controlplane
BIN=$CP/bin
RUN=${GPUWISE_CP_RUN:-$CP/run}
KWOK_VERSION=v0.8.0
# Non-default ports so a developer's own cluster or another tier is not hit.
ETCD_PORT=${GPUWISE_CP_ETCD_PORT:-23790}
ETCD_PEER_PORT=$((ETCD_PORT + 1))
ETCD_METRICS_PORT=$((ETCD_PORT + 2))
APISERVER_PORT=${GPUWISE_CP_APISERVER_PORT:-16443}
SCHEDULER_PORT=${GPUWISE_CP_SCHEDULER_PORT:-20259}
KCM_PORT=${GPUWISE_CP_KCM_PORT:-20257}
KWOK_PORT=${GPUWISE_CP_KWOK_PORT:-20247}
