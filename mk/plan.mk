## bench-plan: the consolidation planner's benchmarks (100 / 1k / 10k
## nodes, ~10 pods per node) and the offline openb consolidation against
## its lower bound; see docs/performance.md "Consolidation planner".
OPENB_DIR ?= ../shared/data/openb

.PHONY: bench-plan
bench-plan:
	$(GO) test ./internal/packing/ -run XXX -bench Solve -benchtime 3x -count 3 -benchmem
	$(GO) build -o bin/gpuwise-lab ./cmd/gpuwise-lab
	bin/gpuwise-lab consolidate --nodes $(OPENB_DIR)/openb_node_list_gpu_node.csv \
	  --pods $(OPENB_DIR)/openb_pod_list_default.csv
