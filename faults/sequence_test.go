package faults_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
)

// TestCheckSequence: plans whose lines could not happen as written are
// refused, naming the line and what is allowed; plans that do what they
// say pass.
func TestCheckSequence(t *testing.T) {
	cases := []struct{ text, want string }{
		// Time order.
		{"3s crash b1\n2s restart b1", "line 2: time 2s is earlier than line 1's 3s (allowed: lines in time order, each at or after the one before)"},
		{"# comment\n1s drift p1 +5ppm\n\n0s drop request 1 p1>b1", "line 4: time 0s is earlier than line 2's 1s (allowed: lines in time order, each at or after the one before)"},
		{"3s crash b1\n3s restart b1\n3s crash b1", ""},
		// Restarts of running processes.
		{"3s crash b1\n5s restart p1", "line 2: restart p1: p1 is running at 5s, never crashed (allowed: a restart of a process that an earlier line crashed and no line has restarted since)"},
		{"2s restart b1", "line 1: restart b1: b1 is running at 2s, never crashed (allowed: a restart of a process that an earlier line crashed and no line has restarted since)"},
		{"1s crash b1\n2s restart b1 clean\n3s restart b1", "line 3: restart b1: b1 is running at 3s, restarted on line 2 (allowed: a restart of a process that an earlier line crashed and no line has restarted since)"},
		// Pauses, stalls and crashes of crashed processes.
		{"1s crash p1\n2s pause p1 1s", "line 2: pause p1: p1 is crashed at 2s, since line 1 (allowed: a pause of a running process; restart p1 first)"},
		{"1s crash b1\n2s stall b1 1s", "line 2: stall b1: b1 is crashed at 2s, since line 1 (allowed: a stall of a running process; restart b1 first)"},
		{"1s crash b1\n2s crash b1\n3s restart b1", "line 2: crash b1: b1 is crashed at 2s, since line 1 (allowed: a crash of a running process; restart b1 first)"},
		{"1s crash b1\n2s restart b1\n3s pause b1 1s\n3s crash b1\n4s stall c1 1s", ""},
		// A paused process may be paused again (the pauses overlap) or
		// crashed; a crashed one may drift, be cut off or healed.
		{"1s pause p1 5s\n2s pause p1 1s\n3s crash p1\n4s drift p1 +20ppm\n4s partition p1 | b1\n5s heal b1 | p1\n6s restart p1", ""},
		// Heals.
		{"1s heal p1 | b1", "line 1: heal p1 | b1: no partition p1 | b1 is in force at 1s (allowed: a heal of an earlier partition of the same sides that no heal has ended yet; in force: none)"},
		{"1s partition p2 | b1\n2s heal p1 | b1", "line 2: heal p1 | b1: no partition p1 | b1 is in force at 2s (allowed: a heal of an earlier partition of the same sides that no heal has ended yet; in force: partition p2 | b1 (line 1))"},
		{"1s partition p1 | b1\n2s heal p1 | b1\n3s heal p1 | b1", "line 3: heal p1 | b1: no partition p1 | b1 is in force at 3s (allowed: a heal of an earlier partition of the same sides that no heal has ended yet; in force: none)"},
		{"1s partition p1 | b1 c1\n2s heal p1 | b1", "line 2: heal p1 | b1: no partition p1 | b1 is in force at 2s (allowed: a heal of an earlier partition of the same sides that no heal has ended yet; in force: partition p1 | b1 c1 (line 1))"},
		{"1s partition p1 | b1\n2s heal-oneway p1 > b1", "line 2: heal-oneway p1 > b1: no partition-oneway p1 > b1 is in force at 2s (allowed: a heal-oneway of an earlier partition-oneway of the same sides that no heal-oneway has ended yet; in force: partition p1 | b1 (line 1))"},
		{"1s partition-oneway p1 > b1\n2s heal-oneway b1 > p1", "line 2: heal-oneway b1 > p1: no partition-oneway b1 > p1 is in force at 2s (allowed: a heal-oneway of an earlier partition-oneway of the same sides that no heal-oneway has ended yet; in force: partition-oneway p1 > b1 (line 1))"},
		// Sides are sets; two partitions of the same sides need two heals.
		{"1s partition p1 p2 | b1 c1\n2s heal c1 b1 | p2 p1\n3s partition-oneway p1 p2 > b1\n4s heal-oneway p2 p1 > b1", ""},
		{"1s partition p1 | b1\n2s partition p1 | b1\n3s heal p1 | b1\n4s heal p1 | b1", ""},
	}
	for _, c := range cases {
		p, err := faults.Parse(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		err = p.Check(exampleNodes)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
	// A plan that was not parsed names its actions by number.
	p := faults.Plan{Actions: []faults.Timed{{At: time.Second, Action: faults.Crash{Node: "b1"}}, {At: 2 * time.Second, Action: faults.Pause{Node: "b1", For: time.Second}}}}
	if err := p.CheckSequence(); err == nil || err.Error() != "action 2: pause b1: b1 is crashed at 2s, since action 1 (allowed: a pause of a running process; restart b1 first)" {
		t.Errorf("unparsed plan: %v", err)
	}
}

// TestHealClosesSets: a heal closes a partition of the same sides in any
// order of nodes and, both ways, of sides.
func TestHealClosesSets(t *testing.T) {
	cut := faults.Cut{A: []string{"p1", "p2"}, B: []string{"b1", "c1"}}
	for _, h := range []faults.Heal{{A: []string{"p2", "p1"}, B: []string{"c1", "b1"}}, {A: []string{"b1", "c1"}, B: []string{"p1", "p2"}}} {
		if !h.Closes(cut) {
			t.Errorf("%v does not close %v", h, cut)
		}
	}
	if (faults.Heal{A: []string{"p1"}, B: []string{"b1", "c1"}}).Closes(cut) {
		t.Errorf("a heal of part of the sides closes the partition")
	}
	one := faults.CutOneWay{A: []string{"p1"}, B: []string{"b1", "c1"}}
	if !(faults.HealOneWay{A: []string{"p1"}, B: []string{"c1", "b1"}}).Closes(one) {
		t.Errorf("heal-oneway with reordered nodes does not close %v", one)
	}
	if (faults.HealOneWay{A: []string{"b1", "c1"}, B: []string{"p1"}}).Closes(one) {
		t.Errorf("heal-oneway of the other direction closes %v", one)
	}
}

// TestGeneratedPlansCheck: every generated plan passes Check, on its own
// and merged with actions of a scenario's own drawn around them
// (GenOptions.Around); without Around the merge is refused for some seed.
func TestGeneratedPlansCheck(t *testing.T) {
	nodes := faults.Nodes{Clients: []string{"p1", "p2"}, Servers: []string{"b1", "b2", "c1", "n1"}, Brokers: []string{"b1", "b2"}, Controllers: []string{"n1"}}
	around := []faults.Timed{
		{At: 1 * time.Second, Action: faults.Pause{Node: "p1", For: 8 * time.Second}},
		{At: 2 * time.Second, Action: faults.Crash{Node: "b1"}},
		{At: 3 * time.Second, Action: faults.Stall{Node: "b2", For: time.Second}},
		{At: 4 * time.Second, Action: faults.Restart{Node: "b1"}},
		{At: 6 * time.Second, Action: faults.Crash{Node: "p2"}},
	}
	refusedWithout := 0
	for seed := range uint64(500) {
		for _, count := range []int{1, 4, 10, 40} {
			opts := faults.GenOptions{Faults: count, Kinds: faults.GenAll | faults.GenStall, Window: 6 * time.Second, End: 30 * time.Second, Nodes: nodes}
			p := faults.Generate(rand.New(rand.NewPCG(seed, 1)), opts)
			if err := p.Check(nodes); err != nil {
				t.Fatalf("seed %d count %d: %v\n%s", seed, count, err, p.String())
			}
			q, err := faults.Parse(p.String())
			if err != nil || q.Check(nodes) != nil || !q.Equal(&p) {
				t.Fatalf("seed %d count %d: read back: %v\n%s", seed, count, err, p.String())
			}
			merge := func(opts faults.GenOptions) faults.Plan {
				g := faults.Generate(rand.New(rand.NewPCG(seed, 2)), opts)
				m := faults.Plan{Actions: append(append([]faults.Timed{}, around...), g.Actions...), End: g.End}
				m.SortByTime()
				return m
			}
			with := opts
			with.Around = around
			if m := merge(with); m.Check(nodes) != nil {
				t.Fatalf("seed %d count %d: merged with Around: %v\n%s", seed, count, m.Check(nodes), m.String())
			}
			if m := merge(opts); m.Check(nodes) != nil {
				refusedWithout++
			}
		}
	}
	if refusedWithout == 0 {
		t.Errorf("no merge without Around was refused: the test shows nothing")
	}
}
