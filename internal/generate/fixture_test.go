package generate

// Hand-written inputs shared by the golden and validation tests.

const (
	mi = int64(1) << 20
	gi = int64(1) << 30
)

// samplePatches: a two-container Deployment whose model server moves from
// a whole GPU to a MIG slice, a CronJob, and a StatefulSet.
func samplePatches() []ResourcePatch {
	return []ResourcePatch{
		{
			Workload: Workload{Kind: Deployment, Namespace: "ml-serving", Name: "chat-api"},
			Evidence: "p95 CPU 0.21 cores over 7d, 2,016 samples; peak GPU memory 7.9 GiB; saves $1,041.20/month",
			Containers: []ContainerResources{
				{
					Name: "model", CPURequestMilli: 250, MemoryRequestBytes: 1536 * mi, MemoryLimitBytes: 2 * gi,
					GPU: &GPUChange{Resource: "nvidia.com/mig-1g.10gb", Count: 1, Remove: []string{"nvidia.com/gpu"}},
				},
				{Name: "sidecar", CPURequestMilli: 10, MemoryRequestBytes: 64 * mi, MemoryLimitBytes: 128 * mi},
			},
		},
		{
			Workload: Workload{Kind: CronJob, Namespace: "data", Name: "nightly-embed"},
			Evidence: "p95 CPU 1.40 cores over 30d, 30 runs; saves $12.75/month",
			Containers: []ContainerResources{
				{Name: "embed", CPURequestMilli: 1500, RemoveCPULimit: true, MemoryRequestBytes: 6 * gi, MemoryLimitBytes: 6 * gi},
			},
		},
		{
			Workload: Workload{Kind: StatefulSet, Namespace: "ml-serving", Name: "vector-db"},
			Evidence: "p95 CPU 2.00 cores, p99 memory 10.2 GiB over 7d; saves $88.00/month",
			Containers: []ContainerResources{
				{Name: "db", CPURequestMilli: 2000, CPULimitMilli: 4000, MemoryRequestBytes: 12 * gi, MemoryLimitBytes: 12 * gi},
			},
		},
	}
}

// sampleVPAs: one recommendation-only VPA per sample workload.
func sampleVPAs() []VPA {
	return []VPA{
		{
			Workload:    Workload{Kind: Deployment, Namespace: "ml-serving", Name: "chat-api"},
			Evidence:    "compare with gpuwise: model 250m/1536Mi, sidecar 10m/64Mi",
			Containers:  []string{"model", "sidecar"},
			MinCPUMilli: 10, MinMemoryBytes: 64 * mi,
		},
		{
			Workload:    Workload{Kind: CronJob, Namespace: "data", Name: "nightly-embed"},
			Evidence:    "compare with gpuwise: embed 1500m/6Gi",
			MinCPUMilli: 10, MinMemoryBytes: 64 * mi,
		},
		{
			Workload:    Workload{Kind: StatefulSet, Namespace: "ml-serving", Name: "vector-db"},
			Name:        "vector-db-recommender",
			Evidence:    "compare with gpuwise: db 2/12Gi",
			Containers:  []string{"db"},
			MinCPUMilli: 10, MinMemoryBytes: 64 * mi,
		},
	}
}

// sampleTimeSlicing: two sharing configs over three nodes, one of them a
// mixed-MIG node time-slicing its 1g.10gb instances.
func sampleTimeSlicing() TimeSlicing {
	return TimeSlicing{
		Configs: []SharingConfig{
			{
				Name: "ts-4", RenameByDefault: true, FailRequestsGreaterThanOne: true,
				Resources: []SharedResource{{Name: "nvidia.com/gpu", Replicas: 4}},
			},
			{
				Name: "mig-mixed-ts-2", MIGStrategy: "mixed", RenameByDefault: true, FailRequestsGreaterThanOne: true,
				Resources: []SharedResource{{Name: "nvidia.com/mig-1g.10gb", Replicas: 2}},
			},
		},
		Nodes: []NodeConfig{
			{Node: "gpu-l4-1", Config: "ts-4"},
			{Node: "gpu-l4-2", Config: "ts-4"},
			{Node: "gpu-a100-3", Config: "mig-mixed-ts-2"},
		},
	}
}

// sampleMIGParted: a heterogeneous A100-80GB node and an H100-80GB node.
func sampleMIGParted() MIGParted {
	return MIGParted{
		Nodes: []MIGNode{
			{
				Node: "gpu-a100-1", Config: "gpuwise-a100-80gb-plan-7",
				Groups: []MIGDeviceGroup{
					{Model: "A100-80GB", Devices: []int{0, 1, 2, 3}, Layout: map[string]int{"1g.10gb": 7}},
					{Model: "A100-80GB", Devices: []int{4, 5}, Layout: map[string]int{"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}},
					{Model: "A100-80GB", Devices: []int{6, 7}},
				},
			},
			{
				Node: "gpu-h100-1", Config: "gpuwise-h100-80gb-3g",
				Groups: []MIGDeviceGroup{
					{Model: "H100-80GB", Layout: map[string]int{"3g.40gb": 2}},
				},
			},
		},
	}
}
