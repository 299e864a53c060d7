# gpuwise — see README.md. `make test` is what CI runs.
GO      ?= go
PKGS    := ./...
BENCH   ?= .
BENCHTIME ?= 1x

.PHONY: all build install uninstall test unit smoke integration lint demo bench bench-bill fuzz tidy-check clean manifests help ci tools print-integration tools-cp tools-policy tools-helm tools-vm tools-apt

## all: the default target: build.
all: build

## help: every target with the first sentence of its `##` comment (from
## this Makefile and mk/*.mk); fails naming a target that has none, so
## `make lint` keeps the list whole. CONTRIBUTING.md says which to run.
help:
	@awk -f hack/make-help.awk Makefile mk/*.mk

## build: bin/gpuwise and bin/gpuwise-lab.
build:
	$(GO) build -o bin/gpuwise ./cmd/gpuwise
	$(GO) build -o bin/gpuwise-lab ./cmd/gpuwise-lab

## install: gpuwise into $(DESTDIR)$(PREFIX)/bin, and kubectl-gpuwise (a
## symlink to it) beside it, so that `kubectl gpuwise …` works too.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
install: build
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 bin/gpuwise $(DESTDIR)$(BINDIR)/gpuwise
	ln -sf gpuwise $(DESTDIR)$(BINDIR)/kubectl-gpuwise

## uninstall: remove what install put in $(DESTDIR)$(BINDIR).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gpuwise $(DESTDIR)$(BINDIR)/kubectl-gpuwise

## test: every tier: lint, go.mod tidiness, unit tests under the race
## detector (CLI tests run the commands in-process), then the README's
## commands as a newcomer types them.
test: lint tidy-check unit smoke integration

## integration: tiers against real components (real kube-apiserver +
## scheduler + KWOK, real Prometheus). Each tier lives in mk/*.mk and adds
## itself to INTEGRATION; its hack/ script installs what it needs.
INTEGRATION :=
-include mk/*.mk
integration: $(INTEGRATION)

## ci: what .ci/run runs: make test's tiers, side by side where they share
## nothing (hack/ci.sh): make tools beside lint, tidy-check, unit and smoke,
## then the control plane's tiers beside the others. CI_SERIAL=1 is make test.
ci:
	MAKE='$(MAKE)' hack/ci.sh

## tools: every external tool the integration tiers use, built or installed
## once (control plane and kubectl, gator and the CRDs, helm, VictoriaMetrics,
## Debian's prometheus and chromium); the tiers then find them current. Its
## parts run two at a time (they build different Go modules).
tools:
	@$(MAKE) --no-print-directory -j2 tools-cp tools-policy tools-helm tools-vm tools-apt

## tools-cp: the control plane and kubectl (hack/controlplane/build.sh).
tools-cp:
	./hack/controlplane/build.sh

## tools-policy: gator and the policy engines' and other projects' CRDs.
tools-policy:
	./hack/policyengines/build.sh crds gator
	./hack/crds/build.sh

## tools-helm: helm (hack/tools/build.sh).
tools-helm:
	hack/tools/build.sh helm

## tools-vm: VictoriaMetrics (hack/tools/build.sh).
tools-vm:
	hack/tools/build.sh victoria-metrics

## tools-apt: Debian's prometheus and chromium (one apt at a time).
tools-apt:
	hack/prometheus/install.sh
	hack/chromium/install.sh

## print-integration: the integration tiers, in make test's order.
print-integration:
	@echo $(INTEGRATION)

## unit: every package's tests under the race detector. GPUWISE_REQUIRE_SHARED=1 turns the tests that read ../shared/data
## (public traces, price sources) from skipped into failed when it is
## missing: a plain `go test ./...` in a clone skips them, CI never does.
## UNIT_TIMEOUT (25m) is go test's per-package limit: internal/serve's tests
## under -race took 559-912 s at load 30-48, past go test's default 10m.
UNIT_TIMEOUT ?= 25m
unit:
	GPUWISE_REQUIRE_SHARED=1 $(GO) test -race -count=1 -timeout $(UNIT_TIMEOUT) $(PKGS)

## smoke: the README's commands, as they must work on a fresh machine.
smoke:
	$(GO) run ./cmd/gpuwise demo > /dev/null
	$(GO) run ./cmd/gpuwise demo -o json | $(GO) run ./hack/checkreport
	$(GO) run ./cmd/gpuwise recommend --demo > /dev/null
	$(GO) run ./cmd/gpuwise plan --demo > /dev/null
	GO=$(GO) hack/serve/smoke.sh
	$(GO) run ./cmd/gpuwise audit --demo > /dev/null
	$(GO) run ./cmd/gpuwise inventory --demo > /dev/null
	$(GO) run ./cmd/gpuwise inventory --demo -o json > /dev/null
	$(GO) run ./cmd/gpuwise generate policy > /dev/null
	$(GO) run ./cmd/gpuwise generate quota --demo > /dev/null 2>&1
	@d=$$(mktemp -d) && $(MAKE) --no-print-directory install PREFIX=$$d > /dev/null && \
	  $$d/bin/kubectl-gpuwise inventory --help | grep -q 'kubectl gpuwise inventory' && \
	  $$d/bin/gpuwise demo > /dev/null; rc=$$?; rm -rf $$d; \
	  if [ $$rc -ne 0 ]; then echo "smoke: make install did not give a working gpuwise and kubectl-gpuwise"; exit 1; fi
	$(GO) run ./cmd/gpuwise advise --demo > /dev/null
	$(GO) run ./cmd/gpuwise advise --demo -o json | $(GO) run ./hack/checkledger
	@d=$$(mktemp -d) && \
	  $(GO) run ./cmd/gpuwise demo --save $$d/demo.snap --save-bill $$d/bill.csv > /dev/null && \
	  $(GO) run ./cmd/gpuwise report --from $$d/demo.snap --bill $$d/bill.csv -o json | $(GO) run ./hack/checkbill && \
	  $(GO) run ./cmd/gpuwise demo --save-bill $$d/cur.csv --bill-format cur2 -o json > /dev/null && \
	  $(GO) run ./cmd/gpuwise report --from $$d/demo.snap --bill $$d/cur.csv -o json | $(GO) run ./hack/checkbill && \
	  $(GO) run ./cmd/gpuwise bill inspect $$d/bill.csv $$d/cur.csv > /dev/null; rc=$$?; rm -rf $$d; \
	  if [ $$rc -ne 0 ]; then echo "smoke: demo --save-bill, report --bill or bill inspect failed"; exit 1; fi
	@if [ -d ../shared/data/genai2026 ]; then \
	  $(GO) run ./cmd/gpuwise-lab replay-genai --dir ../shared/data/genai2026 -o json | $(GO) run ./hack/checkreport; \
	else echo "smoke: ../shared/data/genai2026 not found; trace replay not checked"; exit 1; fi

## lint: gofmt, go vet, and every target documented (make help).
lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	@$(MAKE) --no-print-directory help > /dev/null

## tidy-check: go.mod and go.sum as go mod tidy leaves them.
tidy-check:
	@cp go.mod /tmp/gpuwise.go.mod.bak; cp go.sum /tmp/gpuwise.go.sum.bak; \
	$(GO) mod tidy; \
	if ! cmp -s go.mod /tmp/gpuwise.go.mod.bak || ! cmp -s go.sum /tmp/gpuwise.go.sum.bak; then \
	  echo "go.mod/go.sum are not tidy: run go mod tidy"; \
	  cp /tmp/gpuwise.go.mod.bak go.mod; cp /tmp/gpuwise.go.sum.bak go.sum; exit 1; fi

## demo: the cost report on the embedded simulated cluster.
demo:
	$(GO) run ./cmd/gpuwise demo

## manifests: re-render deploy/manifests/gpuwise.yaml from the Helm chart
## (helm is built once into $(GPUWISE_CACHE)/tools by hack/tools/build.sh).
manifests:
	hack/tools/build.sh helm
	hack/serve/manifests.sh

## bench: benchmarks with allocations; compare runs with benchstat.
bench:
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchmem -count=6 ./internal/...

## fuzz: every fuzz target for FUZZTIME (30s) each, with its execution count;
## fails on a crasher or on fewer than FUZZ_MIN_EXECS (10000) executions.
fuzz:
	GO='$(GO)' hack/fuzz.sh

## bench-bill: read and match a generated 10 M-row FOCUS Parquet export
## and a 1 M-row CSV one (docs/performance.md): CPU seconds and max RSS
## of `gpuwise report --demo --bill FILE`, by /usr/bin/time.
BENCH_BILL_DIR ?= /tmp/gpuwise-bench-bill
bench-bill:
	mkdir -p $(BENCH_BILL_DIR)
	$(GO) build -o $(BENCH_BILL_DIR)/gpuwise ./cmd/gpuwise
	test -s $(BENCH_BILL_DIR)/focus-10m.parquet || $(GO) run ./hack/billbench -rows 10000000 -o $(BENCH_BILL_DIR)/focus-10m.parquet
	test -s $(BENCH_BILL_DIR)/focus-1m.csv || $(GO) run ./hack/billbench -rows 1000000 -format csv -o $(BENCH_BILL_DIR)/focus-1m.csv
	@uptime
	@for f in focus-10m.parquet focus-1m.csv; do \
	  /usr/bin/time -f "$$f: %U s user, %S s system, %e s wall, %M KiB max RSS" \
	    $(BENCH_BILL_DIR)/gpuwise report --demo --bill $(BENCH_BILL_DIR)/$$f -o json > /dev/null || exit 1; \
	done

## clean: remove bin/.
clean:
	rm -rf bin
