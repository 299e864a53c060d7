# gpuwise — see README.md. `make test` is what CI runs.
GO      ?= go
PKGS    := ./...
BENCH   ?= .
BENCHTIME ?= 1x

.PHONY: all build install uninstall test unit smoke integration lint demo bench fuzz tidy-check clean manifests

all: build

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

## unit: GPUWISE_REQUIRE_SHARED=1 turns the tests that read ../shared/data
## (public traces, price sources) from skipped into failed when it is
## missing: a plain `go test ./...` in a clone skips them, CI never does.
unit:
	GPUWISE_REQUIRE_SHARED=1 $(GO) test -race -count=1 $(PKGS)

## smoke: the README promises these work on a fresh machine.
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
	@if [ -d ../shared/data/genai2026 ]; then \
	  $(GO) run ./cmd/gpuwise-lab replay-genai --dir ../shared/data/genai2026 -o json | $(GO) run ./hack/checkreport; \
	else echo "smoke: ../shared/data/genai2026 not found; trace replay not checked"; exit 1; fi

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

tidy-check:
	@cp go.mod /tmp/gpuwise.go.mod.bak; cp go.sum /tmp/gpuwise.go.sum.bak; \
	$(GO) mod tidy; \
	if ! cmp -s go.mod /tmp/gpuwise.go.mod.bak || ! cmp -s go.sum /tmp/gpuwise.go.sum.bak; then \
	  echo "go.mod/go.sum are not tidy: run go mod tidy"; \
	  cp /tmp/gpuwise.go.mod.bak go.mod; cp /tmp/gpuwise.go.sum.bak go.sum; exit 1; fi

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

clean:
	rm -rf bin
