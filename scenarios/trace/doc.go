// Package trace writes a run's timeline from its observation stream
// ([model.Obs]): one deterministic line per observation worth a line,
// hashed as it goes (the trace hash, scheme [sim.HashScheme]) and
// formatted only when the trace is kept or written.
//
// One table (kinds.go) has an entry per observation kind, in the order
// model/obs.go defines them. An entry holds the kind's two readings side
// by side: line appends its trace line, hash feeds the hash the fields
// that line shows, as fixed-width words (nodes by index, which the run's
// name table names), nothing formatted. A kind that never has a line (the
// counters and checkers read it) is marked noLine; a test fails for a kind
// model defines without an entry or the mark.
//
// A run's [Writer] is its World's first reader:
//
//	w := trace.New(names, nil) // or a finished run's writer, reused
//	w.Keep()                   // -trace: keep the lines too
//	// the world calls w.Observe(o) for every observation
//	hash, lines := w.HashString(), w.Lines()
//
// The package reads observations and nothing else: it imports model and
// sim only.
package trace
