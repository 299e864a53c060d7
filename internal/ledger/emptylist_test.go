package ledger

import (
	"reflect"
	"strings"
	"testing"
)

// TestListsAreNeverNull: every list of the ledger's JSON (a slice field
// without omitempty, at any depth) is [] when empty, never null, whatever
// levers run — the fixture with one lever at a time leaves most lists
// empty.
func TestListsAreNeverNull(t *testing.T) {
	t.Parallel()
	s := fixture(t)
	for _, lv := range append(LeverNames(), "") {
		o := DefaultOptions()
		if lv != "" {
			o.Levers = []string{lv}
		}
		l := build(t, s, o)
		nilLists(t, lv, "ledger", reflect.ValueOf(l).Elem())
	}
}

// nilLists reports the nil slices of exported, non-omitempty fields in v.
func nilLists(t *testing.T, lever, path string, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			nilLists(t, lever, path, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.Slice && fv.IsNil() && !strings.Contains(tag, "omitempty") {
				t.Errorf("levers %q: %s.%s is null in JSON, want []", lever, path, f.Name)
			}
			nilLists(t, lever, path+"."+f.Name, fv)
		}
	case reflect.Slice:
		for i := range v.Len() {
			nilLists(t, lever, path+"[]", v.Index(i))
		}
	}
}
