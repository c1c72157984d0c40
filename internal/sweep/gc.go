package sweep

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target a sweep command runs with
// (the GOGC setting: the heap may grow to 1+GCPercent/100 times the live
// heap before a collection). A sweep holds little live (about 1 MB per
// worker: one run's world at a time) and allocates fast, so at Go's
// default of 100 the collector starts a cycle every few megabytes, many
// times a second, and on two cores its cycles take the second core a
// serial sweep leaves idle: -parallel 2 loses a third of its speedup to
// it (docs/performance.md). At 400 the cycles are a fifth as frequent;
// the heap of a sweep of large runs can reach five times their live
// state.
const GCPercent = 400

// TuneGC sets the collector's target to GCPercent for a batch of runs,
// unless the GOGC environment variable chooses one, and returns the
// function that restores the previous target. It changes a process-wide
// setting: commands call it, libraries do not.
func TuneGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(GCPercent)
	return func() { debug.SetGCPercent(old) }
}
