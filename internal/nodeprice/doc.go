// Package nodeprice prices the nodes of a snapshot: it converts a
// cluster.Node to the pricing.NodeSpec the catalog reads (Spec) and
// remembers each node's answer (Memo), so that every engine that needs a
// node's price (cost, audit, rightsize, packing) looks it up the same way
// and pays one catalog lookup per node.
//
// Pure core: it imports cluster, pricing and the standard library only;
// no engine, adapter or front end.
package nodeprice
