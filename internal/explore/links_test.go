package explore

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// linkCases are explorations of the replicated scenarios with their own
// per-link latencies (net.link.latency: failover's far followers,
// coordfailover's 40 ms coordinator links), with message faults only so
// that K=2 stays small.
var linkCases = []struct {
	name, scenario string
	sets           []string
}{
	{"failover", "failover", []string{"records=4", "fault.kinds=drop,partition"}},
	{"coordfailover", "coordfailover", []string{"records=4", "transaction.records=2", "fault.kinds=drop,partition"}},
}

// TestLinkLatencies: -explore accepts constant per-link latencies and runs
// each link at its own latency (the fault-free run differs from the one
// with the links cleared); it refuses a random link, naming it; with the
// links, pruning keeps the verdict and the shortest counterexamples, as
// TestPruneKeepsVerdict checks without them, and every schedule of up to
// two message faults keeps the invariants.
func TestLinkLatencies(t *testing.T) {
	cases := linkCases
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on := cfgFor(t, c.scenario, 2, c.sets...)
			on.All = true
			s, err := prepare(on)
			if err != nil {
				t.Fatalf("%s's links refused: %v", c.scenario, err)
			}
			if slices.ContainsFunc(s.fixed, func(kv params.KV) bool { return kv.Key == "net.link.latency" }) {
				t.Errorf("the explorer changed net.link.latency: %v", s.fixed)
			}
			cleared := cfgFor(t, c.scenario, 2, append(slices.Clone(c.sets), "net.link.latency=")...)
			sc, err := prepare(cleared)
			if err != nil {
				t.Fatal(err)
			}
			ra, err := scenarios.Run(faultFree(s))
			if err != nil {
				t.Fatal(err)
			}
			rb, err := scenarios.Run(faultFree(sc))
			if err != nil {
				t.Fatal(err)
			}
			if ra.TraceHash == rb.TraceHash {
				t.Errorf("the fault-free run is the same with and without the links (trace %s): their latencies are not in effect", ra.TraceHash)
			}

			off := on
			off.Prune = false
			x, y := explore(t, on), explore(t, off)
			if x.Verdict != "clean" || !x.Complete {
				t.Errorf("with pruning: %s", x.Statement)
			}
			if x.Verdict != y.Verdict || !slices.Equal(x.Invariants, y.Invariants) {
				t.Errorf("verdict %s / %s\n%s\n%s", x.Verdict, y.Verdict, x.Statement, y.Statement)
			}
			if len(x.Counterexamples) != len(y.Counterexamples) {
				t.Fatalf("counterexamples: %d / %d", len(x.Counterexamples), len(y.Counterexamples))
			}
			for i := range x.Counterexamples {
				p, q := x.Counterexamples[i], y.Counterexamples[i]
				if p.Invariant != q.Invariant || p.Faults != q.Faults || p.Events != q.Events || p.Plan != q.Plan {
					t.Errorf("counterexample %d: %s %d faults %d events / %s %d faults %d events", i, p.Invariant, p.Faults, p.Events, q.Invariant, q.Faults, q.Events)
				}
			}
			if x.Schedules > y.Schedules || y.States != 0 {
				t.Errorf("schedules %d (pruned) / %d; unpruned states %d", x.Schedules, y.Schedules, y.States)
			}
			t.Logf("pruned: %s", x.Statement)
			t.Logf("unpruned: %s", y.Statement)
		})
	}
}

// faultFree is the spec of an exploration's fault-free schedule.
func faultFree(s *setup) scenarios.Spec {
	spec := s.base
	spec.PlanText = s.plan(&sched{})
	return spec
}

// TestLinkLatencyRefused: a random per-link latency is a random fault
// source; -explore refuses it in one line naming the link.
func TestLinkLatencyRefused(t *testing.T) {
	for _, v := range []string{"c1>b1 lognormal base=40ms spread=5ms", "c1>b1 constant base=40ms tail_prob=0.01 tail=1s"} {
		_, err := prepare(cfgFor(t, "coordfailover", 1, "net.link.latency="+v))
		if err == nil || !strings.Contains(err.Error(), "net.link.latency c1>b1") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", v, err)
		}
	}
}
