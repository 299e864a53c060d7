## packbench: the FGD paper's placement benchmark (ATC'23) on the openb
## trace, seeds 42-51, for BestFit, FGD and gpuwise's own policy; prints
## each policy's mean GPU allocation and fragmentation (% of cluster GPUs)
## at 130% arrived demand. PACKBENCH_MIX picks a derived workload mix
## (default, cpu-half, cpu-double, frac-high, frac-low, multi-gpu,
## cpu-pods-x2, no-cpu-pods, gpu-spec); see docs/performance.md.
OPENB_DIR     ?= ../shared/data/openb
PACKBENCH_MIX ?= default
PACKBENCH      = bin/gpuwise-lab packbench --nodes $(OPENB_DIR)/openb_node_list_gpu_node.csv \
                 --pods $(OPENB_DIR)/openb_pod_list_default.csv --mix $(PACKBENCH_MIX) --seeds 42-51

.PHONY: packbench
packbench:
	$(GO) build -o bin/gpuwise-lab ./cmd/gpuwise-lab
	@for p in bestfit fgd gpuwise; do \
	  a=$$($(PACKBENCH) --policy $$p --metric alloc | awk -F, 'NR>1 {s+=$$NF; n++} END {printf "%.2f", s/n}') || exit 1; \
	  f=$$($(PACKBENCH) --policy $$p --metric frag | awk -F, 'NR>1 {s+=$$NF; n++} END {printf "%.2f", s/n}') || exit 1; \
	  printf '%-8s %-10s alloc@130 %6s  frag@130 %5s\n' $$p $(PACKBENCH_MIX) $$a $$f; \
	done
