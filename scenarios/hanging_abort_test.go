package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// lsoFetch is one "r1 fetched p0 at N: lso L, hw H" trace line.
type lsoFetch struct {
	at      time.Duration
	lso, hw int64
}

// abortLineTime reads a trace line's "t=1.5s " prefix.
func abortLineTime(t *testing.T, line string) (time.Duration, string) {
	t.Helper()
	ts, rest, ok := strings.Cut(strings.TrimPrefix(line, "t="), " ")
	d, err := time.ParseDuration(ts)
	if !ok || err != nil {
		t.Fatalf("trace line %q has no time", line)
	}
	return d, rest
}

// TestHangingAbortMovesTheLSO: over a range of seeds of hanging-abort
// (kafka.version=3.5), partition 0's last stable offset is stuck below
// its high watermark for at least a second before the admin's abort, the
// abort's marker is appended (NONE), and after it the LSO reaches the
// high watermark past the stuck offset and the consumer's position
// passes it; LIVE-LSO and LIVE-READ hold. Without the abort
// (abort.at.ms=0) the same seeds fail LIVE-LSO: the abort is what moved
// the LSO.
func TestHangingAbortMovesTheLSO(t *testing.T) {
	sc, err := Lookup("hanging-abort")
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(200)
	if testing.Short() {
		n = 40
	}
	for seed := uint64(1); seed <= n; seed++ {
		r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(true), KeepTrace: true})
		ctx := fmt.Sprintf("seed %d (%s -trace)", seed, r.Reproduce)
		var abortAt time.Duration
		var fetches []lsoFetch
		passed := false
		for _, l := range r.Trace {
			at, rest := abortLineTime(t, l)
			var off, lso, hw, from, to, recs int64
			switch {
			case strings.HasPrefix(rest, "a1 abort p0 ") && strings.HasSuffix(rest, ": NONE"):
				abortAt = at
			case strings.HasPrefix(rest, "r1 fetched p0 "):
				if _, err := fmt.Sscanf(rest, "r1 fetched p0 at %d: lso %d, hw %d", &off, &lso, &hw); err != nil {
					t.Fatalf("%s: %q: %v", ctx, rest, err)
				}
				fetches = append(fetches, lsoFetch{at, lso, hw})
			case strings.HasPrefix(rest, "r1 polls p0: ") && abortAt > 0:
				if _, err := fmt.Sscanf(rest, "r1 polls p0: %d records, position %d -> %d", &recs, &from, &to); err != nil {
					t.Fatalf("%s: %q: %v", ctx, rest, err)
				}
				passed = passed || to > from
			}
		}
		if abortAt == 0 {
			t.Fatalf("%s: no \"a1 abort p0 ...: NONE\" line", ctx)
		}
		// The stuck LSO: the last one before the abort, below the high
		// watermark, and the same since it first was.
		var stuck int64 = -1
		var since time.Duration
		for _, f := range fetches {
			if f.at > abortAt {
				break
			}
			if f.lso < f.hw && f.lso != stuck {
				stuck, since = f.lso, f.at
			} else if f.lso >= f.hw {
				stuck = -1
			}
		}
		if stuck < 0 || abortAt-since < time.Second {
			t.Fatalf("%s: LSO not stuck below the high watermark for a second before the abort at %v (stuck %d since %v)", ctx, abortAt, stuck, since)
		}
		moved := false
		for _, f := range fetches {
			moved = moved || f.at > abortAt && f.lso > stuck && f.lso == f.hw
		}
		if !moved || !passed {
			t.Fatalf("%s: after the abort at %v the LSO moved past %d: %v; the consumer's position passed it: %v", ctx, abortAt, stuck, moved, passed)
		}
		if f := fired(r); f["LIVE-LSO"] || f["LIVE-READ"] || !f["INV-FENCE"] {
			t.Fatalf("%s: violations %v, want INV-FENCE only", ctx, r.Violations)
		}
		if seed <= 5 {
			without := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: append(idem(true), kv("abort.at.ms", "0")...)})
			if !fired(without)["LIVE-LSO"] {
				t.Fatalf("seed %d without the abort: LIVE-LSO holds (%v)", seed, without.Violations)
			}
		}
	}
}
