package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Single fails when data holds a second YAML document with content: a
// strict decoder reads the first and ignores the rest without a word
// (issue 31), so price or policy rules after a "---" silently did nothing. A trailing
// "---" with nothing after it is harmless and accepted. Problems inside
// the first document are the main parser's to report.
func Single(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first yaml.Node
	if err := dec.Decode(&first); err != nil {
		return nil
	}
	var next yaml.Node
	err := dec.Decode(&next)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return fmt.Errorf("a second YAML document after the first (%v): the file holds one document; remove the \"---\" or move the rest to its own file", err)
	case len(next.Content) == 0 || next.Content[0].Tag == "!!null":
		return nil
	}
	return fmt.Errorf("line %d: a second YAML document after \"---\": the file holds one document, and the rest would be ignored; merge it into the first or remove it", next.Content[0].Line)
}
