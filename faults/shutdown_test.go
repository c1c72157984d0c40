package faults

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestShutdownCheck: only a broker of a replicated world shuts down; each
// refusal is one line naming the node.
func TestShutdownCheck(t *testing.T) {
	repl := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "b2", "c1", "n1"}, Brokers: []string{"b1", "b2"}, Controllers: []string{"n1"}}
	if err := (Shutdown{Node: "b2", Down: time.Second}).Check(repl); err != nil {
		t.Fatalf("shutdown b2: %v", err)
	}
	single := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}}
	for _, c := range []struct {
		n    Nodes
		node string
		want string
	}{
		{repl, "c1", "c1 is not a broker"},
		{repl, "p1", "p1 is not a broker"},
		{single, "b1", "needs the controller"},
	} {
		err := (Shutdown{Node: c.node}).Check(c.n)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("shutdown %s: %v, want one line with %q", c.node, err, c.want)
		}
	}
}

// TestRolling: one shutdown per broker, gap apart, each with the downtime.
func TestRolling(t *testing.T) {
	got := Plan{Actions: Rolling([]string{"b1", "b2", "b3"}, 2*time.Second, 15*time.Second, 5*time.Second)}
	want := "2s shutdown b1 5s\n17s shutdown b2 5s\n32s shutdown b3 5s\n"
	var b strings.Builder
	for _, a := range got.Actions {
		b.WriteString(a.String() + "\n")
	}
	if b.String() != want {
		t.Fatalf("Rolling:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestGenerateShutdown: the generator draws shutdowns only when asked and
// only of a replicated world's brokers; the kinds of before draw the same
// plans.
func TestGenerateShutdown(t *testing.T) {
	repl := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "b2", "b3", "c1", "n1"}, Brokers: []string{"b1", "b2", "b3"}, Controllers: []string{"n1"}}
	gen := func(k Kinds, n Nodes) Plan {
		return Generate(rand.New(rand.NewPCG(1, 2)), GenOptions{Faults: 6, Kinds: k, End: time.Minute, Nodes: n})
	}
	p := gen(GenShutdown, repl)
	if len(p.Actions) == 0 {
		t.Fatal("no shutdown drawn")
	}
	for _, a := range p.Actions {
		s, ok := a.Action.(Shutdown)
		if !ok || s.Check(repl) != nil {
			t.Fatalf("drew %v", a)
		}
	}
	if err := p.CheckSequence(); err != nil {
		t.Fatal(err)
	}
	single := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}}
	if p := gen(GenShutdown, single); len(p.Actions) != 0 {
		t.Fatalf("drew %v without a controller", p.Actions)
	}
	for _, a := range gen(GenAll, repl).Actions {
		if _, ok := a.Action.(Shutdown); ok {
			t.Fatalf("GenAll drew %v", a)
		}
	}
}
