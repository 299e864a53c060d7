package pricing

import (
	"fmt"
	"regexp"

	yamlv3 "go.yaml.in/yaml/v3"
)

// plainNumber is a price as a person writes it: decimal digits with an
// optional sign, fraction and exponent. YAML 1.1 and strconv.ParseFloat
// also read "1_000" as 1000, "017" as 15 (octal) and "0x10" as 16; a price
// file that says one of those almost certainly means something else, so
// they are refused rather than guessed.
var plainNumber = regexp.MustCompile(`^[+-]?((0|[1-9][0-9]*)(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// numberSyntax is "" for a plain decimal number, else what is wrong.
func numberSyntax(text string) string {
	if plainNumber.MatchString(text) {
		return ""
	}
	return fmt.Sprintf("%q is not a plain decimal number; write it without underscores, leading zeros or a hex/octal prefix (e.g. 1000, 0.85)", text)
}

// yamlRawPrices maps each price field of a "prices:" file to its text as
// written ("prices[2].nodeUSDPerHour" → "1_000"), so that a number YAML
// decoded can be checked against what the file says. A file that does not
// parse gives an empty map; parseYAML reports why.
func yamlRawPrices(data []byte) map[string]string {
	raw := map[string]string{}
	var doc yamlv3.Node
	if yamlv3.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return raw
	}
	list := mappingValue(doc.Content[0], "prices")
	if list == nil || list.Kind != yamlv3.SequenceNode {
		return raw
	}
	for i, item := range list.Content {
		if item.Kind != yamlv3.MappingNode {
			continue
		}
		for k := 0; k+1 < len(item.Content); k += 2 {
			if v := item.Content[k+1]; v.Kind == yamlv3.ScalarNode {
				raw[fmt.Sprintf("prices[%d].%s", i, item.Content[k].Value)] = v.Value
			}
		}
	}
	return raw
}

// mappingValue is the value of key in a mapping node, or nil.
func mappingValue(m *yamlv3.Node, key string) *yamlv3.Node {
	if m.Kind != yamlv3.MappingNode {
		return nil
	}
	for k := 0; k+1 < len(m.Content); k += 2 {
		if m.Content[k].Value == key {
			return m.Content[k+1]
		}
	}
	return nil
}
