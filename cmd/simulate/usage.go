package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	fmt.Fprintf(stderr, "simulate: %v (run %s -h for usage)\n", err, prog)
	return exitUsage, false
}
