## integration-grafana: the Grafana dashboard (deploy/grafana, built by
## internal/grafana with the Grafana foundation SDK): a real Prometheus
## (Debian's) scrapes a running serve --demo and every panel's and
## variable's query returns data; the chart's ConfigMap carries the
## dashboard byte for byte.
INTEGRATION += integration-grafana

.PHONY: integration-grafana
integration-grafana:
	hack/prometheus/install.sh
	hack/tools/build.sh helm
	$(GO) test -tags integration -count=1 -timeout 10m ./test/integration/grafana/...
