package render

import (
	_ "embed"
	"html/template"
)

//go:embed ledger.html.tmpl
var ledgerSource string

// ledgerPage is parsed once; html/template escapes every value.
var ledgerPage = template.Must(template.New("ledger").Parse(ledgerSource))
