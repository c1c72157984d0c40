package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios"
)

// TestSelfcheckFlatMemory: the check keeps nothing of a triple's first
// run but its digests until the second pass, so the heap it holds between
// the passes does not grow with the results of the runs. Each fake result
// carries 1 MB of latencies; holding the first runs' results (as the
// check once did) would keep 120 MB live at the start of the second pass.
func TestSelfcheckFlatMemory(t *testing.T) {
	const runs = 120
	var mu sync.Mutex
	calls := 0
	var live uint64
	injectRun(t, func(spec scenarios.Spec) (*scenarios.Result, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == runs+1 { // the second pass's first run: every first run is done
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			live = m.HeapAlloc
		}
		res, err := scenarios.Run(spec)
		if err == nil {
			res.Latencies = make([]time.Duration, 1<<17)
		}
		return res, err
	})
	code, out, errOut := runCLI("selfcheck", "-runs", fmt.Sprint(runs), "-seed", "5", "-parallel", "1", "-max-events", "2000")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if live == 0 || live > 40<<20 {
		t.Errorf("%d MB live between the passes of %d triples, want at most 40 (1 MB a result held)", live>>20, runs)
	}
}

// TestSelfcheckNondeterministicRerun: when the first run's report is
// matched neither by the second nor by running the first again, the
// problem names the two trace hashes.
func TestSelfcheckNondeterministicRerun(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	injectRun(t, func(spec scenarios.Spec) (*scenarios.Result, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		res, err := scenarios.Run(spec)
		if err == nil {
			res.TraceHash = fmt.Sprintf("v2:%016x", n)
		}
		return res, err
	})
	code, out, _ := runCLI("selfcheck", "-runs", "2", "-seed", "5", "-parallel", "1")
	_, probs := checkOutput(t, out)
	if code != exitViolation || len(probs) != 2 {
		t.Fatalf("exit %d, want 1 and 2 problems:\n%s", code, out)
	}
	for _, p := range probs {
		if !strings.Contains(p, "nondeterministic: trace-hash v2:") || !strings.Contains(p, ", then v2:") {
			t.Errorf("problem %q, want the two trace hashes", p)
		}
	}
}

// TestSelfcheckMemoryLimit: the runs of a check go under the soft memory
// limit, and the limit before the check is back after it.
func TestSelfcheckMemoryLimit(t *testing.T) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		t.Skip("GOMEMLIMIT chooses the limit")
	}
	before := debug.SetMemoryLimit(-1)
	var during int64
	injectRun(t, func(spec scenarios.Spec) (*scenarios.Result, error) {
		during = debug.SetMemoryLimit(-1)
		return scenarios.Run(spec)
	})
	if code, out, errOut := runCLI("selfcheck", "-runs", "2", "-seed", "5", "-parallel", "1"); code != exitOK {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if during != selfcheckMemoryLimit {
		t.Errorf("memory limit %d during the check, want %d", during, selfcheckMemoryLimit)
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Errorf("memory limit %d after the check, %d before", after, before)
	}
}
