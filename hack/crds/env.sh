# env.sh: the pinned modules whose CRDs the generated objects are checked
# against (sourced by build.sh). Everything lives in a cache outside the
# repository. Karpenter, KEDA and the VPA are the versions go.mod pins;
# the AWS provider is the release built on that Karpenter.
CRDS=${GPUWISE_CACHE:-$HOME/.cache/gpuwise}/crds
CRDS_MOD=${GPUWISE_CACHE:-$HOME/.cache/gpuwise}/crds-mod
KARPENTER_MODULE=sigs.k8s.io/karpenter
KARPENTER_VERSION=v1.14.1
KARPENTER_AWS_MODULE=github.com/aws/karpenter-provider-aws
KARPENTER_AWS_VERSION=v1.14.1
# The Azure provider's module is not served by the module proxy this
# project can reach (its version list and zips answer 403 "This module
# version is not available"), so its NodePool and AKSNodeClass CRDs are
# vendored, unchanged, in hack/crds/azure (README.md there: tag, commit,
# license) and copied from there.
KARPENTER_AZURE_MODULE=github.com/Azure/karpenter-provider-azure
KARPENTER_AZURE_VERSION=v1.14.2
KARPENTER_AZURE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/azure
KEDA_MODULE=github.com/kedacore/keda/v2
KEDA_VERSION=v2.21.0
VPA_MODULE=k8s.io/autoscaler/vertical-pod-autoscaler
VPA_VERSION=v1.8.1
# Kueue: the version go.mod pins (its v1beta2 API types are the kube
# adapter's); the CRDs for generate kueue's objects and the collector's
# Kueue test.
KUEUE_MODULE=sigs.k8s.io/kueue
KUEUE_VERSION=v0.17.0
export GOFLAGS=-buildvcs=false GOWORK=off
