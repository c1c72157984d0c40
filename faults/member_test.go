package faults

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestMemberFaultsRoundTrip: slow-poll and mute-heartbeat print and parse
// back, weaken to a shorter length, and bad lines get one clear line.
func TestMemberFaultsRoundTrip(t *testing.T) {
	for _, line := range []string{"3.2s slow-poll p1 40s", "1.5s mute-heartbeat p2 15s"} {
		p, err := Parse(line + "\n")
		if err != nil || len(p.Actions) != 1 {
			t.Fatalf("%q: %v", line, err)
		}
		if got := p.Actions[0].String(); got != line {
			t.Errorf("%q printed back as %q", line, got)
		}
		k, ok := p.Actions[0].Weaken()
		if !ok || k.Max <= 0 || !k.Duration {
			t.Fatalf("%q: weaken %v %v", line, k, ok)
		}
		if w := k.With(k.Max / 2); w.Equal(p.Actions[0].Action) || !strings.Contains(string(w.AppendTo(nil)), (time.Duration(k.Max)/2).String()) {
			t.Errorf("%q weakened to %q", line, w.AppendTo(nil))
		}
	}
	for _, c := range []struct{ line, want string }{
		{"1s slow-poll p1", `want "slow-poll NODE DUR"`},
		{"1s mute-heartbeat p1 soon", "mute-heartbeat length"},
	} {
		_, err := Parse(c.line + "\n")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.line, err, c.want)
		}
	}
}

// TestMemberFaultsCheck: only a group member takes them.
func TestMemberFaultsCheck(t *testing.T) {
	group := Nodes{Clients: []string{"p1", "p2"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}, Members: []string{"p1", "p2"}}
	plain := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}}
	for _, a := range []Action{SlowPoll{Node: "p2", For: time.Second}, MuteHeartbeat{Node: "p1", For: time.Second}} {
		if err := a.Check(group); err != nil {
			t.Errorf("%s: %v", a.AppendTo(nil), err)
		}
	}
	for _, c := range []struct {
		a    Action
		n    Nodes
		want string
	}{
		{SlowPoll{Node: "b1"}, group, "b1 is not a consumer group member (members: p1, p2)"},
		{MuteHeartbeat{Node: "p1"}, plain, "no consumer group member (allowed with app.mode=exactly-once-v2"},
	} {
		err := c.a.Check(c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.a.AppendTo(nil), err, c.want)
		}
	}
}

// TestGenerateMemberFaults: the generator draws the member faults only
// in a world with group members, only of members, and only when named;
// the kinds of before draw the same plans with or without members.
func TestGenerateMemberFaults(t *testing.T) {
	group := Nodes{Clients: []string{"p1", "p2"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}, Members: []string{"p1", "p2"}}
	plain := group
	plain.Members = nil
	gen := func(k Kinds, n Nodes) Plan {
		return Generate(rand.New(rand.NewPCG(1, 2)), GenOptions{Faults: 8, Kinds: k, End: time.Minute, Nodes: n})
	}
	if p := gen(GenSlowPoll|GenMuteHeartbeat, plain); len(p.Actions) != 0 {
		t.Fatalf("drawn without members: %v", p.Actions)
	}
	p := gen(GenSlowPoll|GenMuteHeartbeat, group)
	seen := map[string]bool{}
	for _, a := range p.Actions {
		seen[a.Verb()] = true
		if n := a.Nodes()[0]; n != "p1" && n != "p2" {
			t.Errorf("%s: not a member", a)
		}
		if err := a.Check(group); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}
	if !seen["slow-poll"] || !seen["mute-heartbeat"] {
		t.Errorf("drew %v, want both kinds", seen)
	}
	if a, b := gen(GenAll, group), gen(GenAll, plain); a.String() != b.String() {
		t.Errorf("members changed GenAll's plan:\n%s\nvs\n%s", a.String(), b.String())
	}
	if k, err := ParseKinds("all,slow-poll,mute-heartbeat"); err != nil || k != GenAll|GenSlowPoll|GenMuteHeartbeat || GenAll&(GenSlowPoll|GenMuteHeartbeat) != 0 {
		t.Errorf("ParseKinds: %v %v", k, err)
	}
}
