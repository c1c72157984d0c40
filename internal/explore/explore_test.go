package explore

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

func cfgFor(t testing.TB, scenario string, k int, sets ...string) Config {
	t.Helper()
	sc, err := scenarios.Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Scenario: sc, Seed: 1, MaxFaults: k, Prune: true, Reduce: true, Parallel: 2}
	for _, s := range sets {
		if id, ok := strings.CutPrefix(s, "bug:"); ok {
			c.Bugs = append(c.Bugs, id)
			continue
		}
		k, v, _ := strings.Cut(s, "=")
		c.Sets = append(c.Sets, params.KV{Key: k, Value: v})
	}
	return c
}

func explore(t testing.TB, c Config) *Result {
	t.Helper()
	r, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAcklossDuplicate: without idempotence one lost acknowledgement
// duplicates a record; the counterexample is a plan that replays the
// violation, with the same events.
func TestAcklossDuplicate(t *testing.T) {
	r := explore(t, cfgFor(t, "ackloss", 2, "enable.idempotence=false", "records=3"))
	if r.Verdict != "violated" || !r.Complete || r.Depth != 1 {
		t.Fatalf("verdict %s complete %v depth %d: %s", r.Verdict, r.Complete, r.Depth, r.Statement)
	}
	i := slices.IndexFunc(r.Counterexamples, func(c Counterexample) bool { return c.Invariant == "INV-DUP" })
	if i < 0 {
		t.Fatalf("no INV-DUP counterexample: %+v", r.Counterexamples)
	}
	ce := r.Counterexamples[i]
	if ce.Faults != 1 || !strings.Contains(ce.Plan, "drop response") {
		t.Errorf("INV-DUP counterexample: %d faults\n%s", ce.Faults, ce.Plan)
	}
	spec, err := r.Spec(nil, ce.Plan)
	if err != nil {
		t.Fatal(err)
	}
	res, err := scenarios.Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != ce.Events || !slices.ContainsFunc(res.Violations, func(v check.Violation) bool { return v.Invariant == "INV-DUP" }) {
		t.Errorf("replay: %d events (want %d), violations %v", res.Events, ce.Events, res.Violations)
	}
	if r.Levels[1].Schedules == 0 || r.Schedules != r.Levels[0].Schedules+r.Levels[1].Schedules {
		t.Errorf("levels %+v, schedules %d", r.Levels, r.Schedules)
	}
	// The search stops after the first level with a counterexample.
	if len(r.Levels) != 2 {
		t.Errorf("levels run: %d, want 2", len(r.Levels))
	}
}

// TestClean: with idempotence a lost acknowledgement is deduplicated;
// the statement says what holds.
func TestClean(t *testing.T) {
	r := explore(t, cfgFor(t, "ackloss", 1, "records=2"))
	if r.Verdict != "clean" || len(r.Counterexamples) != 0 || r.Depth != 1 {
		t.Fatalf("verdict %s depth %d: %s", r.Verdict, r.Depth, r.Statement)
	}
	if !strings.HasPrefix(r.Statement, "explored ") || !strings.Contains(r.Statement, "with ≤ 1 fault: INV-DUP, INV-LOSS, INV-ORDER") || !strings.HasSuffix(r.Statement, " hold") {
		t.Errorf("statement: %s", r.Statement)
	}
	if r.Menu != "drop, delay, crash (10s down), pause 10s" {
		t.Errorf("menu %q", r.Menu)
	}
	for _, kv := range r.Fixed {
		if kv.Key == "net.latency" && kv.Value == "constant" {
			return
		}
	}
	t.Errorf("fixed sets %v: no constant latency", r.Fixed)
}

// TestPruneKeepsVerdict: pruning on and off give the same verdicts and the
// same counterexamples (faults, events, plan), with fewer runs when on.
func TestPruneKeepsVerdict(t *testing.T) {
	cases := []struct {
		name, scenario string
		k              int
		sets           []string
	}{
		{"ackloss-off", "ackloss", 2, []string{"enable.idempotence=false", "records=2"}},
		{"ackloss-on", "ackloss", 2, []string{"records=2"}},
		{"reorder-on", "reorder", 2, []string{"records=3"}},
		{"statelost-Z08", "statelost", 1, []string{"bug:Z08", "records=3"}},
		{"crossbump-off", "crossbump", 1, []string{"enable.idempotence=false", "records=4"}},
	}
	if testing.Short() {
		cases = cases[:2]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			on := cfgFor(t, c.scenario, c.k, c.sets...)
			on.All = true
			off := on
			off.Prune = false
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
			if a.Schedules > b.Schedules || b.States != 0 || b.Pruned != 0 {
				t.Errorf("schedules %d (pruned) / %d; unpruned states %d pruned %d", a.Schedules, b.Schedules, b.States, b.Pruned)
			}
			t.Logf("pruned: %s", a.Statement)
		})
	}
}

// TestParallelIdentical: the summary is byte-identical for every
// -parallel.
func TestParallelIdentical(t *testing.T) {
	var first []byte
	for _, p := range []int{1, 3} {
		c := cfgFor(t, "ackloss", 2, "enable.idempotence=false", "records=2")
		c.Parallel, c.All = p, true
		b, err := explore(t, c).JSON()
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Errorf("-parallel %d gives another summary", p)
		}
	}
}

