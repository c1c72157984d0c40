package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/idemsim/idemsim/internal/sweep"
)

// gcSettings reads the collector's target and soft memory limit.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// TestExploreGC: a bounded search runs under the sweep's collector
// target and a soft limit of twice its bound (and 256 MiB), both put
// back after it; an unbounded one changes neither.
func TestExploreGC(t *testing.T) {
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(v); set {
			t.Skip(v + " chooses")
		}
	}
	p0, l0 := gcSettings()
	restore := tuneExploreGC(1 << 30)
	p1, l1 := gcSettings()
	restore()
	if p1 != sweep.GCPercent || l1 != 2<<30+256<<20 {
		t.Errorf("during a 1 GiB search: GC %d%%, limit %d; want %d%%, %d", p1, l1, sweep.GCPercent, 2<<30+256<<20)
	}
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Errorf("after: GC %d%%, limit %d; before %d%%, %d", p, l, p0, l0)
	}
	restore = tuneExploreGC(0)
	if p, l := gcSettings(); p != p0 || l != l0 {
		t.Errorf("an unbounded search: GC %d%%, limit %d; want %d%%, %d", p, l, p0, l0)
	}
	restore()
	if got := exploreMemoryLimit(math.MaxInt64 / 2); got != math.MaxInt64 {
		t.Errorf("limit of a huge bound %d, want none", got)
	}
}
