## verify-kyverno: the generated Kyverno and native policies under the kyverno
## CLI on the shared pod and claim fixtures. The CLI is built once from a copy of its Go
## module into $(GPUWISE_CACHE)/policyengines (its go.mod has a replace
## directive, so `go install` refuses it): ~7-11 min and ~400 MB the first
## time, seconds after. Not part of `make test`; run it when the policies
## change (docs/policy.md).
.PHONY: verify-kyverno
verify-kyverno:
	./hack/policyengines/build.sh kyverno
	GPUWISE_KYVERNO=$(GPUWISE_CACHE)/policyengines/bin/kyverno \
	  $(GO) test -tags 'integration kyverno' -count=1 -v -run TestKyvernoCLI ./test/integration/kube/...

## bench-admission: the cost of enforcement on the real API server: pod-create
## latency seen by the client (p50/p99) over ADMISSION_CREATES creates,
## alternating blocks with and without the generated policies, and the mean of
## apiserver_admission_controller_admission_duration_seconds per policy plugin
## (docs/performance.md). ADMISSION_POD=cpu times pods without a GPU instead.
## ADMISSION_SETTLE is the pause after each binding toggle: re-binding makes
## the API server compile the policies again, which it keeps out of the timed
## blocks (8 s; each run of 6,000 creates then takes about 10 min).
## Not part of `make test`.
ADMISSION_CREATES ?= 2000
ADMISSION_POD ?= gpu
ADMISSION_SETTLE ?= 8s
.PHONY: bench-admission
bench-admission:
	./hack/controlplane/build.sh
	@./hack/controlplane/down.sh >/dev/null 2>&1 || true
	@set -e; trap './hack/controlplane/down.sh' EXIT; \
	./hack/controlplane/up.sh; \
	GPUWISE_TEST_KUBECONFIG=$(GPUWISE_CACHE)/controlplane/run/kubeconfig GPUWISE_ADMISSION_CREATES=$(ADMISSION_CREATES) GPUWISE_ADMISSION_POD=$(ADMISSION_POD) GPUWISE_ADMISSION_SETTLE=$(ADMISSION_SETTLE) \
	  $(GO) test -tags 'integration admissionbench' -count=1 -v -timeout 20m -run TestAdmissionLatency ./test/integration/kube/...
