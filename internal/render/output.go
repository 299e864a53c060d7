package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// writers are one command's writer per format; a format it lacks is
// refused with the same message ParseFormat gives.
type writers map[Format]func(io.Writer) error

// write renders what in format f: Wide is Table uncut, and Table is cut to
// o.Width when it is set. Every command renders through here.
func write(w io.Writer, what string, f Format, o Options, ws writers) error {
	key := f
	if _, own := ws[Wide]; f == Wide && !own {
		key = Table
	}
	fn, ok := ws[key]
	if !ok {
		set := []Format{}
		for _, g := range AuditFormats {
			if _, ok := ws[g]; ok || (g == Wide && ws[Table] != nil) {
				set = append(set, g)
			}
		}
		_, err := ParseFormat(string(f), set)
		return fmt.Errorf("rendering %s: %w", what, err)
	}
	if f != Table || o.Width <= 0 {
		// Wide and piped tables are never cut.
		return wrap(what, f, fn(w))
	}
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		return wrap(what, f, err)
	}
	_, err := w.Write(fit(b.Bytes(), o.Width))
	return wrap(what, f, err)
}

func wrap(what string, f Format, err error) error {
	if err != nil {
		return fmt.Errorf("rendering %s %s: %w", f, what, err)
	}
	return nil
}

// encodeJSON writes v indented, as every command's JSON is.
func encodeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// encodeYAML writes v as YAML with its JSON field names.
func encodeYAML(w io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

const ellipsis = "…"

// fit makes every line fit width (ANSI colour codes take no width): a line
// whose last column (the text after its last run of two or more spaces,
// else after its indent) starts early enough is wrapped at spaces under
// that column, so nothing is lost; other lines, and coloured ones, are cut
// to width runes ending in "…", and the output says how many were.
func fit(text []byte, width int) []byte {
	var b strings.Builder
	cut := 0
	for _, l := range strings.SplitAfter(string(text), "\n") {
		body, nl := strings.CutSuffix(l, "\n")
		if visibleWidth(body) > width {
			var wasCut bool
			body, wasCut = fitLine(body, width)
			if wasCut {
				cut++
			}
		}
		b.WriteString(body)
		if nl {
			b.WriteByte('\n')
		}
	}
	if cut > 0 {
		fmt.Fprintf(&b, "(%d line(s) cut to the %d-column terminal; -o wide shows everything)\n", cut, width)
	}
	return []byte(b.String())
}

// fitLine wraps s under its last column, or cuts it when it is coloured or
// that column starts past two thirds of the width.
func fitLine(s string, width int) (string, bool) {
	col := lastColumn(s)
	lead := utf8.RuneCountInString(s[:col])
	if strings.ContainsRune(s, '\x1b') || col >= len(s) || lead > width*2/3 {
		c, _ := cutLine(s, width)
		return c, true
	}
	pad := strings.Repeat(" ", lead)
	var out []string
	line, first := s[:col], true
	for _, word := range strings.Fields(s[col:]) {
		switch {
		case first:
			line, first = line+word, false
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			out = append(out, line)
			line = pad + word
		}
	}
	out = append(out, line)
	cut := false
	for i, l := range out {
		var c bool
		out[i], c = cutLine(l, width) // a single word wider than the column
		cut = cut || c
	}
	return strings.Join(out, "\n"), cut
}

// lastColumn is the byte offset where s's last column starts: after its
// last run of two or more spaces past the indent, else after the indent.
func lastColumn(s string) int {
	indent := len(s) - len(strings.TrimLeft(s, " "))
	i := strings.LastIndex(s[indent:], "  ")
	if i < 0 {
		for _, bullet := range []string{"- ", "! ", "• "} {
			if strings.HasPrefix(s[indent:], bullet) {
				return indent + len(bullet)
			}
		}
		return indent
	}
	j := indent + i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	return j
}

// cutLine cuts s to width visible runes, the last one "…"; ok says
// whether it had to.
func cutLine(s string, width int) (string, bool) {
	if visibleWidth(s) <= width || width < 2 {
		return s, false
	}
	var b strings.Builder
	n, colored := 0, false
	for i := 0; i < len(s); {
		if s[i] == '\x1b' {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			b.WriteString(s[i : i+j+1])
			colored, i = true, i+j+1
			continue
		}
		if n == width-1 {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		n, i = n+1, i+size
	}
	b.WriteString(ellipsis)
	if colored {
		b.WriteString(ansiReset)
	}
	return b.String(), true
}

// visibleWidth counts runes outside ANSI escape sequences.
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '\x1b' {
			if j := strings.IndexByte(s[i:], 'm'); j >= 0 {
				i += j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n, i = n+1, i+size
	}
	return n
}
