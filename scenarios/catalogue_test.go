package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

// safety are the invariants Kafka guarantees with idempotence on.
var safety = []string{"INV-DUP", "INV-LOSS", "INV-ORDER", "INV-SEQ", "INV-DEDUP", "INV-FENCE", "INV-STATE", "INV-EPOCH", "INV-TXN"}

func seedsFor(t *testing.T) uint64 {
	if testing.Short() {
		return 40
	}
	return 200
}

// fired returns the invariants violated in r.
func fired(r *Result) map[string]bool {
	m := map[string]bool{}
	for _, v := range r.Violations {
		m[v.Invariant] = true
	}
	return m
}

// TestCatalogueSeeds checks every scenario across 200 seeds, as its
// -describe text promises:
//   - with idempotence on (no -bug), no safety invariant is violated except
//     those the scenario lists as failing in real Kafka too (OnShows), and
//     those do fire;
//   - with idempotence off, the failure the scenario exists to show fires;
//   - in every run it makes, the simulator's accounting (SIM-OUTCOME)
//     holds: TestOutcomeIdentityCatalogue leaves these runs, those
//     without noise faults, to this test.
func TestCatalogueSeeds(t *testing.T) {
	for _, sc := range All() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			n := seedsFor(t)
			onSeen, offSeen := map[string]bool{}, map[string]bool{}
			for seed := uint64(1); seed <= n; seed++ {
				on := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(true)})
				outcomeHolds(t, on)
				for inv := range fired(on) {
					onSeen[inv] = true
					if slices.Contains(safety, inv) && !slices.Contains(sc.OnShows, inv) {
						t.Fatalf("idempotence on, seed %d: %s violated (%v)\nreproduce: %s", seed, inv, on.Violations, on.Reproduce)
					}
				}
				if len(sc.OffShows) > 0 {
					off := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(false)})
					outcomeHolds(t, off)
					for inv := range fired(off) {
						offSeen[inv] = true
					}
				}
			}
			for _, inv := range sc.OnShows {
				if !onSeen[inv] {
					t.Errorf("idempotence on: %s never fired in %d seeds, though the scenario says real Kafka shows it", inv, n)
				}
			}
			if len(sc.OffShows) == 0 {
				if sc.OffNote == "" {
					t.Errorf("scenario shows nothing without idempotence and does not say why (OffNote)")
				}
				return
			}
			shown := false
			for _, inv := range sc.OffShows {
				shown = shown || offSeen[inv]
			}
			if !shown {
				t.Errorf("idempotence off: none of %v fired in %d seeds (saw %v)", sc.OffShows, n, offSeen)
			}
		})
	}
}

// TestBugs checks every -bug: the invariant it breaks fires within 200
// seeds of its scenario with the bug on, and never with it off.
func TestBugs(t *testing.T) {
	for _, bug := range params.Bugs() {
		t.Run(bug.ID, func(t *testing.T) {
			t.Parallel()
			sc, err := Lookup(bug.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(sc.Bugs, bug.ID) {
				t.Errorf("scenario %s does not list bug %s", sc.Name, bug.ID)
			}
			if bug.Source == "" || bug.Title == "" {
				t.Errorf("bug %s has no source or title", bug.ID)
			}
			n := seedsFor(t)
			hits := 0
			for seed := uint64(1); seed <= n; seed++ {
				with := mustRun(t, Spec{Scenario: sc, Seed: seed, Bugs: []string{bug.ID}, Sets: idem(true)})
				if fired(with)[bug.Breaks] {
					hits++
				}
				withoutSets := idem(true)
				if bug.FixedIn != "" {
					withoutSets = append(withoutSets, params.KV{Key: "kafka.version", Value: bug.FixedIn})
				}
				withoutSets = append(withoutSets, bug.Off...)
				without := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: withoutSets})
				if fired(without)[bug.Breaks] {
					t.Fatalf("seed %d without the bug: %s fired (%v)\nreproduce: %s", seed, bug.Breaks, without.Violations, without.Reproduce)
				}
				// The bug's own settings with its defect knobs (the
				// *.bug.* keys) off: the rest of the setup alone must
				// not break the invariant.
				if rest, ok := withoutDefect(bug); ok {
					r := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: append(idem(true), rest...)})
					if fired(r)[bug.Breaks] {
						t.Fatalf("seed %d with the bug's settings but its defect off: %s fired (%v)\nreproduce: %s", seed, bug.Breaks, r.Violations, r.Reproduce)
					}
				}
			}
			if hits == 0 {
				t.Fatalf("%s never fired in %d seeds with -bug %s", bug.Breaks, n, bug.ID)
			}
			t.Logf("-bug %s: %s fired in %d of %d seeds", bug.ID, bug.Breaks, hits, n)
		})
	}
}

