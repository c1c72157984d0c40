package main

import (
	"math"
	"os"
	"runtime/debug"

	"github.com/idemsim/idemsim/internal/sweep"
)

// tuneExploreGC runs a search under the sweep's collector target
// (internal/sweep/gc.go: the heap may grow to five times the live heap
// between collections; a search, like a sweep, holds little live while
// its runs allocate fast) with a soft memory limit of
// exploreMemoryLimit(bound), so that a search near its -explore-memory
// bound takes no more memory than at Go's default target (about twice
// the live heap: docs/explore.md, Memory). It changes nothing when bound
// is 0 (no bound) or when the GOGC or GOMEMLIMIT environment variable
// chooses. It returns the function that restores both settings. The
// collector changes when memory is collected, never what a run computes.
func tuneExploreGC(bound int64) (restore func()) {
	_, gogc := os.LookupEnv("GOGC")
	_, limit := os.LookupEnv("GOMEMLIMIT")
	if bound <= 0 || gogc || limit {
		return func() {}
	}
	old := debug.SetMemoryLimit(exploreMemoryLimit(bound))
	restoreGC := sweep.TuneGC()
	return func() {
		restoreGC()
		debug.SetMemoryLimit(old)
	}
}

// exploreMemoryLimit is the soft memory limit of a search bounded to
// bound bytes: twice the bound and 256 MiB for what the bound does not
// count (the runs under way, the hash caches), in bytes; no limit for a
// bound too large to double.
func exploreMemoryLimit(bound int64) int64 {
	if bound > (math.MaxInt64-256<<20)/2 {
		return math.MaxInt64
	}
	return 2*bound + 256<<20
}
