package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpuwise/gpuwise/internal/inventory"
)

// Inventory writes the GPU inventory in format f: table is the summary,
// one line per node and the findings; wide adds each node's layout, MIG
// configuration, operator components and price source, and each
// finding's fix.
func Inventory(w io.Writer, inv *inventory.Inventory, f Format, o Options) error {
	if inv == nil {
		return fmt.Errorf("rendering inventory: no inventory")
	}
	d := inventoryDoc(inv)
	return write(w, "inventory", f, o, docWriters(d, writers{
		Table: inventoryTableDoc(inv).writeText,
		Wide:  d.writeText,
		JSON:  func(w io.Writer) error { return encodeJSON(w, inv) },
		YAML:  func(w io.Writer) error { return encodeYAML(w, inv) },
		CSV:   func(w io.Writer) error { return writeInventoryCSV(w, inv) },
	}))
}

// inventoryHeadline is the totals in one sentence.
func inventoryHeadline(inv *inventory.Inventory) string {
	t := inv.Totals
	s := fmt.Sprintf("%d GPU nodes, %d GPUs (%d units, %d in use)", t.Nodes, t.GPUs, t.Units, t.UnitsInUse)
	if t.UnadvertisedGPUs > 0 {
		s += fmt.Sprintf(" and %d GPUs not advertised", t.UnadvertisedGPUs)
	}
	if t.USDPerHour == nil {
		return s + "; no node is priced (add prices with --prices FILE)."
	}
	s += fmt.Sprintf("; %s/hour (%s) for %d priced nodes", usdCents(*t.USDPerHour), monthly(*t.USDPerMonth), t.PricedNodes)
	if t.UnpricedNodes > 0 {
		s += fmt.Sprintf(", %d unpriced", t.UnpricedNodes)
	}
	return s + "."
}

func inventoryAt(inv *inventory.Inventory) string {
	return fmt.Sprintf("At %s, source %s.", inv.At.UTC().Format(time.RFC3339), orUnknown(inv.Source))
}

// inventoryTableDoc is the terminal view: the summary by model and
// sharing, one short line per node, the findings without their fixes.
func inventoryTableDoc(inv *inventory.Inventory) *doc {
	d := &doc{title: "gpuwise GPU inventory"}
	d.line(inventoryAt(inv))
	d.line(inventoryHeadline(inv))
	if line := draLine(inv.DRA); line != "" {
		d.line(line)
	}
	d.line("")
	var rows [][]string
	for _, g := range inv.Summary {
		rows = append(rows, []string{g.GPUModel, g.Vendor, g.Sharing, strconv.Itoa(g.Nodes), strconv.Itoa(g.GPUs), strconv.Itoa(g.Units),
			strconv.Itoa(g.UnitsInUse), withUnpriced(g.USDPerHour, g.UnpricedNodes, "unpriced", usdCents)})
	}
	d.table([]string{"MODEL", "VENDOR", "SHARING", "NODES", "GPUS", "UNITS", "IN USE", "$/HOUR"}, rows)
	rows = nil
	for _, n := range inv.Nodes {
		rows = append(rows, []string{n.Name, modelCell(n), n.Vendor, gpusCell(n), sharingCell(n), fmt.Sprintf("%d/%d", n.UnitsInUse, n.Units),
			moneyOr(nodeUSDPerHour(n), "unpriced", usdCents), string(n.DevicePlugin.Status), string(n.FeatureDiscovery.Status), n.CapacityType})
	}
	// The least important columns last: a narrow terminal cuts them first.
	d.tableTight([]string{"NODE", "MODEL", "VENDOR", "GPUS", "SHARING", "IN USE", "$/HOUR", "PLUGIN", "GFD", "CAPACITY"}, rows)
	if len(inv.Findings) > 0 {
		d.line("")
		d.linef("%d finding(s):", len(inv.Findings))
		for _, f := range inv.Findings {
			d.linef("! %s: %s", f.Node, f.Message)
		}
	}
	noteLines(d, inv.Notes)
	d.line("")
	d.line("Layouts, MIG configuration, operator components, price sources and fixes: -o wide (every field: -o json).")
	return d
}

