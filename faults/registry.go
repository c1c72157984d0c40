package faults

import "strings"

// verbs is every action kind: its plan-text verb, the parser of the
// tokens after the verb, and an example plan line (the tests parse and
// print it back), in the order error messages list them. A new kind adds
// its line here.
var verbs = []struct {
	verb    string
	parse   func(args []string) (Action, error)
	example string
}{
	{"pause", parsePause, "3.2s pause p1 25s"},
	{"crash", parseCrash, "12s crash b1"},
	{"restart", parseRestart, "14s restart b1 clean"},
	{"partition", parseCut, "5s partition p1 p2 | b1 c1"},
	{"partition-oneway", parseCutOneWay, "5s partition-oneway p1 > b1"},
	{"heal", parseHeal, "9s heal p1 p2 | b1 c1"},
	{"heal-oneway", parseHealOneWay, "9s heal-oneway p1 > b1"},
	{"drop", parseDrop, "0s drop response 17 p1>b1"},
	{"drift", parseDrift, "0s drift p1 +200ppm"},
	{"reject", parseReject, "0s reject 6 p1>b1 NOT_LEADER_OR_FOLLOWER partition 1"},
	{"stall", parseStall, "3s stall b1 2s"},
	{"delay", parseDelay, "0s delay request 3 p1>b1"},
	{"duplicate", parseDuplicate, "0s duplicate response 3 p1>b1"},
	{"late", parseLate, "0s late EndTxn 1 p1>c1 3s"},
}

// lookup returns verb's parser, nil for an unknown verb.
func lookup(verb string) func(args []string) (Action, error) {
	for _, v := range verbs {
		if v.verb == verb {
			return v.parse
		}
	}
	return nil
}

// verbList returns the verbs, comma-separated.
func verbList() string {
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.verb
	}
	return strings.Join(names, ", ")
}
