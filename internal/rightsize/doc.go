// Package rightsize recommends CPU and memory requests per container and a
// GPU shape per workload (keep whole, a MIG profile, a time-slice share, a
// cheaper GPU model) from the usage in a snapshot. Every recommendation
// carries its evidence, a confidence and its $/month; too little data
// gives no recommendation and says why. It never applies anything.
package rightsize
