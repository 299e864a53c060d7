#!/usr/bin/env bash
# manifests.sh: render deploy/manifests/gpuwise.yaml from the Helm chart
# (release gpuwise, namespace gpuwise, default values) with the namespace
# itself, labelled for the restricted Pod Security Standard. `make
# manifests` runs it; the serve integration tier fails when the file is
# not what the chart renders.
set -euo pipefail
cd "$(dirname "$0")/../.."
. hack/tools/env.sh
out=${1:-deploy/manifests/gpuwise.yaml}
mkdir -p "$(dirname "$out")"
{
  cat <<'HDR'
# gpuwise serve as plain manifests: rendered from deploy/helm/gpuwise by
# hack/serve/manifests.sh (release gpuwise, namespace gpuwise, default
# values). Do not edit: change the chart and re-render. Apply with
#   kubectl apply -f deploy/manifests/gpuwise.yaml
# Set the Prometheus URL with the chart (helm install --set
# prometheus.url=...) or by editing the Deployment's --prometheus argument.
apiVersion: v1
kind: Namespace
metadata:
  name: gpuwise
  labels:
    app.kubernetes.io/name: gpuwise
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/warn: restricted
HDR
  "$TOOLS_BIN/helm" template gpuwise deploy/helm/gpuwise --namespace gpuwise
} >"$out"
echo "manifests.sh: wrote $out"
