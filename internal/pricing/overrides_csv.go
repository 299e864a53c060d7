package pricing

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CSV columns: match and value are required, the rest optional.
const (
	colMatch = "match"
	colValue = "value"
)

// csvNumberColumns map price columns to rule fields.
var csvNumberColumns = map[string]string{
	"node_usd_per_hour": fNodeUSD, "gpu_usd_per_hour": fGPUUSD, "cpu_usd_per_core_hour": fCPUUSD,
	"memory_usd_per_gib_hour": fMemUSD, "discount": fDiscount,
}

// csvMatchColumns map condition columns to rule fields.
var csvMatchColumns = map[string]string{"cloud": fCloud, "region": fRegion, "capacity_type": fCapacityType}

// csvMatchKinds are the values of the match column.
var csvMatchKinds = map[string]string{
	"instanceType": fInstanceType, "nodeLabel": fNodeLabel, "gpuModel": fGPUModel, "cloud": fCloud,
}

// csvRow is one record with its header and line.
type csvRow struct {
	line   int
	header []string
	cells  map[string]string
	probs  []fieldProblem
	column map[string]string // field -> the column it was read from
}

// parseCSV reads rules from a CSV file with a header row.
func parseCSV(file string, data []byte) ([]*rule, []string) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		return nil, []string{fmt.Sprintf("reading header: %v", csvErr(err))}
	}
	if probs := checkCSVHeader(header); len(probs) > 0 {
		return nil, probs
	}
	var rules []*rule
	var probs []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, append(probs, csvErr(err).Error())
		}
		line, _ := r.FieldPos(0)
		rl, p := csvRule(file, line, header, rec)
		rules, probs = append(rules, rl), append(probs, p...)
	}
	return rules, probs
}

func csvErr(err error) error {
	if errors.Is(err, io.EOF) {
		return errors.New("file is empty; want a header row")
	}
	return err
}

func checkCSVHeader(header []string) []string {
	var probs []string
	seen := map[string]bool{}
	for i, h := range header {
		_, num := csvNumberColumns[h]
		_, cond := csvMatchColumns[h]
		switch {
		case seen[h]:
			probs = append(probs, fmt.Sprintf("line 1: column %d: %q appears twice", i+1, h))
		case !num && !cond && h != colMatch && h != colValue:
			probs = append(probs, fmt.Sprintf("line 1: column %d: unknown column %q", i+1, h))
		}
		seen[h] = true
	}
	for _, h := range []string{colMatch, colValue} {
		if !seen[h] {
			probs = append(probs, fmt.Sprintf("line 1: missing column %q", h))
		}
	}
	return probs
}

// csvRule reads one record; problems carry the line and column.
func csvRule(file string, line int, header, rec []string) (*rule, []string) {
	r := &rule{origin: fmt.Sprintf("%s:%d", file, line)}
	if len(rec) != len(header) {
		return r, []string{fmt.Sprintf("line %d: has %d fields, the header has %d", line, len(rec), len(header))}
	}
	row := csvRow{line: line, header: header, cells: map[string]string{}, column: map[string]string{}}
	for i, h := range header {
		row.cells[h] = strings.TrimSpace(rec[i])
	}
	row.readMatch(r)
	row.readNumbers(r)
	return r, row.format(withValidation(r, row.probs))
}

func (row *csvRow) readMatch(r *rule) {
	fields := matchFields(&r.match)
	for _, col := range row.header {
		field, ok := csvMatchColumns[col]
		if v := row.cells[col]; ok && v != "" {
			*fields[strings.TrimPrefix(field, fMatch+".")] = v
			row.column[field] = col
		}
	}
	kind, value := row.cells[colMatch], row.cells[colValue]
	row.column[fMatch] = colMatch
	field, ok := csvMatchKinds[kind]
	switch {
	case kind == "":
		row.probs = append(row.probs, fieldProblem{fMatch, "must not be empty"})
	case !ok:
		row.probs = append(row.probs, fieldProblem{fMatch,
			fmt.Sprintf("unknown match kind %q (want instanceType, nodeLabel, gpuModel or cloud)", kind)})
	case row.column[field] != "":
		row.probs = append(row.probs, fieldProblem{field, "set by both the match and the cloud columns"})
	default:
		row.column[field] = colValue
		*fields[kind] = trimmed(field, value, &row.probs)
	}
}

func (row *csvRow) readNumbers(r *rule) {
	dst := priceFields(r)
	for _, col := range row.header {
		field, ok := csvNumberColumns[col]
		v := row.cells[col]
		if !ok || v == "" {
			continue
		}
		row.column[field] = col
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			row.probs = append(row.probs, fieldProblem{field, fmt.Sprintf("want a number (got %q)", v)})
			continue
		}
		if msg := numberSyntax(v); msg != "" { // ParseFloat reads "1_000" as 1000
			row.probs = append(row.probs, fieldProblem{field, msg})
			continue
		}
		*dst[field] = &f
	}
}

// format turns problems into "line N: column: message", in column order.
func (row *csvRow) format(probs []fieldProblem) []string {
	out := make([]string, 0, len(probs))
	for _, p := range probs {
		where := fmt.Sprintf("line %d", row.line)
		if p.field != "" {
			col := row.column[p.field]
			if col == "" {
				col = csvColumnFor(p.field)
			}
			where += ": " + col
		}
		out = append(out, where+": "+csvNames.Replace(p.msg))
	}
	return out
}

// csvNames rewrites the YAML field names in messages as CSV columns.
var csvNames = strings.NewReplacer(
	fNodeUSD, "node_usd_per_hour", fGPUUSD, "gpu_usd_per_hour", fCPUUSD, "cpu_usd_per_core_hour",
	fMemUSD, "memory_usd_per_gib_hour",
)

// csvColumnFor names the column of a field that was not read from one.
func csvColumnFor(field string) string {
	for col, f := range csvNumberColumns {
		if f == field {
			return col
		}
	}
	for col, f := range csvMatchColumns {
		if f == field {
			return col
		}
	}
	return colValue
}
