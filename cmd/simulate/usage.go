package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/idemsim/idemsim/scenarios/params"
)

// parseFlags parses args with fs. An error found while reading the flags
// prints one line, the error and where the usage is, and gives exitUsage;
// -h prints fs's whole usage and gives exitOK. ok is true when the flags
// parsed and the command should go on. prog names the command in the
// hint ("simulate", "simulate merge").
func parseFlags(fs *flag.FlagSet, args []string, prog string, stderr io.Writer) (code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	fs.Usage = usage
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		usage()
		return exitOK, false
	}
	hint := ""
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := params.Suggest(name, names); s != "" {
			hint = " (did you mean -" + s + "?)"
		}
	}
	fmt.Fprintf(stderr, "simulate: %v%s (run %s -h for usage)\n", err, hint, prog)
	return exitUsage, false
}
