## integration-serve: gpuwise serve's tier. Builds helm (helm.sh/helm/v3,
## pinned in hack/tools/env.sh) and kubectl (the control plane's version)
## once into $(GPUWISE_CACHE)/tools, starts the
## control plane (hack/controlplane), and runs test/integration/serve: the
## chart (helm lint, helm template | kubectl apply --dry-run=server, its pod
## under the restricted Pod Security Standard, deploy/manifests current),
## serve against the control plane with the chart's ServiceAccount token,
## and a central Prometheus (Debian's) federating two serve instances.
INTEGRATION += integration-serve

.PHONY: integration-serve
integration-serve:
	./hack/controlplane/build.sh
	hack/tools/build.sh helm kubectl
	hack/prometheus/install.sh
	@./hack/controlplane/down.sh >/dev/null 2>&1 || true
	@set -e; trap './hack/controlplane/down.sh' EXIT; \
	./hack/controlplane/up.sh; \
	GPUWISE_TEST_KUBECONFIG=$(GPUWISE_CACHE)/controlplane/run/kubeconfig \
	  $(GO) test -tags integration -count=1 -timeout 10m ./test/integration/serve/...

## bench-serve: the service at SERVE_SCALE cells of 96 GPUs (default 104:
## 9,984 GPUs, ~57,000 pods): a steady-state cycle's CPU, heap and RSS, a
## /metrics scrape, and the history's growth; see docs/performance.md.
SERVE_SCALE ?= 104
.PHONY: bench-serve
bench-serve:
	GPUWISE_SERVE_BENCH_SCALE=$(SERVE_SCALE) $(GO) test -run '^$$' -bench 'Cycle|Scrape|HistoryGrowth' -benchtime 3x -count 1 -timeout 60m ./internal/serve

## bench-serve-demo: one `gpuwise serve --demo --scale SERVE_SCALE` process
## from start-up to steady state: peak RSS, RSS at ready and after /metrics
## scrapes and API answers (hack/serve/memory.sh); see docs/performance.md.
.PHONY: bench-serve-demo
bench-serve-demo:
	hack/serve/memory.sh "" $(SERVE_SCALE)
