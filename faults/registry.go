package faults

import "strings"

// verbs is every action kind: its plan-text verb and the parser of the
// tokens after the verb, in the order error messages list them. A new
// kind adds its line here.
var verbs = []struct {
	verb  string
	parse func(args []string) (Action, error)
}{
	{"pause", parsePause},
	{"crash", parseCrash},
	{"restart", parseRestart},
	{"partition", parseCut},
	{"partition-oneway", parseCutOneWay},
	{"heal", parseHeal},
	{"heal-oneway", parseHealOneWay},
	{"drop", parseDrop},
	{"drift", parseDrift},
	{"reject", parseReject},
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