// inventoryDoc is the whole inventory for wide, markdown and html.
func inventoryDoc(inv *inventory.Inventory) *doc {
	d := &doc{title: "gpuwise GPU inventory"}
	d.line(inventoryAt(inv))
	d.line(inventoryHeadline(inv))
	d.line("")
	d.heading("Summary by model and sharing")
	var rows [][]string
	for _, g := range inv.Summary {
		rows = append(rows, []string{g.GPUModel, g.Vendor, g.Sharing, strconv.Itoa(g.Nodes), strconv.Itoa(g.GPUs), strconv.Itoa(g.Units),
			strconv.Itoa(g.UnitsInUse), withUnpriced(g.USDPerHour, g.UnpricedNodes, "unpriced", usdCents), withUnpriced(g.USDPerHour, g.UnpricedNodes, "unpriced", perMonthOfHourly)})
	}
	d.table([]string{"model", "vendor", "sharing", "nodes", "GPUs", "units", "in use", "$/hour", "$/month"}, rows)
	d.heading("Nodes")
	rows = nil
	for _, n := range inv.Nodes {
		rows = append(rows, []string{n.Name, modelCell(n), n.Vendor, gpusCell(n), fmt.Sprintf("%d/%d", n.UnitsInUse, n.Units), sharingCell(n),
			migCell(n.MIG), string(n.DevicePlugin.Status), string(n.FeatureDiscovery.Status), componentsCell(n.Components),
			placeCell(n), n.CapacityType, moneyOr(nodeUSDPerHour(n), "unpriced", usdCents), priceSourceCell(n)})
	}
	d.table([]string{"node", "model", "vendor", "GPUs", "in use", "sharing", "MIG", "device plugin", "GFD", "operator components",
		"instance", "capacity", "$/hour", "price source"}, rows)
	d.heading("GPU layouts")
	rows = nil
	for _, n := range inv.Nodes {
		for _, r := range layoutRuns(n) {
			rows = append(rows, []string{n.Name, r.gpus, r.desc, fmt.Sprintf("%d/%d", r.inUse, r.units)})
		}
	}
	d.table([]string{"node", "GPUs", "layout", "units in use"}, rows)
	if line := draLine(inv.DRA); line != "" {
		d.heading("Dynamic Resource Allocation")
		d.line(line)
	}
	inventoryFindings(d, inv)
	return d
}

func inventoryFindings(d *doc, inv *inventory.Inventory) {
	if len(inv.Findings) > 0 {
		d.heading("Findings")
		var rows [][]string
		for _, f := range inv.Findings {
			rows = append(rows, []string{f.Node, f.Check, f.Message, f.Fix})
		}
		d.table([]string{"node", "check", "finding", "fix"}, rows)
	}
	if len(inv.Notes) > 0 {
		d.heading("Notes")
		for _, n := range inv.Notes {
			d.item(n)
		}
	}
}

func modelCell(n inventory.Node) string {
	if n.GPUModel == "" {
		return "unknown"
	}
	return n.GPUModel
}

// gpusCell is the advertised GPUs, with the hardware's count when they
// differ: "7 of 8".
func gpusCell(n inventory.Node) string {
	if n.ExpectedGPUs != nil && *n.ExpectedGPUs != n.GPUs && n.MIG.Strategy == "none" {
		return fmt.Sprintf("%d of %d", n.GPUs, *n.ExpectedGPUs)
	}
	return strconv.Itoa(n.GPUs)
}

// sharingCell is the node's sharing with its replicas: "time-slicing ×4".
func sharingCell(n inventory.Node) string {
	if n.TimeSliceReplicas > 0 {
		return fmt.Sprintf("%s ×%d", n.Sharing, n.TimeSliceReplicas)
	}
	return n.Sharing
}

// layoutRun is a run of consecutive GPUs of one node with the same layout.
type layoutRun struct {
	gpus, desc   string
	units, inUse int
}

// layoutRuns groups a node's GPUs into runs: "0-6 whole", "7 mig
// 3g.40gb+4×1g.10gb".
func layoutRuns(n inventory.Node) []layoutRun {
	var runs []layoutRun
	for i := 0; i < len(n.Layout); {
		r := layoutRun{desc: gpuLayoutText(n.Layout[i])}
		j := i
		for ; j < len(n.Layout) && gpuLayoutText(n.Layout[j]) == r.desc; j++ {
			r.units += n.Layout[j].Units
			r.inUse += n.Layout[j].UnitsInUse
		}
		r.gpus = strconv.Itoa(n.Layout[i].Index)
		if j-1 > i {
			r.gpus += "-" + strconv.Itoa(n.Layout[j-1].Index)
		}
		runs = append(runs, r)
		i = j
	}
	return runs
}

// layoutCell is the node's GPUs in one cell: "0-6 whole, 7 mig 3g.40gb+4×1g.10gb".
func layoutCell(n inventory.Node) string {
	var parts []string
	for _, r := range layoutRuns(n) {
		parts = append(parts, r.gpus+" "+r.desc)
	}
	return strings.Join(parts, ", ")
}

