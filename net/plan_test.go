package net_test

import (
	"strings"
	"testing"
	"time"

	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

const examplePlan = `# a hand-written plan
3.2s pause p1 25s
5s partition p1 | b1
9s heal p1|b1
5s partition-oneway p1 p2 > b1 c1   # two to two
6s heal-oneway p1 p2 > b1 c1
12s crash b1
14s restart b1 clean
15s crash p2
16s restart p2 unclean
0s drop response 17 p1>b1
0s drop request 2 p2 > c1
1s drift p2 -150ppm
0s reject 5 p1>b1 NOT_ENOUGH_REPLICAS
0s reject 6 p1 > b1 NOT_LEADER_OR_FOLLOWER partition 1
end 60s
`

func TestParsePlanExample(t *testing.T) {
	p, err := simnet.ParsePlan(examplePlan)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 14 || p.End != 60*time.Second {
		t.Fatalf("got %d actions, end %v", len(p.Actions), p.End)
	}
	want := []simnet.Action{
		{At: 3200 * time.Millisecond, Kind: simnet.Pause, Node: "p1", For: 25 * time.Second},
		{At: 5 * time.Second, Kind: simnet.Partition, A: []string{"p1"}, B: []string{"b1"}},
		{At: 9 * time.Second, Kind: simnet.Heal, A: []string{"p1"}, B: []string{"b1"}},
		{At: 5 * time.Second, Kind: simnet.PartitionOneWay, A: []string{"p1", "p2"}, B: []string{"b1", "c1"}},
	}
	for i, w := range want {
		if !p.Actions[i].Equal(&w) {
			t.Errorf("action %d = %v, want %v", i, p.Actions[i], w)
		}
	}
	if a := p.Actions[6]; !a.Clean || a.Line != 8 {
		t.Errorf("restart b1 clean: %+v", a)
	}
	if a := p.Actions[9]; a.Kind != simnet.Drop || a.Dir != simnet.Response || a.N != 17 || a.From != "p1" || a.To != "b1" {
		t.Errorf("drop: %+v", a)
	}
	if a := p.Actions[11]; a.PPM != -150 {
		t.Errorf("drift: %+v", a)
	}
	if a := p.Actions[12]; a.Kind != simnet.Reject || a.N != 5 || a.From != "p1" || a.To != "b1" || a.Code != "NOT_ENOUGH_REPLICAS" || a.Part != -1 {
		t.Errorf("reject: %+v", a)
	}
	if a := p.Actions[13]; a.Part != 1 || a.String() != "0s reject 6 p1>b1 NOT_LEADER_OR_FOLLOWER partition 1" {
		t.Errorf("reject partition: %+v %s", a, a)
	}
	if err := p.Check([]string{"p1", "p2", "b1", "c1"}); err != nil {
		t.Error(err)
	}
	if err := p.Check([]string{"p1", "b1", "c1"}); err == nil || err.Error() != `line 5: unknown node "p2" (known: b1, c1, p1)` {
		t.Errorf("Check without p2: %v", err)
	}
	q, err := simnet.ParsePlan(p.String())
	if err != nil || !q.Equal(&p) {
		t.Errorf("round trip: %v\n%s", err, p.String())
	}
}

func TestParsePlanErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"1s pasue p1 2s", `line 1: unknown action "pasue" (allowed: pause, crash, restart, partition, partition-oneway, heal, heal-oneway, drop, drift, reject)`},
		{"0s reject 0 p1>b1 NOT_ENOUGH_REPLICAS", `line 1: reject: request number "0" is not allowed (allowed: an integer >= 1)`},
		{"0s reject 1 p1>b1 not_enough", `line 1: reject: "not_enough" is not an error name (e.g. NOT_ENOUGH_REPLICAS)`},
		{"0s reject 1 p1>b1 X part 2", `line 1: reject: want "partition K" with K >= 0 after the error, got "part 2"`},
		{"0s reject 1 p1 b1 X", `line 1: want "reject N CLIENT>SERVER ERROR [partition K]", e.g. 0s reject 5 p1>b1 NOT_ENOUGH_REPLICAS`},
		{"# c\n\n3x pause p1 1s", `line 3: time "3x" is not a duration`},
		{"-1s crash b1", `line 1: time "-1s" is negative`},
		{"1s pause p1", `line 1: want "pause NODE DUR"`},
		{"1s pause 1p 1s", `line 1: pause: "1p" is not a node name`},
		{"1s restart b1 dirty", `line 1: restart: "dirty" is not allowed (allowed: clean, unclean)`},
		{"1s partition p1 b1", `line 1: want "partition A... | B..."`},
		{"1s partition p1 | p1", `line 1: partition: node p1 is on both sides`},
		{"1s partition | b1", `line 1: want "partition A... | B..."`},
		{"1s partition-oneway p1 | b1", `line 1: want "partition-oneway A... > B..."`},
		{"1s drop response 0 p1>b1", `line 1: drop: request number "0" is not allowed`},
		{"1s drop reply 3 p1>b1", `line 1: drop: "reply" is not allowed`},
		{"1s drop request 3 p1 b1", `line 1: want "drop request|response N CLIENT>SERVER"`},
		{"1s drift p1 5%", `line 1: drift: "5%" is not allowed`},
		{"1s drift p1 -1000000ppm", `line 1: drift: "-1000000ppm" is not allowed`},
		{"end 1s\nend 2s", `line 2: second end (the first is on line 1)`},
		{"end", `line 1: want "end DUR"`},
		{"1s crash b1\n5s crash p1\nend 2s", `line 2: action at 5s is after the plan's end 2s (line 3)`},
		{"1s", `line 1: missing action after the time`},
	}
	for _, c := range cases {
		_, err := simnet.ParsePlan(c.text)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParsePlan(%q) = %v, want %q...", c.text, err, c.want)
		}
	}
}

