package faults_test

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/faults"
)

// TestAbortTxn: the three forms print and parse back equal, Check
// refuses a node that is not an admin and a partition the topic does not
// have with one line, and the parser names what is wrong.
func TestAbortTxn(t *testing.T) {
	nodes := faults.Nodes{Clients: []string{"p1"}, Servers: []string{"b1", "c1"}, Brokers: []string{"b1"}, Admins: []string{"a1"}, Partitions: 2}
	for _, line := range []string{
		"20s abort-transaction a1 partition 1",
		"20s abort-transaction a1 partition 0 start-offset 7",
		"20s abort-transaction a1 partition 1 producer 1000 epoch 3 coordinator-epoch 2",
	} {
		p, err := faults.Parse(line)
		if err != nil || len(p.Actions) != 1 || p.Actions[0].String() != line {
			t.Fatalf("%s: %v %v", line, err, p.Actions)
		}
		if err := p.Check(nodes); err != nil {
			t.Errorf("%s: %v", line, err)
		}
		if _, ok := p.Actions[0].Weaken(); ok {
			t.Errorf("%s: a knob", line)
		}
	}
	checks := []struct{ text, want string }{
		{"1s abort-transaction a1 partition 2", "line 1: abort-transaction: the topic has no partition 2 (allowed: 0..1)"},
		{"1s abort-transaction b1 partition 0", "line 1: abort-transaction: b1 is not an admin node (admin nodes: a1)"},
		{"1s abort-transaction a2 partition 0", `line 1: unknown node "a2" (known: a1, b1, c1, p1)`},
	}
	for _, c := range checks {
		p, err := faults.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(nodes); err == nil || err.Error() != c.want {
			t.Errorf("Check(%q) = %v, want %q", c.text, err, c.want)
		}
	}
	parses := []struct{ text, want string }{
		{"1s abort-transaction a1 p0", `line 1: want "abort-transaction ADMIN partition K [start-offset N | producer PID epoch E coordinator-epoch C]"`},
		{"1s abort-transaction a1 partition -1", `line 1: abort-transaction: partition "-1" is not allowed`},
		{"1s abort-transaction a1 partition 0 start 3", `line 1: want "abort-transaction ADMIN`},
		{"1s abort-transaction a1 partition 0 producer 1 epoch 70000 coordinator-epoch 0", `line 1: abort-transaction: epoch "70000" is not allowed`},
		{"1s abort-transaction 1a partition 0", `line 1: abort-transaction: "1a" is not a node name`},
	}
	for _, c := range parses {
		if _, err := faults.Parse(c.text); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q...", c.text, err, c.want)
		}
	}
}
