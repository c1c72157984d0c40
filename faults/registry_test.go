package faults

import (
	"strings"
	"testing"
)

// TestRegistry: every registered verb has an example line that parses
// into an action of that verb, prints back unchanged, equals itself and
// names its nodes (but elect-preferred, which goes to the controller and
// names none).
func TestRegistry(t *testing.T) {
	for _, v := range verbs {
		line := v.example
		p, err := Parse(line)
		if err != nil || len(p.Actions) != 1 {
			t.Errorf("%s: %v", line, err)
			continue
		}
		a := p.Actions[0]
		if a.Verb() != v.verb || a.String() != line || !a.Equal(a) || len(a.Nodes()) == 0 && v.verb != "elect-preferred" {
			t.Errorf("%s: verb %q, prints %q, nodes %v", line, a.Verb(), a.String(), a.Nodes())
		}
	}
}

// TestVerbOrder: the kinds' ranks keep the verbs in the order error
// messages have always listed them; a new kind goes at the end (or
// between two, on purpose).
func TestVerbOrder(t *testing.T) {
	const want = "pause, crash, restart, partition, partition-oneway, heal, heal-oneway, drop, drift, reject, stall, delay, duplicate, late"
	if got := verbList(); !strings.HasPrefix(got, want) {
		t.Errorf("verbs listed as\n%s\nwant them to start with\n%s", got, want)
	}
}