// TestShardMerge: three shards merged give one process's verdict and
// counterexamples, and without pruning its schedule count.
func TestShardMerge(t *testing.T) {
	for _, prune := range []bool{false, true} {
		for _, all := range []bool{false, true} {
			c := cfgFor(t, "ackloss", 2, "enable.idempotence=false", "records=2")
			c.Prune, c.All = prune, all
			one := explore(t, c)
			var dirs []string
			for i := range 3 {
				sc := c
				sc.Shard = shard.Shard{Index: i, Count: 3}
				r := explore(t, sc)
				d := t.TempDir()
				if err := r.Save(d, nil); err != nil {
					t.Fatal(err)
				}
				if err := r.WriteDir(d); err != nil {
					t.Fatal(err)
				}
				dirs = append(dirs, d)
			}
			slices.Reverse(dirs)
			m, err := Merge(t.TempDir(), dirs)
			if err != nil {
				t.Fatal(err)
			}
			if m.Verdict != one.Verdict || !slices.Equal(m.Invariants, one.Invariants) || len(m.Counterexamples) != len(one.Counterexamples) {
				t.Fatalf("prune %v all %v: merged %s\none: %s", prune, all, m.Statement, one.Statement)
			}
			for i := range m.Counterexamples {
				if m.Counterexamples[i].Plan != one.Counterexamples[i].Plan || m.Counterexamples[i].Events != one.Counterexamples[i].Events {
					t.Errorf("prune %v all %v: counterexample %d differs", prune, all, i)
				}
			}
			if !prune && (m.Schedules != one.Schedules || !slices.Equal(m.Levels, one.Levels)) {
				t.Errorf("all %v: merged %d schedules %+v, one process %d %+v", all, m.Schedules, m.Levels, one.Schedules, one.Levels)
			}
			if prune && !strings.Contains(func() string { var b bytes.Buffer; m.WriteText(&b); return b.String() }(), "merged from 3 shards with pruning on") {
				t.Errorf("the merged report does not say that the counts differ")
			}
		}
	}
	if _, err := Merge(t.TempDir(), nil); err == nil {
		t.Error("merge of nothing")
	}
}

// TestBudget: a budget stops the search with an honest "incomplete".
func TestBudget(t *testing.T) {
	c := cfgFor(t, "ackloss", 2, "records=2")
	c.Budget = 10
	r := explore(t, c)
	if r.Complete || r.Verdict != "incomplete" || r.Schedules != 10 || r.Remaining <= 0 || r.Depth != 0 {
		t.Fatalf("verdict %s schedules %d remaining %d depth %d", r.Verdict, r.Schedules, r.Remaining, r.Depth)
	}
	if !strings.HasPrefix(r.Statement, "incomplete (the budget ran out): 10 of at least ") {
		t.Errorf("statement: %s", r.Statement)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, cfgFor(t, "ackloss", 1, "records=2"))
	if err != nil || r.Verdict != "incomplete" || r.Stop != "interrupted" {
		t.Fatalf("interrupted: %v %+v", err, r)
	}
}

// TestStateHashSound: whenever two runs reach equal state hashes (after
// their faults), the rest of the runs agree: as many events after it, and
// the same violations.
func TestStateHashSound(t *testing.T) {
	for _, c := range []Config{
		cfgFor(t, "ackloss", 1, "enable.idempotence=false", "records=3"),
		cfgFor(t, "reorder", 1, "records=3"),
		cfgFor(t, "zombie", 1, "records=3", "transaction.records=2"),
		// Replicated, with its own per-link latencies (20 ms to the
		// followers): a delayed message waits for an arrival on another
		// link at or after its own link's arrival time.
		cfgFor(t, "failover", 1, "records=4", "fault.kinds=drop,partition"),
	} {
		s, err := prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		type future struct {
			events int64
			viol   string
			plan   string
		}
		seen := map[world.StateHash]future{}
		root := &sched{}
		o, err := s.run(root, true, true, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		scheds := []*sched{root}
		outs := []*outcome{o}
		// zombie's one-fault schedules (about 5,000) take most of the
		// test's time: without -long every fourth is run.
		stride := 1
		if c.Scenario.Name == "zombie" && !*long {
			stride = 4
		}
		var fs []fault
		n := 0
		for _, p := range o.points {
			for _, f := range s.options(&p, fs[:0]) {
				if n++; (n-1)%stride != 0 {
					continue
				}
				x := &sched{parent: root, f: f, depth: 1}
				o, err := s.run(x, true, true, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				scheds, outs = append(scheds, x), append(outs, o)
			}
		}
		same := 0
		for i, o := range outs {
			var vs []string
			for _, v := range o.violated {
				vs = append(vs, v.Invariant+" "+v.Detail)
			}
			for _, p := range o.points {
				if p.kind != world.ChoiceTime {
					continue
				}
				f := future{events: o.events - p.events, viol: strings.Join(vs, "; "), plan: s.plan(scheds[i])}
				if g, ok := seen[p.hash]; ok {
					same++
					if g.events != f.events || g.viol != f.viol {
						t.Errorf("%s: equal states at %v, different futures:\n%s(%d events after, %s)\n%s(%d events after, %s)",
							c.Scenario.Name, p.at, g.plan, g.events, g.viol, f.plan, f.events, f.viol)
					}
					continue
				}
				seen[p.hash] = f
			}
		}
		t.Logf("%s: %d runs, %d distinct states, %d states met again", c.Scenario.Name, len(outs), len(seen), same)
	}
}
