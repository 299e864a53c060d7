package render

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// dropOrder is the cost grid's columns in the order a narrow terminal
// loses them: the split of a row's dollars goes before the dollars that
// matter most (allocated-but-idle, the total and $/month stay); the
// mechanism column goes early, a line of words in a table of numbers.
var dropOrder = []string{"unmeasured $", viaTitle, "CPU+mem $", "GPU-h unalloc", "unalloc $", "active $", "pods", "total $"}

// fitColumns drops columns of g in dropOrder until its lines fit width
// with keys of at least minKeyWidth; it returns the titles dropped.
func fitColumns(g grid, width int) (grid, []string) {
	var dropped []string
	for _, title := range dropOrder {
		if gridWidth(g) <= width {
			break
		}
		i := slices.IndexFunc(g.Cols, func(c column) bool { return c.Title == title })
		if i < 0 {
			continue
		}
		g = dropColumn(g, i)
		dropped = append(dropped, title)
	}
	return g, dropped
}

// gridWidth is the narrowest a grid's lines can be: indent, the shortest
// key and every column at its widest cell.
func gridWidth(g grid) int {
	w := len(indent) + minKeyWidth
	for j, c := range g.Cols {
		cw := utf8.RuneCountInString(strings.ToUpper(c.Title))
		for _, row := range g.lines() {
			cw = max(cw, utf8.RuneCountInString(row.Cells[j]))
		}
		w += cellPadding + cw
	}
	return w
}

// dropColumn removes column i from the grid and every row.
func dropColumn(g grid, i int) grid {
	g.Cols = slices.Delete(slices.Clone(g.Cols), i, i+1)
	rows := make([]gridRow, len(g.Rows))
	for k, r := range g.Rows {
		r.Cells = slices.Delete(slices.Clone(r.Cells), i, i+1)
		rows[k] = r
	}
	g.Rows = rows
	if g.Total != nil {
		t := *g.Total
		t.Cells = slices.Delete(slices.Clone(t.Cells), i, i+1)
		g.Total = &t
	}
	return g
}
