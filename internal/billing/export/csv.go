package export

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/parquet"

	"github.com/gpuwise/gpuwise/internal/billing"
)

// Limits bound what reading one export may cost.
type Limits struct {
	// MaxRows is the most data rows one file may hold.
	MaxRows int64
	// MaxBytes is the most (decompressed) bytes one file may hold.
	MaxBytes int64
	// MaxRecordBytes is the longest line a CSV file may have.
	MaxRecordBytes int
}

// DefaultLimits are generous for a month of a large account's hourly
// export (tens of millions of rows) and refuse what is surely not one.
func DefaultLimits() Limits {
	return Limits{MaxRows: 200_000_000, MaxBytes: 64 << 30, MaxRecordBytes: 1 << 20}
}

// Read reads one export (FOCUS or CUR 2.0; CSV, gzip CSV or Parquet,
// told apart by content) into b. A bad value is a *RowError naming the
// row and the column; a bad file a *FileError.
//
// Parquet needs random access (its footer holds the schema): r must then
// be a file (io.ReaderAt and io.Seeker), as os.File and bytes.Reader are.
func Read(b *billing.Bill, name string, r io.Reader, lim Limits) error {
	var f billing.Format
	var n int64
	var err error
	if ra, ok := r.(parquet.ReaderAtSeeker); ok && isParquet(ra) {
		if size, serr := ra.Seek(0, io.SeekEnd); serr == nil && lim.MaxBytes > 0 && size > lim.MaxBytes {
			return &FileError{name, fmt.Errorf("%d bytes, more than %d (the size limit)", size, lim.MaxBytes)}
		}
		f, n, err = readParquet(name, ra, lim, b.Add)
	} else {
		br := bufio.NewReaderSize(r, 1<<16)
		if head, _ := br.Peek(4); bytes.Equal(head, parquetMagic) {
			return &FileError{name, errors.New("a Parquet file must be read from a file, not a stream")}
		}
		f, n, err = readCSV(name, br, lim, b.Add)
	}
	if err != nil {
		return err
	}
	b.AddFile(billing.FileInfo{Name: name, Format: f, Rows: n})
	return nil
}

// isParquet says whether ra starts with Parquet's magic bytes.
func isParquet(ra io.ReaderAt) bool {
	head := make([]byte, 4)
	k, _ := ra.ReadAt(head, 0)
	return k == 4 && bytes.Equal(head, parquetMagic)
}

// gzipMagic and parquetMagic open gzip and Parquet files.
var (
	gzipMagic    = []byte{0x1f, 0x8b}
	parquetMagic = []byte("PAR1")
)

// readCSV streams a FOCUS or CUR 2.0 CSV (gzip or plain) from r, calling
// fn for every data row.
func readCSV(name string, r io.Reader, lim Limits, fn func(*billing.Row) error) (billing.Format, int64, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if head, _ := br.Peek(2); bytes.Equal(head, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "", 0, &FileError{name, fmt.Errorf("reading gzip: %w", err)}
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	lr := &limitReader{r: br, maxBytes: lim.MaxBytes, maxLine: lim.MaxRecordBytes}
	cr := csv.NewReader(lr)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = false
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return "", 0, &FileError{name, errors.New("empty file: no header row")}
		}
		return "", 0, &FileError{name, fmt.Errorf("reading the header: %w", csvErr(err, lr))}
	}
	idx := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := idx[h]; dup && h != "" {
			return "", 0, &FileError{name, fmt.Errorf("column %s appears twice in the header", h)}
		}
		idx[h] = i
	}
	has := func(c string) bool { _, ok := idx[c]; return ok }
	sc, err := detect(has)
	if err != nil {
		return "", 0, &FileError{name, err}
	}
	if err := sc.missing(has); err != nil {
		return sc.format, 0, &FileError{name, err}
	}
	c := &csvCells{idx: idx}
	var n int64
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return sc.format, n, nil
		}
		n++
		if err != nil {
			return sc.format, n, &RowError{File: name, Row: n, Err: csvErr(err, lr)}
		}
		if n > lim.MaxRows {
			return sc.format, n, &FileError{name, fmt.Errorf("more than %d rows (the row limit)", lim.MaxRows)}
		}
		if len(rec) != len(header) {
			return sc.format, n, &RowError{File: name, Row: n, Err: fmt.Errorf("%d fields, the header has %d", len(rec), len(header))}
		}
		c.rec = rec
		var row billing.Row
		if col, err := sc.build(c, &row); err != nil {
			return sc.format, n, &RowError{File: name, Row: n, Column: col, Err: err}
		}
		if err := fn(&row); err != nil {
			return sc.format, n, &RowError{File: name, Row: n, Err: err}
		}
	}
}

func csvErr(err error, lr *limitReader) error {
	if lr.err != nil {
		return lr.err
	}
	return err
}

type csvCells struct {
	idx map[string]int
	rec []string
}

func (c *csvCells) get(col string) string {
	if i, ok := c.idx[col]; ok {
		return c.rec[i]
	}
	return ""
}

func (c *csvCells) has(col string) bool { _, ok := c.idx[col]; return ok }

// limitReader fails once the input passes maxBytes or a line passes
// maxLine bytes, so that a corrupt or hostile file cannot make the CSV
// reader buffer without bound.
type limitReader struct {
	r        io.Reader
	maxBytes int64
	maxLine  int
	read     int64
	line     int
	err      error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	if l.maxBytes > 0 && l.read > l.maxBytes {
		l.err = fmt.Errorf("more than %d bytes (the size limit)", l.maxBytes)
		return 0, l.err
	}
	if l.maxLine > 0 {
		for _, b := range p[:n] {
			if b == '\n' {
				l.line = 0
				continue
			}
			l.line++
			if l.line > l.maxLine {
				l.err = fmt.Errorf("a line longer than %d bytes (the record limit)", l.maxLine)
				return 0, l.err
			}
		}
	}
	return n, err
}
