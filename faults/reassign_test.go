package faults

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOperatorActionsRoundTrip: elect-preferred (with and without
// partitions) and reassign parse and print back unchanged, and equal
// themselves but not each other's variants.
func TestOperatorActionsRoundTrip(t *testing.T) {
	for _, line := range []string{"10s elect-preferred", "10s elect-preferred p0", "1.5s elect-preferred p2,p0", "2s elect-preferred __transaction_state", "2s elect-preferred p1,__consumer_offsets,__transaction_state", "10s reassign p0 b2,b3,b4", "3s reassign p7 b1"} {
		p, err := Parse(line)
		if err != nil || len(p.Actions) != 1 {
			t.Fatalf("%s: %v", line, err)
		}
		a := p.Actions[0]
		if a.String() != line || !a.Equal(a) {
			t.Errorf("%s prints %q", line, a.String())
		}
	}
	if p, err := Parse("2s elect-preferred __transaction_state,__consumer_offsets"); err != nil || !slices.Equal(p.Actions[0].Action.(ElectPreferred).Parts, []int32{TxnStatePartition, OffsetsPartition}) {
		t.Errorf("internal partitions parse as %+v, %v", p, err)
	}
	if (ElectPreferred{Parts: []int32{0}}).Equal(ElectPreferred{}) || (Reassign{Part: 0, Replicas: []string{"b1"}}).Equal(Reassign{Part: 1, Replicas: []string{"b1"}}) {
		t.Error("different actions compare equal")
	}
}

// TestOperatorActionsRefused: each bad line or bad world is one line
// naming what is wrong and what is allowed.
func TestOperatorActionsRefused(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"1s reassign p0", `want "reassign PARTITION BROKERS"`},
		{"1s reassign 0 b1,b2", `reassign: partition "0" is not allowed`},
		{"1s reassign p0 b1,b1", "reassign: broker b1 is listed twice"},
		{"1s reassign p0,p1 b1", "reassign: partition \"p0,p1\" is not allowed (allowed: one partition"},
		{"1s elect-preferred p0 p1", `want "elect-preferred" or "elect-preferred PARTITIONS"`},
		{"1s elect-preferred px", `elect-preferred: partition "px" is not allowed`},
		{"1s elect-preferred p1,p1", "elect-preferred: partition p1 is listed twice"},
		{"1s elect-preferred __consumer_offsets,__consumer_offsets", "elect-preferred: partition __consumer_offsets is listed twice"},
		{"1s elect-preferred __offsets", `elect-preferred: partition "__offsets" is not allowed (allowed: p0, p1, ..., __transaction_state, __consumer_offsets`},
		{"1s reassign __transaction_state b1", `reassign: partition "__transaction_state" is not allowed (allowed: one partition, p0, p1, ...; the coordinators' internal partitions are not reassigned`},
	} {
		_, err := Parse(c.line)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.line, err, c.want)
		}
	}
	repl := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "b2", "b3", "c1", "n1"}, Brokers: []string{"b1", "b2", "b3"}, Controllers: []string{"n1"}, Partitions: 2}
	single := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}, Partitions: 1}
	for _, c := range []struct {
		a    Action
		n    Nodes
		want string
	}{
		{Reassign{Part: 0, Replicas: []string{"b2", "c1"}}, repl, "reassign p0: c1 is not a broker (brokers: b1, b2, b3)"},
		{Reassign{Part: 2, Replicas: []string{"b2"}}, repl, "reassign: partition p2 does not exist (partitions: p0..p1)"},
		{Reassign{Part: 0, Replicas: []string{"b1"}}, single, "reassign: a reassignment needs the controller of a replicated world"},
		{ElectPreferred{Parts: []int32{5}}, repl, "elect-preferred: partition p5 does not exist (partitions: p0..p1)"},
		{ElectPreferred{}, single, "elect-preferred: a leader election needs the controller"},
	} {
		err := c.a.Check(c.n)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line starting %q", c.a, err, c.want)
		}
	}
	if err := (Reassign{Part: 1, Replicas: []string{"b3", "b1"}}).Check(repl); err != nil {
		t.Errorf("a valid reassignment refused: %v", err)
	}
	// An unknown node is refused by the plan's check, naming the line.
	p, err := Parse("1s reassign p0 b2,b9")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(repl); err == nil || !strings.Contains(err.Error(), "b9") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("reassign to b9: %v", err)
	}
}

// TestOperatorActionsWeaken: the knobs keep a prefix of the partitions
// or of the target replicas; an election of every partition, or of one,
// and a reassignment to one broker have none.
func TestOperatorActionsWeaken(t *testing.T) {
	k, ok := (Reassign{Part: 1, Replicas: []string{"b2", "b3", "b4"}}).Weaken()
	if !ok || k.Min != 1 || k.Max != 3 || k.With(1).(Reassign).Replicas[0] != "b2" || len(k.With(2).(Reassign).Replicas) != 2 {
		t.Fatalf("reassign knob %+v %v", k, ok)
	}
	k, ok = (ElectPreferred{Parts: []int32{2, 0}}).Weaken()
	if !ok || k.Max != 2 || !k.With(1).Equal(ElectPreferred{Parts: []int32{2}}) {
		t.Fatalf("elect-preferred knob %+v %v", k, ok)
	}
	for _, a := range []Action{ElectPreferred{}, ElectPreferred{Parts: []int32{1}}, Reassign{Part: 0, Replicas: []string{"b1"}}} {
		if _, ok := a.Weaken(); ok {
			t.Errorf("%v has a knob", a)
		}
	}
}

// TestGenerateOperatorActions: the generator draws elect-preferred and
// reassign only when named and only in a replicated world; a drawn
// reassignment names min(3, brokers) distinct brokers.
func TestGenerateOperatorActions(t *testing.T) {
	repl := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "b2", "b3", "b4", "c1", "n1"}, Brokers: []string{"b1", "b2", "b3", "b4"}, Controllers: []string{"n1"}, Partitions: 2}
	single := Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}, Partitions: 1}
	gen := func(k Kinds, n Nodes) Plan {
		return Generate(rand.New(rand.NewPCG(1, 2)), GenOptions{Faults: 8, Kinds: k, End: time.Minute, Nodes: n})
	}
	if p := gen(GenElectPreferred|GenReassign, single); len(p.Actions) != 0 {
		t.Fatalf("drawn without a controller: %v", p.Actions)
	}
	p := gen(GenElectPreferred|GenReassign, repl)
	var elect, move int
	for _, a := range p.Actions {
		switch x := a.Action.(type) {
		case ElectPreferred:
			elect++
		case Reassign:
			move++
			if len(x.Replicas) != 3 || x.Part >= 2 {
				t.Errorf("drawn %v", a)
			}
		default:
			t.Errorf("drawn %v", a)
		}
		if err := a.Check(repl); err != nil {
			t.Errorf("%v: %v", a, err)
		}
	}
	if elect == 0 || move == 0 {
		t.Fatalf("drew %d elections and %d reassignments: %v", elect, move, p.Actions)
	}
	if k, err := ParseKinds("all,elect-preferred,reassign"); err != nil || k != GenAll|GenElectPreferred|GenReassign {
		t.Fatalf("ParseKinds: %v %v", k, err)
	}
}
