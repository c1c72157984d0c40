package explore

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// faultSet is a schedule's faults as a set: its plan's lines, sorted.
// Two schedules with the same faults in another order have the same
// faultSet.
func faultSet(plan string) string {
	lines := strings.Split(strings.TrimSpace(plan), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// eachFaultSetOnce explores c without pruning and fails if two schedules
// hold the same set of faults (in any order); it returns the schedules
// run.
func eachFaultSetOnce(t *testing.T, c Config) int64 {
	t.Helper()
	c.Prune = false
	seen := map[string]bool{}
	dup := 0
	c.onSchedule = func(plan string) {
		k := faultSet(plan)
		if seen[k] {
			if dup < 3 {
				t.Errorf("fault set explored twice:\n%s", plan)
			}
			dup++
		}
		seen[k] = true
	}
	r := explore(t, c)
	if int64(len(seen)) != r.Schedules {
		t.Errorf("%d schedules handed out, %d run", len(seen), r.Schedules)
	}
	if dup > 0 {
		t.Errorf("%d of %d schedules repeat a fault set", dup, r.Schedules)
	}
	return r.Schedules
}

// TestEachFaultSetOnce: the search enumerates fault sets, not
// orderings: without pruning no two schedules hold the same faults in
// another order (docs/explore.md, "Equivalent schedules"): a sleep set or a
// canonical order of simultaneous faults would have nothing to skip.
// In datagram mode this needs Config.Reduce: a response to a duplicated
// request repeats its number.
func TestEachFaultSetOnce(t *testing.T) {
	cases := []struct {
		name, scenario string
		k              int
		budget         int64
		sets           []string
	}{
		{"ackloss-K2", "ackloss", 2, 0, []string{"records=3"}},
		{"reorder-K2", "reorder", 2, 0, []string{"records=3"}},
		{"zombie-K2-budget", "zombie", 2, 300, []string{"records=3"}},
		{"reorder-datagram-K2", "reorder", 2, 0, []string{"records=3", "net.mode=datagram"}},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := cfgFor(t, c.scenario, c.k, c.sets...)
			cfg.All, cfg.Budget = true, c.budget
			n := eachFaultSetOnce(t, cfg)
			t.Logf("%d schedules, each fault set once", n)
		})
	}
}

// TestReduceKeepsVerdict: skipping repeated message numbers keeps the
// verdicts and the shortest counterexamples (faults, events, plan) of
// the search without it, and runs fewer schedules; without it the
// search runs some fault sets twice. In tcp mode no number repeats and
// the searches are the same.
func TestReduceKeepsVerdict(t *testing.T) {
	cases := []struct {
		name, scenario string
		k              int
		sets           []string
	}{
		{"reorder-datagram", "reorder", 2, []string{"records=3", "net.mode=datagram"}},
		{"ackloss-tcp", "ackloss", 2, []string{"records=2"}},
	}
	if *long {
		// With -long, also ackloss, 3 records, in datagram mode.
		cases = append(cases, struct {
			name, scenario string
			k              int
			sets           []string
		}{"ackloss-datagram", "ackloss", 2, []string{"records=3", "net.mode=datagram"}})
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on := cfgFor(t, c.scenario, c.k, c.sets...)
			on.All = true
			off := on
			off.Reduce = false
			a, b := explore(t, on), explore(t, off)
			if a.Verdict != b.Verdict || !slices.Equal(a.Invariants, b.Invariants) {
				t.Errorf("verdict %s / %s\n%s\n%s", a.Verdict, b.Verdict, a.Statement, b.Statement)
			}
			if len(a.Counterexamples) != len(b.Counterexamples) {
				t.Fatalf("counterexamples: %d / %d", len(a.Counterexamples), len(b.Counterexamples))
			}
			for i := range a.Counterexamples {
				x, y := a.Counterexamples[i], b.Counterexamples[i]
				if x.Invariant != y.Invariant || x.Faults != y.Faults || x.Events != y.Events || x.Plan != y.Plan {
					t.Errorf("counterexample %d: %s %d faults %d events\n%s / %s %d faults %d events\n%s", i,
						x.Invariant, x.Faults, x.Events, x.Plan, y.Invariant, y.Faults, y.Events, y.Plan)
				}
			}
			tcp := !slices.Contains(c.sets, "net.mode=datagram")
			if b.Skipped != 0 || tcp != (a.Skipped == 0) || a.Schedules > b.Schedules || tcp != (a.Schedules == b.Schedules) {
				t.Errorf("schedules %d (%d skipped) with the reduction, %d (%d skipped) without", a.Schedules, a.Skipped, b.Schedules, b.Skipped)
			}
			t.Logf("%d schedules with the reduction (%d skipped), %d without: factor %.4f", a.Schedules, a.Skipped, b.Schedules, float64(b.Schedules)/float64(a.Schedules))
		})
	}
}

