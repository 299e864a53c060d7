// Package inventory owns the GPU inventory: what a platform engineer
// checks on day one of a GPU cluster before any usage figure. Per GPU node
// at the window's end it reports the GPU model, physical GPUs and the
// units carved from them (whole GPUs, MIG instances, time-slice
// replicas), the MIG strategy, configuration and current layout, the
// time-slicing replicas, whether the device plugin, GPU feature discovery
// and the GPU operator's other components run there, how the node is
// bought (capacity and instance type) and its price with where the price
// came from (catalog with its as-of date, a user rule, or unpriced and
// why). It sums the cluster by GPU model and sharing mode, and lists the
// findings the inventory alone proves: a node labelled or sold as a GPU
// node that advertises no allocatable GPUs (its GPUs cannot be scheduled
// and are paid for idle), GPUs without feature-discovery labels, fewer
// GPUs advertised than the hardware has, failed or invalid MIG
// configurations, operands paused for a MIG change.
//
// Build is pure: it reads a prepared snapshot and prices through
// nodeprice, and returns a value; time is the snapshot's window. It is an
// engine: it imports the core packages (cluster, pricing, nodeprice) and
// no other engine, adapter, use case or front end. Label names and
// operator component names come from ../shared/reference/gpu-formats.md
// §1.6 and §2.2.
package inventory
