# env.sh: paths and pinned versions shared by the policy-engine scripts
# (sourced). Everything lives in a cache outside the repository.
PE=${GPUWISE_CACHE:-$HOME/.cache/gpuwise}/policyengines
PE_BIN=$PE/bin
PE_CRDS=$PE/crds
KYVERNO_MODULE=github.com/kyverno/kyverno
KYVERNO_VERSION=v1.19.1
GATEKEEPER_MODULE=github.com/open-policy-agent/gatekeeper/v3
GATEKEEPER_VERSION=v3.23.1
export GOFLAGS=-buildvcs=false GOWORK=off
