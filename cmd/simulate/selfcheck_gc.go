package main

import (
	"os"
	"runtime/debug"
)

// selfcheckMemoryLimit is the soft memory limit (bytes) selfcheck runs
// under: its runs are small (records up to 200, 200,000 events at most),
// but under the sweep's collector target (the heap may grow to five
// times the live heap: internal/sweep/gc.go) the largest run drawn sets
// the peak, which therefore grew with -runs (the more triples, the
// larger the largest). Above this limit the collector runs as often as
// it must to stay under it, so the peak is the larger of the limit and
// the largest run's live heap. A limit changes when memory is collected,
// never what a run computes.
const selfcheckMemoryLimit = 256 << 20

// limitMemory sets the soft memory limit to selfcheckMemoryLimit, unless
// the GOMEMLIMIT environment variable chooses one, and returns the
// function that restores the previous limit.
func limitMemory() (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	old := debug.SetMemoryLimit(selfcheckMemoryLimit)
	return func() { debug.SetMemoryLimit(old) }
}
