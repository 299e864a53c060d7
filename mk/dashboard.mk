## integration-browser: the dashboard in a real headless Chromium (Debian's,
## installed by hack/chromium/install.sh) against `serve --demo`: every
## view at laptop and phone size, each figure checked against the API,
## sorting, filters and shared URLs, no console error or failed request.
## Screenshots and the first page's weight and timing (measurements.json)
## go to $(BROWSER_OUT), which is not committed.
INTEGRATION += integration-browser
BROWSER_OUT ?= $(CURDIR)/out/browser

.PHONY: integration-browser
integration-browser:
	hack/chromium/install.sh
	GPUWISE_BROWSER_OUT=$(BROWSER_OUT) $(GO) test -tags browser -count=1 -timeout 10m ./internal/dashboard
	@echo "integration-browser: screenshots and measurements.json in $(BROWSER_OUT)"

## bench-dashboard: the first page at SERVE_SCALE cells of 96 GPUs (default
## 104: 9,984 GPUs): server time and transfer per request, render time in
## headless Chromium (hack/dashboard/bench.sh; docs/performance.md).
.PHONY: bench-dashboard
bench-dashboard:
	hack/chromium/install.sh
	GO=$(GO) BROWSER_OUT=$(BROWSER_OUT) hack/dashboard/bench.sh $(SERVE_SCALE)

## bench-dashboard-views: every dashboard view at SERVE_SCALE (default
## 104: 9,984 GPUs) in headless Chromium (first load after the cycle and
## again: the slowest API request's server time and the bytes transferred
## per view, views.json in $(BROWSER_OUT)), then its API requests with
## curl: time to first byte and gzipped bytes per request, the load
## average, the service's CPU and peak RSS at ready
## (hack/dashboard/bench-views.sh; docs/performance.md). ~2 GB at 104:
## take flock /tmp/gpuwise-bigmem.lock.
.PHONY: bench-dashboard-views
bench-dashboard-views:
	hack/chromium/install.sh
	GO=$(GO) BROWSER_OUT=$(BROWSER_OUT) hack/dashboard/bench-views.sh $(SERVE_SCALE)
