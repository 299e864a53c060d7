package export

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/gpuwise/gpuwise/internal/billing"
)

// parquetBatch is the rows decoded at a time: memory is bounded by it
// and the projected columns, not by the row group.
const parquetBatch = 64 << 10

// readParquet streams a FOCUS or CUR 2.0 Parquet export (arrow-go: see
// docs/billing.md for why this library): only the schema's columns are
// decoded (projection), column chunks are read through a buffered
// section reader (BufferedStreamEnabled) rather than whole into memory,
// and record batches are released as the reader moves on. A corrupt file
// that makes the library panic is a *FileError.
func readParquet(name string, ra parquet.ReaderAtSeeker, lim Limits, fn func(*billing.Row) error) (f billing.Format, n int64, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &FileError{name, fmt.Errorf("reading Parquet: corrupt file (%v)", p)}
		}
	}()
	props := parquet.NewReaderProperties(memory.DefaultAllocator)
	props.BufferedStreamEnabled, props.BufferSize = true, 1<<20
	pf, err := file.NewParquetReader(ra, file.WithReadProps(props))
	if err != nil {
		return "", 0, &FileError{name, fmt.Errorf("reading Parquet: %w", err)}
	}
	defer pf.Close()
	if rows := pf.NumRows(); rows > lim.MaxRows {
		return "", 0, &FileError{name, fmt.Errorf("%d rows, more than %d (the row limit)", rows, lim.MaxRows)}
	}
	sch := pf.MetaData().Schema
	has := func(c string) bool { return sch.ColumnIndexByName(c) >= 0 }
	sc, err := detect(has)
	if err != nil {
		return "", 0, &FileError{name, err}
	}
	if err := sc.missing(has); err != nil {
		return sc.format, 0, &FileError{name, err}
	}
	var leaves []int
	for _, c := range sc.columns() {
		if i := sch.ColumnIndexByName(c); i >= 0 {
			leaves = append(leaves, i)
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: parquetBatch}, memory.DefaultAllocator)
	if err != nil {
		return sc.format, 0, &FileError{name, fmt.Errorf("reading Parquet: %w", err)}
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		return sc.format, 0, &FileError{name, fmt.Errorf("reading Parquet: %w", err)}
	}
	defer rr.Release()
	c := &arrowCells{idx: map[string]int{}}
	for rr.Next() {
		rec := rr.RecordBatch()
		c.bind(rec)
		for i := 0; i < int(rec.NumRows()); i++ {
			n++
			c.row = i
			var row billing.Row
			if col, err := sc.build(c, &row); err != nil {
				return sc.format, n, &RowError{File: name, Row: n, Column: col, Err: err}
			}
			if err := fn(&row); err != nil {
				return sc.format, n, &RowError{File: name, Row: n, Err: err}
			}
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return sc.format, n, &FileError{name, fmt.Errorf("reading Parquet after row %d: %w", n, err)}
	}
	return sc.format, n, nil
}

// arrowCells reads one row of a record batch by column name, as text
// (strings, numbers, timestamps) or, for numbers and timestamps, typed
// (typedCells), so that the common columns skip a round trip through
// text.
type arrowCells struct {
	idx  map[string]int
	cols []arrow.Array
	row  int
}

func (c *arrowCells) bind(rec arrow.RecordBatch) {
	clear(c.idx)
	c.cols = rec.Columns()
	for i, f := range rec.Schema().Fields() {
		c.idx[f.Name] = i
	}
}

func (c *arrowCells) has(col string) bool { _, ok := c.idx[col]; return ok }

func (c *arrowCells) array(col string) arrow.Array {
	i, ok := c.idx[col]
	if !ok || c.cols[i].IsNull(c.row) {
		return nil
	}
	return c.cols[i]
}

func (c *arrowCells) get(col string) string {
	a := c.array(col)
	if a == nil {
		return ""
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(c.row)
	case *array.LargeString:
		return a.Value(c.row)
	case *array.Binary:
		return string(a.Value(c.row))
	case *array.Dictionary:
		if s, ok := a.Dictionary().(*array.String); ok {
			return s.Value(a.GetValueIndex(c.row))
		}
	}
	if v, ok := c.float(col); ok {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if t, ok := c.time(col); ok {
		return t.Format(time.RFC3339Nano)
	}
	return a.ValueStr(c.row)
}

// float reads a numeric cell; ok is false for a null or a non-number.
func (c *arrowCells) float(col string) (float64, bool) {
	switch a := c.array(col).(type) {
	case *array.Float64:
		return a.Value(c.row), true
	case *array.Float32:
		return float64(a.Value(c.row)), true
	case *array.Int64:
		return float64(a.Value(c.row)), true
	case *array.Int32:
		return float64(a.Value(c.row)), true
	case *array.Decimal128:
		return a.Value(c.row).ToFloat64(a.DataType().(*arrow.Decimal128Type).Scale), true
	case *array.Decimal256:
		return a.Value(c.row).ToFloat64(a.DataType().(*arrow.Decimal256Type).Scale), true
	}
	return 0, false
}

// time reads a timestamp or date cell; ok is false otherwise.
func (c *arrowCells) time(col string) (time.Time, bool) {
	switch a := c.array(col).(type) {
	case *array.Timestamp:
		return a.Value(c.row).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC(), true
	case *array.Date32:
		return a.Value(c.row).ToTime().UTC(), true
	case *array.Date64:
		return a.Value(c.row).ToTime().UTC(), true
	}
	return time.Time{}, false
}
