# env.sh: pinned tool versions and where build.sh puts them (sourced).
TOOLS_BIN=${GPUWISE_CACHE:-$HOME/.cache/gpuwise}/tools/bin
CP_CACHE=${GPUWISE_CACHE:-$HOME/.cache/gpuwise}/controlplane
HELM_VERSION=v3.22.0
VM_VERSION=v1.151.0
