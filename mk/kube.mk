## integration-kube: the Kubernetes tier. Builds kube-apiserver, scheduler,
## controller-manager, etcd and kwok once into $(GPUWISE_CACHE) (reused when
## present), fetches the Kyverno and Gatekeeper CRDs and builds gator from
## their Go modules (hack/policyengines; ~4 min once), the Karpenter
## (core and AWS), KEDA and VPA CRDs from theirs (hack/crds), starts the control
## plane on 127.0.0.1, runs test/integration/kube against it with the
## shipped read-only RBAC, and always stops what it started.
INTEGRATION += integration-kube
GPUWISE_CACHE ?= $(HOME)/.cache/gpuwise
export GPUWISE_CACHE

.PHONY: integration-kube
integration-kube:
	./hack/controlplane/build.sh
	./hack/policyengines/build.sh crds gator
	./hack/crds/build.sh
	@./hack/controlplane/down.sh >/dev/null 2>&1 || true
	@set -e; trap './hack/controlplane/down.sh' EXIT; \
	./hack/controlplane/up.sh; \
	GPUWISE_TEST_KUBECONFIG=$${GPUWISE_CP_RUN:-$(GPUWISE_CACHE)/controlplane/run}/kubeconfig GPUWISE_CRDS=$(GPUWISE_CACHE)/crds \
	GPUWISE_POLICY_CRDS=$(GPUWISE_CACHE)/policyengines/crds GPUWISE_GATOR=$(GPUWISE_CACHE)/policyengines/bin/gator \
	  $(GO) test -tags integration -count=1 -v ./test/integration/kube/...

## bench-kube: `gpuwise collect` wall time and peak RSS on a KWOK cluster of
## KUBE_SCALE=NODESxPODS (default 1000 GPU nodes, 20,000 pods); see docs/audit.md.
KUBE_SCALE ?= 1000x20000
.PHONY: bench-kube
bench-kube:
	./hack/controlplane/build.sh
	@./hack/controlplane/down.sh >/dev/null 2>&1 || true
	@set -e; trap './hack/controlplane/down.sh' EXIT; \
	./hack/controlplane/up.sh; \
	GPUWISE_TEST_KUBECONFIG=$(GPUWISE_CACHE)/controlplane/run/kubeconfig GPUWISE_KUBE_SCALE=$(KUBE_SCALE) \
	  $(GO) test -tags 'integration kubescale' -count=1 -v -timeout 20m -run TestCollectScale ./test/integration/kube/...
