## integration-vm: the history reads against a second real backend,
## VictoriaMetrics single-node, built from its Go module (v1.151.0,
## CGO_ENABLED=0) once into $(GPUWISE_CACHE)/tools, loaded through its
## import API with the simulated history the Prometheus tier backfills, and
## checked against the same ground truth; --prometheus-read auto must find
## by itself that it serves no remote read. hack/victoriametrics/down.sh
## always runs.
INTEGRATION += integration-vm

.PHONY: integration-vm
integration-vm:
	hack/tools/build.sh victoria-metrics
	@hack/victoriametrics/down.sh
	@set -e; trap 'hack/victoriametrics/down.sh' EXIT; \
	GO=$(GO) hack/victoriametrics/up.sh; \
	$(GO) test -tags integration -count=1 -timeout 10m ./test/integration/vm/...