// TestZombieStory pins the seeds' story: with idempotence v1 is fenced and
// writes nothing after the bump; without it, its late writes land.
func TestZombieStory(t *testing.T) {
	sc, _ := Lookup("zombie")
	for seed := uint64(1); seed <= 20; seed++ {
		on := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(true)})
		if on.ZombieWrite != 0 || on.Fenced == 0 || on.Duplicates != 0 {
			t.Fatalf("seed %d on: zombie_writes=%d fenced=%d duplicates=%d", seed, on.ZombieWrite, on.Fenced, on.Duplicates)
		}
		off := mustRun(t, Spec{Scenario: sc, Seed: seed, Sets: idem(false)})
		if off.ZombieWrite == 0 || off.Duplicates == 0 {
			t.Fatalf("seed %d off: zombie_writes=%d duplicates=%d", seed, off.ZombieWrite, off.Duplicates)
		}
	}
}

// TestWrapJavaStall pins the wrap scenario's story: at seed 130 the Java
// client's int arithmetic retries the batch past the wrap first, it stalls
// on OUT_OF_ORDER_SEQUENCE_NUMBER until delivery.timeout.ms, and records
// fail without any invariant failing; with the librdkafka policy's
// wrapping arithmetic nothing fails.
func TestWrapJavaStall(t *testing.T) {
	sc, _ := Lookup("wrap")
	java := mustRun(t, Spec{Scenario: sc, Seed: 130, Sets: idem(true)})
	if java.Failed == 0 || java.Errors["OUT_OF_ORDER_SEQUENCE_NUMBER"] == 0 || java.Errors["DELIVERY_TIMEOUT"] != java.Failed || len(java.Violations) != 0 {
		t.Errorf("java: failed=%d errors=%v violations=%v", java.Failed, java.Errors, java.Violations)
	}
	rdk := mustRun(t, Spec{Scenario: sc, Seed: 130, Sets: append(idem(true), params.KV{Key: "client.policy", Value: "librdkafka"})})
	if rdk.Failed != 0 || len(rdk.Violations) != 0 {
		t.Errorf("librdkafka: failed=%d violations=%v", rdk.Failed, rdk.Violations)
	}
}

func TestDescribeComplete(t *testing.T) {
	for _, sc := range All() {
		if sc.Summary == "" || sc.Story == "" || sc.ExpectOff == "" || sc.ExpectOn == "" {
			t.Errorf("%s: summary, story and expectations are required", sc.Name)
		}
		if len(sc.OnShows) > 0 && sc.OnNote == "" {
			t.Errorf("%s: fails with idempotence on but does not say why", sc.Name)
		}
		for _, p := range sc.Extra {
			if p.Doc == "" {
				t.Errorf("%s: parameter %s has no doc", sc.Name, p.Key)
			}
		}
		_ = fmt.Sprint(sc.Values().List())
	}
}

// withoutDefect returns bug's settings with its defect knobs (keys with
// ".bug.") turned off, and false when it has no such knob.
func withoutDefect(bug params.Bug) ([]params.KV, bool) {
	var out []params.KV
	found := false
	for _, kv := range bug.Sets {
		if strings.Contains(kv.Key, ".bug.") {
			found = true
			continue
		}
		out = append(out, kv)
	}
	return out, found
}
