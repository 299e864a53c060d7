package pricing

// nodeBuilder builds NodeSpec fixtures: node("n1").aws("us-east-1",
// "p5.48xlarge").gpus(8, "H100-80GB").cores(192).mem(2048).spec().
type nodeBuilder struct{ n NodeSpec }

func node(name string) *nodeBuilder { return &nodeBuilder{NodeSpec{Name: name}} }

func (b *nodeBuilder) aws(region, instanceType string) *nodeBuilder {
	return b.cloud("aws", region, instanceType)
}

func (b *nodeBuilder) azure(region, instanceType string) *nodeBuilder {
	return b.cloud("azure", region, instanceType)
}

func (b *nodeBuilder) cloud(cloud, region, instanceType string) *nodeBuilder {
	b.n.Cloud, b.n.Region, b.n.InstanceType = cloud, region, instanceType
	if b.n.Capacity == UnknownCapacity {
		b.n.Capacity = OnDemand
	}
	return b
}

func (b *nodeBuilder) capacity(c CapacityType) *nodeBuilder { b.n.Capacity = c; return b }

func (b *nodeBuilder) gpus(count int, model string) *nodeBuilder {
	b.n.GPUCount, b.n.GPUModel = count, model
	return b
}

func (b *nodeBuilder) cores(c float64) *nodeBuilder { b.n.CPUCores = c; return b }

func (b *nodeBuilder) mem(gib float64) *nodeBuilder { b.n.MemoryGiB = gib; return b }

func (b *nodeBuilder) label(k, v string) *nodeBuilder {
	if b.n.Labels == nil {
		b.n.Labels = map[string]string{}
	}
	b.n.Labels[k] = v
	return b
}

func (b *nodeBuilder) spec() NodeSpec { return b.n }

// p5 is the README's sanity row: p5.48xlarge in us-east-1, $55.04/h.
func p5() *nodeBuilder {
	return node("p5").aws("us-east-1", "p5.48xlarge").gpus(8, "H100-80GB").cores(192).mem(2048)
}
