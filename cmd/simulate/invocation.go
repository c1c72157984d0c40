package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/scenarios"
)

// commandFor returns how the commands this process prints start, from
// how it was invoked (arg0, os.Args[0]):
//   - a binary that `go run` built: `go run ./cmd/simulate`, which works
//     in a checkout. Go 1.24 and later run it from the build cache
//     (GOCACHE/xx/<64 hex digits>-d/simulate); earlier releases from a
//     temporary go-build directory (go-build.../b001/exe/simulate);
//   - a name without a slash, which the shell found on PATH: that name,
//     e.g. `simulate`;
//   - a path, e.g. `./simulate` or `/opt/idemsim/simulate`: that path as
//     given, quoted for the shell.
//
// The rule reads only arg0, so one invocation always prints the same
// commands; the choice reaches no trace hash (scenarios.SetCommand).
// cacheDir matches the last two folders of an executable in Go's build
// cache, where go run puts what it builds.
var cacheDir = regexp.MustCompile(`^[0-9a-f]{2}/[0-9a-f]{64}-d$`)

func commandFor(arg0 string) string {
	parts := strings.Split(filepath.ToSlash(arg0), "/")
	n := len(parts)
	switch {
	case arg0 == "":
		return scenarios.DefaultCommand
	case n >= 3 && cacheDir.MatchString(parts[n-3]+"/"+parts[n-2]):
		return scenarios.DefaultCommand
	case n >= 3 && parts[n-2] == "exe" && slices.ContainsFunc(parts[:n-2], func(p string) bool { return strings.HasPrefix(p, "go-build") }):
		return scenarios.DefaultCommand
	}
	return scenarios.ShellQuote(arg0)
}
