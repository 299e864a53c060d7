#!/usr/bin/env bash
# build.sh: fetches the CRDs of every kind `gpuwise generate` writes that
# the apiserver does not serve itself, from the Go modules of the projects
# that define them (module downloads only, seconds), into a cache outside
# the repository; skipped when the cache holds them for the pinned versions.
#   karpenter/        Karpenter's NodePool (sigs.k8s.io/karpenter)
#   karpenter-aws/    the AWS provider's NodePool (Karpenter's with the
#                     karpenter.k8s.aws label rules) and EC2NodeClass
#   karpenter-azure/  the Azure provider's NodePool and AKSNodeClass, from
#                     hack/crds/azure (vendored: its module is not on the
#                     module proxy, see env.sh)
#   keda/             KEDA's ScaledObject
#   vpa/              the VerticalPodAutoscaler (and its checkpoint)
#   kueue/            Kueue's ClusterQueue, LocalQueue, ResourceFlavor,
#                     Cohort and Workload (sigs.k8s.io/kueue)
set -euo pipefail
. "$(dirname "$0")/env.sh"

want="$KARPENTER_MODULE@$KARPENTER_VERSION $KARPENTER_AWS_MODULE@$KARPENTER_AWS_VERSION $KARPENTER_AZURE_MODULE@$KARPENTER_AZURE_VERSION(vendored:$(cat "$KARPENTER_AZURE_DIR"/*.yaml | sha256sum | cut -c1-12)) $KEDA_MODULE@$KEDA_VERSION $VPA_MODULE@$VPA_VERSION $KUEUE_MODULE@$KUEUE_VERSION"
if [ "$(cat "$CRDS/.built-from" 2>/dev/null)" = "$want" ]; then
  echo "crds: CRDs in $CRDS are current"
  exit 0
fi
mkdir -p "$CRDS_MOD"
[ -f "$CRDS_MOD/go.mod" ] || printf 'module gpuwise.local/crds\n\ngo 1.26\n' >"$CRDS_MOD/go.mod"

# moddir MODULE VERSION: the module's directory in the module cache, or
# nothing (and the go command's error in $CRDS_MOD/error) when it cannot
# be had.
moddir() {
  local out
  out=$(cd "$CRDS_MOD" && go mod download -json "$1@$2" 2>&1) || true
  printf '%s\n' "$out" | sed -n 's/.*"Error": "\(.*\)",*$/\1/p' | sed 's/\\n\\t/ /g' >"$CRDS_MOD/error"
  printf '%s\n' "$out" | sed -n 's/.*"Dir": "\(.*\)",/\1/p'
}
err() { cat "$CRDS_MOD/error"; }

rm -rf "$CRDS" && mkdir -p "$CRDS"/{karpenter,karpenter-aws,karpenter-azure,keda,vpa,kueue}
copy() { # copy DIR DEST FILE...
  local dir=$1 dest=$2
  shift 2
  for f in "$@"; do cp "$dir/$f" "$CRDS/$dest/"; done
  cp "$dir/LICENSE" "$CRDS/$dest/LICENSE"
}
d=$(moddir "$KARPENTER_MODULE" "$KARPENTER_VERSION")
[ -n "$d" ] || { echo "crds: $KARPENTER_MODULE@$KARPENTER_VERSION: $(err)" >&2; exit 1; }
copy "$d" karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml
d=$(moddir "$KARPENTER_AWS_MODULE" "$KARPENTER_AWS_VERSION")
[ -n "$d" ] || { echo "crds: $KARPENTER_AWS_MODULE@$KARPENTER_AWS_VERSION: $(err)" >&2; exit 1; }
copy "$d" karpenter-aws pkg/apis/crds/karpenter.sh_nodepools.yaml pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml
copy "$KARPENTER_AZURE_DIR" karpenter-azure karpenter.sh_nodepools.yaml karpenter.azure.com_aksnodeclasses.yaml
d=$(moddir "$KEDA_MODULE" "$KEDA_VERSION")
[ -n "$d" ] || { echo "crds: $KEDA_MODULE@$KEDA_VERSION: $(err)" >&2; exit 1; }
copy "$d" keda config/crd/bases/keda.sh_scaledobjects.yaml
d=$(moddir "$VPA_MODULE" "$VPA_VERSION")
[ -n "$d" ] || { echo "crds: $VPA_MODULE@$VPA_VERSION: $(err)" >&2; exit 1; }
copy "$d" vpa deploy/vpa-v1-crd-gen.yaml
d=$(moddir "$KUEUE_MODULE" "$KUEUE_VERSION")
[ -n "$d" ] || { echo "crds: $KUEUE_MODULE@$KUEUE_VERSION: $(err)" >&2; exit 1; }
copy "$d" kueue config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml config/components/crd/bases/kueue.x-k8s.io_localqueues.yaml \
  config/components/crd/bases/kueue.x-k8s.io_resourceflavors.yaml config/components/crd/bases/kueue.x-k8s.io_cohorts.yaml \
  config/components/crd/bases/kueue.x-k8s.io_workloads.yaml
chmod -R u+w "$CRDS"
echo "$want" >"$CRDS/.built-from"
echo "crds: CRDs from $want in $CRDS"
