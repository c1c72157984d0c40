package faults_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
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

var exampleNodes = faults.Nodes{Clients: []string{"p1", "p2"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}}

func TestParseExample(t *testing.T) {
	p, err := faults.Parse(examplePlan)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 14 || p.End != 60*time.Second {
		t.Fatalf("got %d actions, end %v", len(p.Actions), p.End)
	}
	both := []string{"p1", "p2"}
	want := []faults.Timed{
		{At: 3200 * time.Millisecond, Action: faults.Pause{Node: "p1", For: 25 * time.Second}},
		{At: 5 * time.Second, Action: faults.Cut{A: []string{"p1"}, B: []string{"b1"}}},
		{At: 9 * time.Second, Action: faults.Heal{A: []string{"p1"}, B: []string{"b1"}}},
		{At: 5 * time.Second, Action: faults.CutOneWay{A: both, B: []string{"b1", "c1"}}},
		{At: 6 * time.Second, Action: faults.HealOneWay{A: both, B: []string{"b1", "c1"}}},
		{At: 12 * time.Second, Action: faults.Crash{Node: "b1"}},
		{At: 14 * time.Second, Action: faults.Restart{Node: "b1", Clean: true}},
		{At: 15 * time.Second, Action: faults.Crash{Node: "p2"}},
		{At: 16 * time.Second, Action: faults.Restart{Node: "p2"}},
		{At: 0, Action: faults.Drop{Dir: simnet.Response, N: 17, From: "p1", To: "b1"}},
		{At: 0, Action: faults.Drop{Dir: simnet.Request, N: 2, From: "p2", To: "c1"}},
		{At: time.Second, Action: faults.Drift{Node: "p2", PPM: -150}},
		{At: 0, Action: faults.Reject{N: 5, From: "p1", To: "b1", Code: "NOT_ENOUGH_REPLICAS", Part: -1}},
		{At: 0, Action: faults.Reject{N: 6, From: "p1", To: "b1", Code: "NOT_LEADER_OR_FOLLOWER", Part: 1}},
	}
	for i, w := range want {
		if !p.Actions[i].Equal(w) {
			t.Errorf("action %d = %v, want %v", i, p.Actions[i], w)
		}
		if p.Actions[i].Line != i+2 {
			t.Errorf("action %d: line %d, want %d", i, p.Actions[i].Line, i+2)
		}
	}
	if a := p.Actions[13]; a.String() != "0s reject 6 p1>b1 NOT_LEADER_OR_FOLLOWER partition 1" {
		t.Errorf("reject partition: %s", a)
	}
	// The example is out of time order (to show that Parse keeps the
	// file's order): each action checks on its own, the sequence not.
	if err := p.CheckNodes(exampleNodes); err != nil {
		t.Error(err)
	}
	if err := p.Check(exampleNodes); err == nil || err.Error() != "line 5: time 5s is earlier than line 4's 9s (allowed: lines in time order, each at or after the one before)" {
		t.Errorf("Check of the unsorted example: %v", err)
	}
	noP2 := faults.Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}}
	if err := p.Check(noP2); err == nil || err.Error() != `line 5: unknown node "p2" (known: b1, c1, p1)` {
		t.Errorf("Check without p2: %v", err)
	}
	q, err := faults.Parse(p.String())
	if err != nil || !q.Equal(&p) {
		t.Errorf("round trip: %v\n%s", err, p.String())
	}
}

