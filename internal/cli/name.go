package cli

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultName is the command's name when nothing else says.
const defaultName = "gpuwise"

// ProgramName is the name help, usage lines and errors give the command,
// from the path it was invoked by (argv[0]): kubectl runs a plugin
// installed as kubectl-gpuwise for `kubectl gpuwise …`, so that binary
// calls itself "kubectl gpuwise"; any other binary its file name
// ("gpuwise", or whatever it was renamed to).
func ProgramName(argv0 string) string {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if base == "" || base == "." || base == string(filepath.Separator) {
		return defaultName
	}
	if plugin, ok := strings.CutPrefix(base, "kubectl-"); ok && plugin != "" {
		// kubectl maps dashes in a plugin's file name to spaces and
		// underscores to dashes: kubectl-foo_bar is `kubectl foo-bar`.
		return "kubectl " + strings.ReplaceAll(strings.ReplaceAll(plugin, "-", " "), "_", "-")
	}
	return base
}

// rename makes the command tree call itself name: the root's display
// name (cobra then writes it in every usage line and command path) and
// every "gpuwise <command>" in help text and flag descriptions.
func rename(root *cobra.Command, name string) {
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = name
	if name == defaultName {
		return
	}
	var pairs []string
	for _, c := range root.Commands() {
		pairs = append(pairs, defaultName+" "+c.Name(), name+" "+c.Name())
	}
	renameHelp(root, strings.NewReplacer(pairs...))
}

func renameHelp(c *cobra.Command, r *strings.Replacer) {
	c.Short, c.Long, c.Example = r.Replace(c.Short), r.Replace(c.Long), r.Replace(c.Example)
	for _, fs := range []interface{ VisitAll(func(*pflag.Flag)) }{c.Flags(), c.PersistentFlags()} {
		fs.VisitAll(func(f *pflag.Flag) { f.Usage = r.Replace(f.Usage) })
	}
	for _, sub := range c.Commands() {
		renameHelp(sub, r)
	}
}
