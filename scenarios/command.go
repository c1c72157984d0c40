package scenarios

// DefaultCommand is how a printed command starts when the simulator runs
// from its source tree, as `go run ./cmd/simulate` builds and runs it.
const DefaultCommand = "go run ./cmd/simulate"

// command is how every printed command starts: reproduce lines, and a
// sweep's regenerate line ([Command]).
var command = DefaultCommand

// Command returns how every command the simulator prints starts:
// [DefaultCommand] unless [SetCommand] chose another.
func Command() string { return command }

// SetCommand sets how printed commands start, for an installed binary
// ("simulate", "./bin/simulate"). The command line's main calls it once,
// before anything runs; a run never does, so the choice reaches no trace,
// trace hash or state hash, only the printed commands. c is used as
// given: the caller quotes it for the shell.
func SetCommand(c string) { command = c }
