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
# Auth is on: the pod starts once the Secret gpuwise-auth holds a token
# (the chart generates one; plain manifests cannot):
#   kubectl -n gpuwise create secret generic gpuwise-auth \
#     --from-literal=token="$(head -c 36 /dev/urandom | base64)"
# The NetworkPolicy lets in Prometheus (namespace monitoring) only: add a
# from rule for the namespaces that read the API (or render the chart with
# networkPolicy.allowNamespaces), and scrape /metrics with the token.
apiVersion: v1
kind: Namespace
metadata:
  name: gpuwise
  labels:
    app.kubernetes.io/name: gpuwise
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/warn: restricted
HDR
  # helm template cannot keep a generated token: name the Secret instead.
  "$TOOLS_BIN/helm" template gpuwise deploy/helm/gpuwise --namespace gpuwise --set auth.bearerTokenSecret.name=gpuwise-auth
} >"$out"
echo "manifests.sh: wrote $out"
