package faults_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
)

// TestDeleteRecordsCheck: a delete-records naming a node that is not a
// broker, or a partition the topic lacks, is refused with one line
// naming the line and what is allowed; bad tokens are refused at parse.
func TestDeleteRecordsCheck(t *testing.T) {
	nodes := faults.Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}, Partitions: 2}
	for _, c := range []struct{ text, want string }{
		{"1s delete-records b1 partition 2 before 10", "line 1: delete-records: partition 2 does not exist (partitions: 0..1)"},
		{"1s delete-records c1 partition 0 before 10", "line 1: delete-records: c1 is not a broker (brokers: b1)"},
	} {
		p, err := faults.Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if err := p.Check(nodes); err == nil || err.Error() != c.want || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
	for _, text := range []string{"1s delete-records b1 partition -1 before 10", "1s delete-records b1 partition 0 before x", "1s delete-records b1 0 10"} {
		if _, err := faults.Parse(text); err == nil || !strings.Contains(err.Error(), "delete-records") {
			t.Errorf("%s: %v, want a delete-records parse error", text, err)
		}
	}
	p, _ := faults.Parse("1s delete-records b1 partition 1 before 10")
	if err := p.Check(nodes); err != nil {
		t.Errorf("a valid line refused: %v", err)
	}
}

// TestDeleteRecordsWeaken: the knob moves the offset down to 0 (nothing
// deleted); an offset of 0 has nothing to weaken.
func TestDeleteRecordsWeaken(t *testing.T) {
	a := faults.DeleteRecords{Broker: "b1", Part: 0, Before: 120}
	k, ok := a.Weaken()
	if !ok || k.Min != 0 || k.Max != 120 || !k.With(120).Equal(a) {
		t.Fatalf("knob %+v %v", k, ok)
	}
	if w := k.With(7).(faults.DeleteRecords); w.Before != 7 || w.Broker != "b1" {
		t.Errorf("With(7) = %+v", w)
	}
	if _, ok := (faults.DeleteRecords{Broker: "b1"}).Weaken(); ok {
		t.Error("an offset of 0 weakens")
	}
}

// TestGenerateDeleteRecords: the generator draws delete-records only when
// named, for a broker and an existing partition.
func TestGenerateDeleteRecords(t *testing.T) {
	nodes := faults.Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "b2", "c1"}, Brokers: []string{"b1", "b2"}, Partitions: 3}
	k, err := faults.ParseKinds("delete-records")
	if err != nil || faults.GenAll&k != 0 {
		t.Fatalf("ParseKinds: %v %v (all must not include delete-records)", k, err)
	}
	p := faults.Generate(rand.New(rand.NewPCG(1, 2)), faults.GenOptions{Faults: 30, Kinds: k, Window: time.Minute, Nodes: nodes})
	if len(p.Actions) != 30 {
		t.Fatalf("%d actions, want 30", len(p.Actions))
	}
	for _, a := range p.Actions {
		d, ok := a.Action.(faults.DeleteRecords)
		if !ok || d.Part < 0 || d.Part >= 3 || d.Before < 1 || (d.Broker != "b1" && d.Broker != "b2") {
			t.Fatalf("generated %s", a)
		}
	}
	if err := p.Check(nodes); err != nil {
		t.Error(err)
	}
}