func TestCheck(t *testing.T) {
	cases := []struct{ text, want string }{
		{"1s crash b9", `line 1: unknown node "b9" (known: b1, c1, p1, p2)`},
		{"1s drop request 1 b1>p1", `line 1: drop link b1>p1 must go from a producer ([p1 p2]) or a server to another server ([b1 c1])`},
		{"0s delay response 2 c1>p2", `line 1: delay link c1>p2 must go from a producer ([p1 p2]) or a server to another server ([b1 c1])`},
		{"0s duplicate request 2 p1>p2", `line 1: duplicate link p1>p2 must go from a producer ([p1 p2]) or a server to another server ([b1 c1])`},
		{"1s reject 1 p1>c1 NOT_ENOUGH_REPLICAS", `line 1: reject link p1>c1 must go from a producer to a broker (b1)`},
		{"1s reject 1 p1>b1 UNKNOWN_SERVER_ERROR", `line 1: reject error "UNKNOWN_SERVER_ERROR" is not allowed (allowed: NOT_ENOUGH_REPLICAS, NOT_LEADER_OR_FOLLOWER)`},
		// Unknown nodes and timing first, over the whole plan.
		{"1s drop request 1 b1>p1\n2s crash x", `line 2: unknown node "x" (known: b1, c1, p1, p2)`},
		{"1s drop request 1 b1>p1\n2s crash p1\nend 1s", `line 2: action at 2s is after the plan's end 1s (line 3)`},
	}
	for _, c := range cases {
		p, err := faults.Parse(c.text)
		if err == nil {
			err = p.Check(exampleNodes)
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	p := faults.Plan{Actions: []faults.Timed{{At: 2 * time.Second, Action: faults.Crash{Node: "p1"}}}, End: time.Second}
	if err := p.Check(exampleNodes); err == nil || err.Error() != "action 1: action at 2s is after the plan's end 1s" {
		t.Errorf("unparsed action after the end: %v", err)
	}
}

// TestCloses: heals close partitions of the same sides, restarts crashes
// of the same node; nothing else closes anything, and everything in the
// example that opens an interval closed by an action is closed.
func TestCloses(t *testing.T) {
	p, err := faults.Parse(examplePlan)
	if err != nil {
		t.Fatal(err)
	}
	// closes[i] = j: action i closes action j.
	closes := map[int]int{2: 1, 4: 3, 6: 5, 8: 7}
	closed := map[int]bool{}
	for i, a := range p.Actions {
		for j, b := range p.Actions {
			want, ok := closes[i]
			if got := a.Closes(b.Action); got != (ok && want == j) {
				t.Errorf("%s closes %s: %v", a, b, got)
			}
			if ok && want == j {
				closed[j] = true
			}
		}
	}
	for j, a := range p.Actions {
		if s := a.Span(); (s == faults.UntilClosed || s == faults.UntilRestarted) != closed[j] {
			t.Errorf("%s: span %d, closed %v", a, s, closed[j])
		}
	}
}

// TestWeaken: a knob's With(Max) is the action itself, and With(Min) a
// different, weaker one.
func TestWeaken(t *testing.T) {
	p, err := faults.Parse("0s pause p1 3s\n0s drift p1 -40ppm\n0s drift p2 +7ppm\n0s crash p1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pause p1 0s", "drift p1 +0ppm", "drift p2 +0ppm", ""}
	for i, a := range p.Actions {
		k, ok := a.Weaken()
		if !ok {
			if want[i] != "" {
				t.Errorf("%s: no knob", a)
			}
			continue
		}
		if !k.With(k.Max).Equal(a.Action) {
			t.Errorf("%s: With(Max) = %s", a, k.With(k.Max).AppendTo(nil))
		}
		if got := string(k.With(k.Min).AppendTo(nil)); got != want[i] {
			t.Errorf("%s: With(Min) = %s, want %s", a, got, want[i])
		}
	}
}

// recorder is a Target that records the calls.
type recorder struct{ calls []string }

func (r *recorder) add(s string)                       { r.calls = append(r.calls, s) }
func (r *recorder) Pause(n string, d time.Duration)    { r.add("pause " + n + " " + d.String()) }
func (r *recorder) Stall(n string, d time.Duration)    { r.add("stall " + n + " " + d.String()) }
func (r *recorder) Crash(n string)                     { r.add("crash " + n) }
func (r *recorder) Shutdown(n string, d time.Duration) { r.add("shutdown " + n + " " + d.String()) }
func (r *recorder) Restart(n string, clean bool) {
	r.add("restart " + n + map[bool]string{true: " clean"}[clean])
}
func (r *recorder) Cut(from, to string)          { r.add("cut " + from + ">" + to) }
func (r *recorder) Heal(from, to string)         { r.add("heal " + from + ">" + to) }
func (r *recorder) SetDrift(n string, ppm int32) { r.add("drift " + n) }
func (r *recorder) ArmDrop(d simnet.Direction, n int64, c, s string) {
	r.add("drop " + d.String() + " " + c + ">" + s)
}
func (r *recorder) ArmReject(n int64, c, s, code string, part int32) {
	r.add("reject " + c + ">" + s + " " + code)
}
func (r *recorder) ArmDelay(d simnet.Direction, n int64, c, s string) {
	r.add("delay " + d.String() + " " + c + ">" + s)
}
func (r *recorder) ArmDuplicate(d simnet.Direction, n int64, c, s string) {
	r.add("duplicate " + d.String() + " " + c + ">" + s)
}
func (r *recorder) AbortTransaction(a faults.AbortTxn) {
	r.add("abort-transaction " + a.Admin)
}
func (r *recorder) ArmLate(typ string, n int64, c, s string, d time.Duration) {
	r.add("late " + typ + " " + c + ">" + s)
}

func (r *recorder) DeleteRecords(s string, part int32, before int64) {
	r.add("delete-records " + s)
}
func (r *recorder) ElectPreferred(parts []int32)           { r.add("elect-preferred") }
func (r *recorder) Reassign(part int32, replicas []string) { r.add("reassign") }

func TestApply(t *testing.T) {
	p, err := faults.Parse("0s partition p1 p2 | b1\n0s heal-oneway b1 > p1 p2\n0s restart b1 clean\n0s drop response 3 p1>b1\n0s delay request 2 p2>b1\n0s duplicate response 4 p1>c1")
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	for _, a := range p.Actions {
		a.Apply(&r)
	}
	want := "cut p1>b1,cut b1>p1,cut p2>b1,cut b1>p2,heal b1>p1,heal b1>p2,restart b1 clean,drop response p1>b1,delay request p2>b1,duplicate response p1>c1"
	if got := strings.Join(r.calls, ","); got != want {
		t.Errorf("calls %s, want %s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"1s pasue p1 2s", `line 1: unknown action "pasue" (allowed: pause, crash, restart, partition, partition-oneway, heal, heal-oneway, drop, drift, reject`},
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
		{"1s heal p1 | b1 | c1", `line 1: heal: more than one "|"`},
		{"1s drop response 0 p1>b1", `line 1: drop: request number "0" is not allowed`},
		{"1s drop reply 3 p1>b1", `line 1: drop: "reply" is not allowed`},
		{"1s drop request 3 p1 b1", `line 1: want "drop request|response N CLIENT>SERVER"`},
		{"1s drop request 3 p1>p1", `line 1: drop: link p1>p1 needs two different nodes`},
		{"0s delay request 0 p1>b1", `line 1: delay: request number "0" is not allowed`},
		{"0s delay reply 3 p1>b1", `line 1: delay: "reply" is not allowed`},
		{"0s duplicate request 3 p1", `line 1: want "duplicate request|response N CLIENT>SERVER", e.g. 0s duplicate request 3 p1>b1`},
		{"0s duplicate request 3 b1>b1", `line 1: duplicate: link b1>b1 needs two different nodes`},
		{"1s drift p1 5%", `line 1: drift: "5%" is not allowed`},
		{"1s drift p1 -1000000ppm", `line 1: drift: "-1000000ppm" is not allowed`},
		{"end 1s\nend 2s", `line 2: second end (the first is on line 1)`},
		{"end", `line 1: want "end DUR"`},
		{"1s crash b1\n5s crash p1\nend 2s", `line 2: action at 5s is after the plan's end 2s (line 3)`},
		{"1s", `line 1: missing action after the time`},
	}
	for _, c := range cases {
		_, err := faults.Parse(c.text)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q...", c.text, err, c.want)
		}
	}
}

// TestGenerateRoundTrip: generated plans are deterministic in the seed,
// print and parse back equal, and stay within their options.
func TestGenerateRoundTrip(t *testing.T) {
	for seed := range uint64(200) {
		opts := faults.GenOptions{Faults: 1 + int(seed%12), Window: 20 * time.Second, End: 40 * time.Second, Nodes: exampleNodes}
		if seed%3 == 0 {
			opts.Kinds = faults.GenPause | faults.GenDrop
		}
		p := faults.Generate(sim.NewRand(seed, sim.StreamID("faults")), opts)
		p2 := faults.Generate(sim.NewRand(seed, sim.StreamID("faults")), opts)
		if !p.Equal(&p2) {
			t.Fatalf("seed %d: two plans from one seed differ", seed)
		}
		// A fault with no process up for it is not drawn, so a plan may
		// hold fewer faults than asked; never none.
		if len(p.Actions) == 0 {
			t.Fatalf("seed %d: no actions for %d faults", seed, opts.Faults)
		}
		if err := p.Check(exampleNodes); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p.String())
		}
		for i, a := range p.Actions {
			if i > 0 && a.At < p.Actions[i-1].At {
				t.Fatalf("seed %d: actions out of time order", seed)
			}
			if v := a.Verb(); opts.Kinds != 0 && v != "pause" && v != "drop" {
				t.Fatalf("seed %d: verb %s not enabled", seed, v)
			}
		}
		q, err := faults.Parse(p.String())
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p.String())
		}
		if !q.Equal(&p) {
			t.Fatalf("seed %d: parse(print(p)) != p\n%s\n%s", seed, p.String(), q.String())
		}
	}
	if p := faults.Generate(sim.NewRand(1, 1), faults.GenOptions{End: time.Minute}); len(p.Actions) != 0 || p.End != time.Minute {
		t.Errorf("zero faults: %+v", p)
	}
}

