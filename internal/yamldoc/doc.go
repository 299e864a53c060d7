// Package yamldoc owns what gpuwise asks of every YAML file a user hands
// it (price overrides, recommendation policies) beyond its schema: that it
// holds one document. It is core: it imports the YAML parser only, never
// an adapter, a store or a front end.
package yamldoc
