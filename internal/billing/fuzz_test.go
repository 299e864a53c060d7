package billing

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the readers (CSV, gzip CSV, Parquet
// by content): they may refuse, never panic, and a file they accept
// inspects and binds.
func FuzzRead(f *testing.F) {
	f.Add([]byte(fixture))
	f.Add([]byte(curFixture))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(fixture))
	zw.Close()
	f.Add(gz.Bytes())
	f.Add([]byte("PAR1garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := DefaultLimits()
		lim.MaxBytes, lim.MaxRows = 1<<20, 10000
		b := NewBill()
		if err := b.Read("fuzz", bytes.NewReader(data), lim); err != nil {
			return
		}
		b.Inspect(nil)
		b.Bind(t0, at(3), fixtureNodes()).Reconcile(nil, nil, nil)
	})
}
