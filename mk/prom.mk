## integration-prom: a real Prometheus (Debian's package) holding 14 days
## of simulated DCGM-exporter, cAdvisor and kube-state-metrics history,
## backfilled with promtool; gpuwise report --prometheus is checked against
## the simulator's ground truth. hack/prometheus/down.sh always runs.
INTEGRATION += integration-prom

.PHONY: integration-prom
integration-prom:
	hack/prometheus/install.sh
	@hack/prometheus/down.sh
	@set -e; trap 'hack/prometheus/down.sh' EXIT; \
	GO=$(GO) hack/prometheus/up.sh; \
	$(GO) test -tags integration -count=1 -timeout 10m ./test/integration/prom/...

## bench-prom: streaming ingest versus per-container quantile_over_time on
## the same Prometheus and data (docs/prometheus.md).
.PHONY: bench-prom
bench-prom:
	hack/prometheus/install.sh
	@set -e; trap 'hack/prometheus/down.sh' EXIT; \
	GO=$(GO) hack/prometheus/up.sh; \
	$(GO) test -tags 'integration prombench' -count=1 -v -timeout 30m -run TestStreamingVersusQuantileOverTime ./test/integration/prom/...