// TestLongEachFaultSetOnce is TestEachFaultSetOnce on ackloss, 3
// records, K=3 (429,083 schedules), and on zombie with the full menu,
// K=1 (-long).
func TestLongEachFaultSetOnce(t *testing.T) {
	longOnly(t)
	cfg := cfgFor(t, "ackloss", 3, "records=3")
	cfg.All = true
	t.Logf("ackloss K=3: %d schedules, each fault set once", eachFaultSetOnce(t, cfg))
	cfg = cfgFor(t, "zombie", 1, "records=3")
	cfg.All, cfg.FullMenu = true, true
	t.Logf("zombie K=1 full menu: %d schedules, each fault set once", eachFaultSetOnce(t, cfg))
}

// hashProbe records the state hash at every time choice point after
// from.
type hashProbe struct {
	from   sim.Time
	hashes []world.StateHash
}

func (h *hashProbe) Choice(cp *world.ChoicePoint) {
	if cp.Kind == world.ChoiceTime && cp.At > h.from {
		h.hashes = append(h.hashes, cp.StateHash())
	}
}

// sameInstant runs two plan actions at the same instant in both orders
// and returns, per order, the state hashes at the later time choice
// points, the events and the violations.
func sameInstant(t *testing.T, scenario string, at sim.Time, a, b string) (h [2][]world.StateHash, ev [2]int64, viol [2]string) {
	t.Helper()
	s, err := prepare(cfgFor(t, scenario, 1, "records=3"))
	if err != nil {
		t.Fatal(err)
	}
	for o, pair := range [2][2]string{{a, b}, {b, a}} {
		spec := s.base
		spec.PlanText = atTime(at) + " " + pair[0] + "\n" + atTime(at) + " " + pair[1] + "\n" + s.endText
		p := &hashProbe{from: at}
		spec.Probe = p
		r, err := scenarios.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		h[o], ev[o], viol[o] = p.hashes, r.Events, fmt.Sprint(r.Violations)
	}
	return h, ev, viol
}

