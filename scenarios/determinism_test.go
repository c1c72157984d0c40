package scenarios

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

func mustRun(t testing.TB, spec Spec) *Result {
	t.Helper()
	r, err := Run(spec)
	if err != nil {
		t.Fatalf("Run(%s seed %d): %v", spec.Scenario.Name, spec.Seed, err)
	}
	return r
}

func idem(on bool) []params.KV {
	if on {
		return []params.KV{{Key: "enable.idempotence", Value: "true"}}
	}
	return []params.KV{{Key: "enable.idempotence", Value: "false"}}
}

// TestSameSeedSameRun runs every scenario twice in one process: the trace
// hash and the JSON report must be identical (Go randomises map order on
// every range, so a map-order leak shows up here).
func TestSameSeedSameRun(t *testing.T) {
	for _, sc := range All() {
		for _, on := range []bool{false, true} {
			for _, seed := range []uint64{1, 42, 4} {
				a := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(on), KeepTrace: true})
				b := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(on), KeepTrace: true})
				ja, _ := json.Marshal(a)
				jb, _ := json.Marshal(b)
				if a.TraceHash != b.TraceHash || string(ja) != string(jb) {
					t.Fatalf("%s seed %d idempotence=%v: two runs differ\n%s\n%s", sc.Name, seed, on, ja, jb)
				}
				// Replication traffic (fetches, heartbeats) has no trace
				// lines of its own (world_repl.go); a run with a broker
				// down for long (coordfailover) is mostly heartbeats.
				div := int64(2)
				if slices.Contains(sc.Defaults, params.KV{Key: "brokers", Value: "3"}) {
					div = 16
				}
				if len(a.Trace) == 0 || int64(len(a.Trace)) < a.Events/div {
					t.Fatalf("%s: kept %d trace lines for %d events", sc.Name, len(a.Trace), a.Events)
				}
			}
		}
	}
}

// TestSeedsDiffer: different seeds give different runs.
func TestSeedsDiffer(t *testing.T) {
	for _, sc := range All() {
		seen := map[string]uint64{}
		for seed := uint64(0); seed < 20; seed++ {
			r := mustRun(t, Spec{Scenario: sc, Seed: seed})
			if prev, ok := seen[r.TraceHash]; ok {
				t.Fatalf("%s: seeds %d and %d give the same trace hash %s", sc.Name, prev, seed, r.TraceHash)
			}
			seen[r.TraceHash] = seed
		}
	}
}

// TestTraceTeeMatchesHash: the hash is the same with tracing on or off.
func TestTraceTeeMatchesHash(t *testing.T) {
	sc, _ := Lookup("ackloss")
	a := mustRun(t, Spec{Scenario: sc, Seed: 9})
	b := mustRun(t, Spec{Scenario: sc, Seed: 9, KeepTrace: true})
	if a.TraceHash != b.TraceHash {
		t.Fatalf("hash with tracing off %s, on %s", a.TraceHash, b.TraceHash)
	}
}
