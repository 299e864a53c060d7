package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// lexer reads JSON values straight from a buffered stream. It knows just
// enough JSON for Prometheus API answers and allocates nothing per point:
// encoding/json's Decoder.Token boxes every token, which made it the
// bottleneck of ingest.
type lexer struct {
	r   *bufio.Reader
	buf []byte // scratch for the current string or number
	// maxString bounds a string (0: no bound); depth counts the values
	// skip is inside, so that a deep nest of unknown values cannot
	// exhaust the stack.
	maxString int
	depth     int
}

const (
	// maxNumber bounds a number literal: float64 needs fewer than 30
	// digits, and Prometheus writes at most 20.
	maxNumber = 64
	// maxDepth bounds nested arrays and objects in values that are skipped.
	maxDepth = 64
)

func newLexer(r io.Reader, maxString int) *lexer {
	return &lexer{r: bufio.NewReaderSize(r, 64<<10), maxString: maxString}
}

// peek returns the next non-space byte without consuming it.
func (l *lexer) peek() (byte, error) {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return 0, unexpected(err)
		}
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return c, l.r.UnreadByte()
		}
	}
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// delim consumes the byte want.
func (l *lexer) delim(want byte) error {
	c, err := l.peek()
	if err != nil {
		return err
	}
	if c != want {
		return fmt.Errorf("got %q, want %q", c, want)
	}
	l.r.ReadByte()
	return nil
}

// more reports whether a container has another element, consuming the
// comma between elements.
func (l *lexer) more() (bool, error) {
	c, err := l.peek()
	switch {
	case err != nil:
		return false, err
	case c == ']' || c == '}':
		return false, nil
	case c == ',':
		l.r.ReadByte()
	}
	return true, nil
}

// tooLong reports whether a string of n bytes (quotes and escapes
// included) is past the bound.
func (l *lexer) tooLong(n int) bool { return l.maxString > 0 && n > l.maxString+2 }

// stringBytes reads a string; the bytes are valid until the next read.
// A string without escapes is returned from the reader's buffer as is.
func (l *lexer) stringBytes() ([]byte, error) {
	if err := l.delim('"'); err != nil {
		return nil, err
	}
	chunk, err := l.r.ReadSlice('"')
	if err == nil && bytes.IndexByte(chunk, '\\') < 0 {
		if l.tooLong(len(chunk) + 1) {
			return nil, Limits{MaxLabelBytes: l.maxString}.labelError()
		}
		return chunk[:len(chunk)-1], nil
	}
	// Escapes, or longer than the buffer: gather the whole literal.
	l.buf = append(append(l.buf[:0], '"'), chunk...)
	for {
		switch {
		case l.tooLong(len(l.buf)):
			return nil, Limits{MaxLabelBytes: l.maxString}.labelError()
		case err == bufio.ErrBufferFull:
		case err != nil:
			return nil, unexpected(err)
		case !escapedQuote(l.buf):
			return l.unescape()
		}
		chunk, err = l.r.ReadSlice('"')
		l.buf = append(l.buf, chunk...)
	}
}

// unescape returns the string literal gathered in buf, quotes removed.
func (l *lexer) unescape() ([]byte, error) {
	if bytes.IndexByte(l.buf, '\\') < 0 {
		return l.buf[1 : len(l.buf)-1], nil
	}
	var s string
	if err := json.Unmarshal(l.buf, &s); err != nil {
		return nil, err
	}
	l.buf = append(l.buf[:0], s...)
	return l.buf, nil
}

// escapedQuote reports whether the quote that ends b is escaped: preceded
// by an odd number of backslashes.
func escapedQuote(b []byte) bool {
	n := 0
	for i := len(b) - 2; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func (l *lexer) string() (string, error) {
	b, err := l.stringBytes()
	return string(b), err
}

// number reads a JSON number, from the reader's buffer when it holds the
// whole number.
func (l *lexer) number() (float64, error) {
	if _, err := l.peek(); err != nil {
		return 0, err
	}
	if b, _ := l.r.Peek(l.r.Buffered()); len(b) > 0 {
		n := 0
		for n < len(b) && n <= maxNumber && isNumberByte(b[n]) {
			n++
		}
		if n < len(b) {
			return l.parseNumber(b[:n], n)
		}
	}
	l.buf = l.buf[:0]
	for len(l.buf) <= maxNumber {
		c, err := l.r.ReadByte()
		if err != nil {
			return 0, unexpected(err)
		}
		if !isNumberByte(c) {
			l.r.UnreadByte()
			break
		}
		l.buf = append(l.buf, c)
	}
	return l.parseNumber(l.buf, 0)
}

// parseNumber parses b, discarding skip bytes of the reader on success.
func (l *lexer) parseNumber(b []byte, skip int) (float64, error) {
	if len(b) > maxNumber {
		return 0, fmt.Errorf("number longer than %d bytes", maxNumber)
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("number %q: %w", b, err)
	}
	l.r.Discard(skip)
	return v, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'
}

// null consumes a literal null, reporting whether it was there.
func (l *lexer) null() (bool, error) {
	c, err := l.peek()
	if err != nil || c != 'n' {
		return false, err
	}
	var lit [4]byte
	if _, err := io.ReadFull(l.r, lit[:]); err != nil {
		return false, unexpected(err)
	}
	if string(lit[:]) != "null" {
		return false, fmt.Errorf("got %q, want null", lit)
	}
	return true, nil
}

// skip consumes one value of any shape.
func (l *lexer) skip() error {
	c, err := l.peek()
	if err != nil {
		return err
	}
	switch c {
	case '"':
		_, err := l.stringBytes()
		return err
	case '{', '[':
		return l.skipContainer(c)
	case 't', 'f', 'n':
		return l.skipLiteral()
	}
	_, err = l.number()
	return err
}

func (l *lexer) skipContainer(c byte) error {
	if l.depth++; l.depth > maxDepth {
		return fmt.Errorf("values nested deeper than %d", maxDepth)
	}
	defer func() { l.depth-- }()
	if c == '{' {
		return l.object(func(string) error { return l.skip() })
	}
	return l.array(l.skip)
}

func (l *lexer) skipLiteral() error {
	for n := 0; ; n++ {
		c, err := l.r.ReadByte()
		if err != nil {
			return unexpected(err)
		}
		if c < 'a' || c > 'z' {
			return l.r.UnreadByte()
		}
		if n > len("false") {
			return errors.New("unknown literal")
		}
	}
}

// object walks an object, calling f with the lexer at each value.
func (l *lexer) object(f func(key string) error) error {
	if err := l.delim('{'); err != nil {
		return err
	}
	for {
		ok, err := l.more()
		if err != nil {
			return err
		}
		if !ok {
			return l.delim('}')
		}
		key, err := l.string()
		if err != nil {
			return err
		}
		if err := l.delim(':'); err != nil {
			return err
		}
		if err := f(key); err != nil {
			return err
		}
	}
}

// array walks an array; null counts as an empty one.
func (l *lexer) array(f func() error) error {
	if isNull, err := l.null(); err != nil || isNull {
		return err
	}
	if err := l.delim('['); err != nil {
		return err
	}
	for {
		ok, err := l.more()
		if err != nil {
			return err
		}
		if !ok {
			return l.delim(']')
		}
		if err := f(); err != nil {
			return err
		}
	}
}