// TestSameInstantOrder: two plan actions at the same instant on
// different nodes do not commute in general, so the order of
// simultaneous faults is not a free choice a reduction could fix
// (docs/explore.md, "Equivalent schedules"). Some pairs do commute (the
// state hash is the same at every later choice point); two pauses of the
// same length schedule their resumes at one later instant in the order
// of the pauses; crashing a producer and the coordinator it talks to
// takes a different number of events in either order.
func TestSameInstantOrder(t *testing.T) {
	const at = sim.Time(500_000) // ackloss's and zombie's first time choice point
	for _, c := range []struct{ a, b string }{{"crash b1", "drift c1 +200ppm"}, {"pause p1 10s", "crash b1"}} {
		h, ev, viol := sameInstant(t, "ackloss", at, c.a, c.b)
		if !slices.Equal(h[0], h[1]) || len(h[0]) == 0 || ev[0] != ev[1] || viol[0] != viol[1] {
			t.Errorf("ackloss %q and %q at 500µs: the orders differ (%d/%d hashes, %d/%d events)", c.a, c.b, len(h[0]), len(h[1]), ev[0], ev[1])
		}
	}
	h, ev, _ := sameInstant(t, "ackloss", at, "pause b1 10s", "pause c1 10s")
	if len(h[0]) == 0 || len(h[1]) == 0 || h[0][0] == h[1][0] {
		t.Errorf("ackloss: two pauses at 500µs give the same state in either order (%d events); the docs say they do not", ev[0])
	}
	// 1.5ms: zombie's producer reaches c1 after its FindCoordinator
	// round trip with b1.
	_, ev, _ = sameInstant(t, "zombie", 3*at, "crash p1", "crash c1")
	if ev[0] == ev[1] {
		t.Errorf("zombie: crash p1 and crash c1 at 1.5ms take %d events in either order; the docs say they do not", ev[0])
	}
	t.Logf("zombie: crash p1 then crash c1 at 1.5ms: %d events; crash c1 then crash p1: %d", ev[0], ev[1])
}

// TestLongSameInstantPairs runs, at the first six time choice points of
// ackloss and zombie (3 records), every pair of crash, pause, stall and
// drift on two different nodes up, in both orders, and counts the pairs
// whose state hashes agree at every later time choice point, whose
// events agree and whose violations agree (docs/explore.md, "Equivalent
// schedules"; -long).
func TestLongSameInstantPairs(t *testing.T) {
	longOnly(t)
	for _, sc := range []string{"ackloss", "zombie"} {
		s, err := prepare(cfgFor(t, sc, 1, "records=3"))
		if err != nil {
			t.Fatal(err)
		}
		spec := s.base
		spec.PlanText = s.endText
		lp := &listProbe{}
		spec.Probe = lp
		if _, err := scenarios.Run(spec); err != nil {
			t.Fatal(err)
		}
		var pairs, sameState, sameEvents, sameViol int
		for i := 0; i < len(lp.at) && i < 6; i++ {
			up := lp.up[i]
			acts := func(n string) []string {
				return []string{"crash " + n, "pause " + n + " 10s", "stall " + n + " 10s", "drift " + n + " +200ppm"}
			}
			for a := range up {
				for b := a + 1; b < len(up); b++ {
					for _, x := range acts(up[a]) {
						for _, y := range acts(up[b]) {
							if !valid(t, s, lp.at[i], x, y) {
								continue // a stall of a producer
							}
							h, ev, viol := sameInstant(t, sc, lp.at[i], x, y)
							pairs++
							if slices.Equal(h[0], h[1]) {
								sameState++
							} else {
								t.Logf("%s %s: %s | %s: states differ", sc, atTime(lp.at[i]), x, y)
							}
							if ev[0] == ev[1] {
								sameEvents++
							}
							if viol[0] == viol[1] {
								sameViol++
							}
						}
					}
				}
			}
		}
		t.Logf("%s: %d pairs, same state at every later time %d, same events %d, same violations %d", sc, pairs, sameState, sameEvents, sameViol)
	}
}

// listProbe lists the time choice points and the nodes up at each.
type listProbe struct {
	at []sim.Time
	up [][]string
}

func (p *listProbe) Choice(cp *world.ChoicePoint) {
	if cp.Kind == world.ChoiceTime {
		p.at = append(p.at, cp.At)
		p.up = append(p.up, slices.Clone(cp.Up))
	}
}

// valid reports whether the plan of x then y at at runs.
func valid(t *testing.T, s *setup, at sim.Time, x, y string) bool {
	spec := s.base
	spec.PlanText = atTime(at) + " " + x + "\n" + atTime(at) + " " + y + "\n" + s.endText
	spec.MaxEvents = 1
	_, err := scenarios.Run(spec)
	return err == nil || !strings.Contains(err.Error(), "plan")
}