// TestGeneratePinned pins one generated plan: a change to the generator's
// draws changes every seed's plan, and must be deliberate.
func TestGeneratePinned(t *testing.T) {
	p := faults.Generate(sim.NewRand(7, sim.StreamID("faults")), faults.GenOptions{Faults: 8, Window: 20 * time.Second, End: 40 * time.Second, Nodes: exampleNodes})
	const want = `3.689s partition p1 | b1 c1
3.844s heal p1 | b1 c1
3.928s partition-oneway p2 > c1
6.289s crash c1
9.026s partition-oneway p2 > b1
11.846s restart c1 clean
13.562s heal-oneway p2 > b1
13.66s heal-oneway p2 > c1
14.39s partition p1 | b1 c1
15.963s partition-oneway c1 > p1
16.946s heal-oneway c1 > p1
17.383s drift c1 -54992ppm
19.999s partition-oneway b1 > p2
20.273s heal p1 | b1 c1
25.3s heal-oneway b1 > p2
end 40s
`
	if got := p.String(); got != want {
		t.Errorf("plan:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseKinds(t *testing.T) {
	if k, err := faults.ParseKinds("all"); err != nil || k != faults.GenAll {
		t.Errorf("all: %v %v", k, err)
	}
	if k, err := faults.ParseKinds("pause, drop"); err != nil || k != faults.GenPause|faults.GenDrop {
		t.Errorf("pause,drop: %v %v", k, err)
	}
	if k, err := faults.ParseKinds("partition,oneway"); err != nil || k != faults.GenCut|faults.GenCutOneWay {
		t.Errorf("partition,oneway: %v %v", k, err)
	}
	if _, err := faults.ParseKinds("pause,gc"); err == nil || !strings.Contains(err.Error(), `unknown kind "gc"`) {
		t.Errorf("gc: %v", err)
	}
	if k, err := faults.ParseKinds("all,stall"); err != nil || k != faults.GenAll|faults.GenStall || faults.GenAll&faults.GenStall != 0 {
		t.Errorf("all,stall: %v %v (all must not include stall)", k, err)
	}
}

// TestGenerateStall: stalls are drawn for servers only.
func TestGenerateStall(t *testing.T) {
	p := faults.Generate(rand.New(rand.NewPCG(1, 2)), faults.GenOptions{Faults: 50, Kinds: faults.GenStall, Window: time.Minute, Nodes: exampleNodes})
	if len(p.Actions) != 50 {
		t.Fatalf("%d actions, want 50", len(p.Actions))
	}
	for _, a := range p.Actions {
		st, ok := a.Action.(faults.Stall)
		if !ok || (st.Node != "b1" && st.Node != "c1") || st.For <= 0 {
			t.Fatalf("generated %s", a)
		}
	}
	if err := p.Check(exampleNodes); err != nil {
		t.Fatal(err)
	}
}

// FuzzParse: the parser never panics, and for anything that parses,
// parse(print(p)) == p.
func FuzzParse(f *testing.F) {
	f.Add(examplePlan)
	f.Add("0s drop response 17 p1>b1\nend 1m")
	f.Add("1.5h pause x.y-z_1 1ns # c")
	f.Add("1s drift a +0ppm\n\r\n1s restart b unclean")
	f.Add("0s reject 5 p1>b1 NOT_ENOUGH_REPLICAS\n1s reject 2 p2 > b1 X_1 partition 3")
	f.Add("# a plan\nformat 1\n1s crash b1\nend 2s")
	f.Add("format 2\n1s crash b1")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := faults.Parse(text)
		if err != nil {
			return
		}
		out := p.String()
		q, err := faults.Parse(out)
		if err != nil {
			t.Fatalf("printed plan does not parse: %v\n%s", err, out)
		}
		if !q.Equal(&p) {
			t.Fatalf("parse(print(p)) != p\n%s\n%s", out, q.String())
		}
		r, err := faults.Parse(faults.FileText(out))
		if err != nil || !r.Equal(&p) {
			t.Fatalf("plan file text does not read back: %v\n%s", err, faults.FileText(out))
		}
	})
}

