package policy

import (
	"fmt"
	"regexp"
	"strings"
)

// globRegexp is an anchored RE2 pattern matching exactly the strings that
// one of the path.Match globs matches: * is any run of non-/ characters,
// ? one non-/ character, [...] a class, \ escapes. Globs are assumed
// valid (Settings.Validate). No glob matches nothing: "^(?!)" is not RE2,
// so the empty list is "^$" on a string that is never empty.
func globRegexp(globs []string) string {
	if len(globs) == 0 {
		return "^$"
	}
	alts := make([]string, len(globs))
	for i, g := range globs {
		alts[i] = globToRE(g)
	}
	return "^(?:" + strings.Join(alts, "|") + ")$"
}

func globToRE(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			}
		case '[':
			end := classEnd(g, i)
			b.WriteString(classToRE(g[i+1 : end]))
			i = end
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// classEnd is the index of the ] closing the class opened at g[open]
// (path.Match allows no unescaped ] inside a class).
func classEnd(g string, open int) int {
	for i := open + 1; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return len(g) - 1
}

// classToRE converts the inside of a path.Match class: members and lo-hi
// ranges, \ escaping. Each character is written as \x{..} so none is
// special to RE2.
func classToRE(body string) string {
	var b strings.Builder
	b.WriteByte('[')
	i := 0
	if strings.HasPrefix(body, "^") {
		b.WriteByte('^')
		i = 1
	}
	for i < len(body) {
		var lo byte
		lo, i = classChar(body, i)
		fmt.Fprintf(&b, `\x{%x}`, lo)
		if i < len(body) && body[i] == '-' {
			var hi byte
			hi, i = classChar(body, i+1)
			fmt.Fprintf(&b, `-\x{%x}`, hi)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// classChar reads one (possibly escaped) class character at i.
func classChar(body string, i int) (byte, int) {
	if body[i] == '\\' && i+1 < len(body) {
		return body[i+1], i + 2
	}
	return body[i], i + 1
}
