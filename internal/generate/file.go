package generate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// WriteStream writes files to w as one multi-document YAML stream: each file
// is a document starting with "---" and a "# file: PATH" comment. Files that
// are not YAML (the .sh command files) are written with every line commented
// out, so the stream stays parseable and the commands stay readable.
func WriteStream(w io.Writer, files []File) error {
	bw := bufio.NewWriter(w)
	for _, f := range files {
		fmt.Fprintf(bw, "---\n# file: %s\n", f.Path)
		data := f.Data
		if !isYAML(f.Path) {
			data = commentOut(data)
		}
		bw.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing generated files: %w", err)
	}
	return nil
}

// WriteDir writes each file under dir, creating directories as needed.
// Command files (.sh) are made executable. Paths must be relative and stay
// inside dir.
func WriteDir(dir string, files []File) error {
	for _, f := range files {
		clean := path.Clean(f.Path)
		if f.Path == "" || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return fmt.Errorf("writing %q: path must be relative and inside the output directory", f.Path)
		}
		dst := filepath.Join(dir, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(clean, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(dst, f.Data, mode); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	return nil
}

func isYAML(p string) bool {
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")
}

func commentOut(data []byte) []byte {
	var b bytes.Buffer
	for line := range strings.Lines(string(data)) {
		switch {
		case strings.HasPrefix(line, "#"):
			b.WriteString(line)
		case strings.TrimSpace(line) == "":
			b.WriteString("#\n")
		default:
			b.WriteString("# " + line)
		}
	}
	return b.Bytes()
}

// sortFiles orders files by path so every generator's output is stable.
func sortFiles(files []File) {
	slices.SortStableFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
}

// problems collects every input problem of one generator call, each naming
// its object, and returns them joined.
type problems struct{ errs []error }

func (p *problems) addf(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

func (p *problems) err() error { return errors.Join(p.errs...) }
