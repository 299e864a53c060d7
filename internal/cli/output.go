package cli

import (
	"github.com/spf13/pflag"

	"github.com/gpuwise/gpuwise/internal/render"
)

// outputFlag is every command's -o: registered with the command's formats
// and parsed by render.ParseFormat, the one place a format is checked.
type outputFlag struct {
	value string
	set   []render.Format
}

func (o *outputFlag) register(fs *pflag.FlagSet, set []render.Format) {
	o.set = set
	fs.StringVarP(&o.value, "output", "o", string(render.Table), "output format: "+render.FormatList(set)+
		" (table fits the terminal; wide shows everything)")
}

func (o *outputFlag) parse(p *flagProblems) render.Format {
	f, err := render.ParseFormat(o.value, o.set)
	p.add(err)
	return f
}

// renderOptions are the human formats' settings for these streams: colour
// and the terminal's width only when writing to a terminal.
func (s Streams) renderOptions() render.Options {
	o := render.Options{Color: s.OutIsTTY, Version: Version}
	if s.OutIsTTY {
		o.Width = s.Width
	}
	return o
}