// draLine names the DRA drivers and device classes present; empty when
// the source read no DRA API.
func draLine(d *inventory.DRA) string {
	if d == nil {
		return ""
	}
	drivers := make([]string, 0, len(d.Drivers))
	for _, dr := range d.Drivers {
		drivers = append(drivers, fmt.Sprintf("%s (%d devices)", dr.Name, dr.Devices))
	}
	classes := make([]string, 0, len(d.DeviceClasses))
	for _, c := range d.DeviceClasses {
		classes = append(classes, c.Name)
	}
	return fmt.Sprintf("DRA drivers: %s; device classes: %s; %d GPU ResourceClaims allocated, %d ResourceClaimTemplates.",
		orNone(drivers), orNone(classes), d.GPUClaims, d.ClaimTemplates)
}

func orNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

func gpuLayoutText(l inventory.GPULayout) string {
	if l.Admission != "" {
		a := l.Admission
		l.Admission = ""
		return gpuLayoutText(l) + " (" + a + ")"
	}
	if l.Mechanism == "dra" {
		// A DRA driver's device: the same layout, allocated by claims.
		l.Mechanism = ""
		return "dra " + gpuLayoutText(l)
	}
	switch l.Sharing {
	case "hami":
		return fmt.Sprintf("hami ×%d", l.Replicas)
	case "mig":
		return "mig " + countRuns(l.Profiles)
	case "time-slicing", "mps":
		return fmt.Sprintf("%s ×%d", l.Sharing, l.Replicas)
	}
	return "whole"
}

// countRuns writes a sorted list with repeats counted: "3g.40gb+4×1g.10gb".
func countRuns(items []string) string {
	var parts []string
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j] == items[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%d×%s", j-i, items[i]))
		} else {
			parts = append(parts, items[i])
		}
		i = j
	}
	return strings.Join(parts, "+")
}

// migCell is "none", or the strategy with the configuration asked for and
// its state: "mixed (custom-mixed: success)".
func migCell(m inventory.MIG) string {
	if m.Config == "" && m.State == "" {
		return m.Strategy
	}
	return fmt.Sprintf("%s (%s: %s)", m.Strategy, orUnknown(m.Config), orUnknown(m.State))
}

// componentsCell lists the operator components seen, with their status
// when it is not running: "dcgm-exporter, device-plugin, driver (disabled)".
func componentsCell(cs []inventory.Component) string {
	if len(cs) == 0 {
		return "none seen"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name
		if c.Status != inventory.Running {
			parts[i] += " (" + string(c.Status) + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// placeCell is where and what the node is: "aws us-east-1 p5.48xlarge".
func placeCell(n inventory.Node) string {
	var parts []string
	for _, s := range []string{n.Cloud, n.Region, n.InstanceType} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, " ")
}

// priceSourceCell says where the price came from, or why there is none.
func priceSourceCell(n inventory.Node) string {
	if n.Price == nil {
		return "unpriced: " + n.Unpriced
	}
	return n.Price.Source
}

// inventoryCSVHeader names the CSV's columns: one row per node; their
// order is stable.
var inventoryCSVHeader = []string{"node", "gpu_model", "vendor", "gpu_product", "gpus", "expected_gpus", "units", "units_in_use",
	"sharing", "time_slice_replicas", "layout", "mig_strategy", "mig_config", "mig_config_state", "device_plugin",
	"gpu_feature_discovery", "components", "cloud", "region", "instance_type", "capacity_type", "usd_per_hour",
	"gpu_usd_per_hour", "priced", "price_origin", "price_as_of", "price_source", "unpriced_reason", "findings"}

// writeInventoryCSV writes one row per node; an unpriced node's dollars
// are empty.
func writeInventoryCSV(w io.Writer, inv *inventory.Inventory) error {
	cw := csv.NewWriter(w)
	cw.Write(inventoryCSVHeader)
	for _, n := range inv.Nodes {
		expected, usd, gpuUSD, origin, asOf, source := "", "", "", "", "", ""
		if n.ExpectedGPUs != nil {
			expected = strconv.Itoa(*n.ExpectedGPUs)
		}
		if p := n.Price; p != nil {
			usd, gpuUSD = exact(p.NodeUSDPerHour), exact(p.GPUUSDPerHour)
			origin, asOf, source = p.Origin, p.AsOf, p.Source
		}
		cw.Write([]string{n.Name, n.GPUModel, n.Vendor, n.Product, strconv.Itoa(n.GPUs), expected, strconv.Itoa(n.Units),
			strconv.Itoa(n.UnitsInUse), n.Sharing, strconv.Itoa(n.TimeSliceReplicas), layoutCell(n), n.MIG.Strategy,
			n.MIG.Config, n.MIG.State, string(n.DevicePlugin.Status), string(n.FeatureDiscovery.Status),
			componentsCell(n.Components), n.Cloud, n.Region, n.InstanceType, n.CapacityType, usd, gpuUSD,
			strconv.FormatBool(n.Price != nil), origin, asOf, source, n.Unpriced, strconv.Itoa(n.Findings)})
	}
	cw.Flush()
	return cw.Error()
}