// TestGeneratePlanRoundTrip: generated plans are deterministic in the
// seed, print and parse back equal, and stay within their options.
func TestGeneratePlanRoundTrip(t *testing.T) {
	nodes := simnet.Nodes{Clients: []string{"p1", "p2"}, Servers: []string{"b1", "c1"}}
	all := []string{"p1", "p2", "b1", "c1"}
	for seed := range uint64(200) {
		opts := simnet.GenOptions{Faults: 1 + int(seed%12), Window: 20 * time.Second, End: 40 * time.Second, Nodes: nodes}
		if seed%3 == 0 {
			opts.Kinds = simnet.GenPause | simnet.GenDrop
		}
		p := simnet.GeneratePlan(sim.NewRand(seed, sim.StreamID("faults")), opts)
		p2 := simnet.GeneratePlan(sim.NewRand(seed, sim.StreamID("faults")), opts)
		if !p.Equal(&p2) {
			t.Fatalf("seed %d: two plans from one seed differ", seed)
		}
		if len(p.Actions) < opts.Faults {
			t.Fatalf("seed %d: %d actions for %d faults", seed, len(p.Actions), opts.Faults)
		}
		if err := p.Check(all); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p.String())
		}
		for i, a := range p.Actions {
			if i > 0 && a.At < p.Actions[i-1].At {
				t.Fatalf("seed %d: actions out of time order", seed)
			}
			if opts.Kinds != 0 && a.Kind != simnet.Pause && a.Kind != simnet.Drop {
				t.Fatalf("seed %d: kind %v not enabled", seed, a.Kind)
			}
		}
		q, err := simnet.ParsePlan(p.String())
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p.String())
		}
		if !q.Equal(&p) {
			t.Fatalf("seed %d: parse(print(p)) != p\n%s\n%s", seed, p.String(), q.String())
		}
	}
	if p := simnet.GeneratePlan(sim.NewRand(1, 1), simnet.GenOptions{End: time.Minute}); len(p.Actions) != 0 || p.End != time.Minute {
		t.Errorf("zero faults: %+v", p)
	}
}

func TestParseFaultKinds(t *testing.T) {
	if k, err := simnet.ParseFaultKinds("all"); err != nil || k != simnet.GenAll {
		t.Errorf("all: %v %v", k, err)
	}
	if k, err := simnet.ParseFaultKinds("pause, drop"); err != nil || k != simnet.GenPause|simnet.GenDrop {
		t.Errorf("pause,drop: %v %v", k, err)
	}
	if _, err := simnet.ParseFaultKinds("pause,gc"); err == nil || !strings.Contains(err.Error(), `unknown kind "gc"`) {
		t.Errorf("gc: %v", err)
	}
}

// FuzzParsePlan: the parser never panics, and for anything that parses,
// parse(print(p)) == p.
func FuzzParsePlan(f *testing.F) {
	f.Add(examplePlan)
	f.Add("0s drop response 17 p1>b1\nend 1m")
	f.Add("1.5h pause x.y-z_1 1ns # c")
	f.Add("1s drift a +0ppm\n\r\n1s restart b unclean")
	f.Add("0s reject 5 p1>b1 NOT_ENOUGH_REPLICAS\n1s reject 2 p2 > b1 X_1 partition 3")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := simnet.ParsePlan(text)
		if err != nil {
			return
		}
		out := p.String()
		q, err := simnet.ParsePlan(out)
		if err != nil {
			t.Fatalf("printed plan does not parse: %v\n%s", err, out)
		}
		if !q.Equal(&p) {
			t.Fatalf("parse(print(p)) != p\n%s\n%s", out, q.String())
		}
	})
}