// TestPlanFormatLine: a plan file declares its format before its first
// action; a plan without the line is read as format 1 (docs/plans.md);
// any other version, or a misplaced line, is refused with its line.
func TestPlanFormatLine(t *testing.T) {
	for _, c := range []struct{ text, err string }{
		{"format 1\n1s crash b1", ""},
		{"# saved\n\nformat 1 # the version\n1s crash b1", ""},
		{"1s crash b1", ""},
		{"format 2\n1s crash b1", `line 1: unknown plan format "2": this simulator reads "1" (want "format 1")`},
		{"\nformat\n1s crash b1", `line 2: unknown plan format "": this simulator reads "1" (want "format 1")`},
		{"1s crash b1\nformat 1", "line 2: the format line must come before the first action"},
		{"format 1\nformat 1", "line 2: second format line (the first is on line 1)"},
	} {
		_, err := faults.Parse(c.text)
		if got := fmt.Sprint(err); c.err == "" && err != nil || c.err != "" && got != c.err {
			t.Errorf("Parse(%q): %v, want %q", c.text, err, c.err)
		}
	}
	p, _ := faults.Parse("1s crash b1\nend 2s")
	if got := faults.FileText(p.String()); !strings.HasPrefix(got, "format 1\n") {
		t.Errorf("FileText: %q, want the format line first", got)
	}
}
