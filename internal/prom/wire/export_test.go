package wire

// DecodeLabels is decodeLabels with a fresh cache that is kept across
// calls of the returned function, for tests.
func DecodeLabels() func(b []byte, keep func([]byte) bool) (Labels, error) {
	c := &labelCache{strs: interned{}}
	return func(b []byte, keep func([]byte) bool) (Labels, error) { return decodeLabels(b, c, keep, Limits{}) }
}
