package faults

import "testing"

// examples has one plan line per verb; a new kind adds its own.
var examples = map[string]string{
	"pause":            "3.2s pause p1 25s",
	"crash":            "12s crash b1",
	"restart":          "14s restart b1 clean",
	"partition":        "5s partition p1 p2 | b1 c1",
	"partition-oneway": "5s partition-oneway p1 > b1",
	"heal":             "9s heal p1 p2 | b1 c1",
	"heal-oneway":      "9s heal-oneway p1 > b1",
	"drop":             "0s drop response 17 p1>b1",
	"drift":            "0s drift p1 +200ppm",
	"reject":           "0s reject 6 p1>b1 NOT_LEADER_OR_FOLLOWER partition 1",
}

// TestRegistry: every registered verb has an example line that parses
// into an action of that verb, prints back unchanged, equals itself and
// names its nodes.
func TestRegistry(t *testing.T) {
	if len(examples) != len(verbs) {
		t.Errorf("%d examples for %d verbs", len(examples), len(verbs))
	}
	for _, v := range verbs {
		line, ok := examples[v.verb]
		if !ok {
			t.Errorf("verb %s: no example", v.verb)
			continue
		}
		p, err := Parse(line)
		if err != nil || len(p.Actions) != 1 {
			t.Errorf("%s: %v", line, err)
			continue
		}
		a := p.Actions[0]
		if a.Verb() != v.verb || a.String() != line || !a.Equal(a) || len(a.Nodes()) == 0 {
			t.Errorf("%s: verb %q, prints %q, nodes %v", line, a.Verb(), a.String(), a.Nodes())
		}
	}
}
