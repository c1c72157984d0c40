package faults

import (
	"fmt"
	"slices"
	"strings"
)

// kind is the registration of one kind of action: its plan-text verb,
// its place in the verb lists of error messages, the parser of the tokens
// after the verb, and an example plan line (the tests parse and print it
// back). Each kind's file registers it from an init function:
//
//	func init() {
//		register(kind{verb: "crash", rank: 20, parse: parseCrash, example: "12s crash b1"})
//	}
type kind struct {
	verb string
	// rank places the verb in the lists of error messages ("allowed:
	// pause, crash, ..."), smallest first. The kinds here take multiples
	// of 10, so that a new kind goes at the end, or between two, without
	// renumbering the others.
	rank    int
	parse   func(args []string) (Action, error)
	example string
}

// verbs is every registered kind, by rank.
var verbs []kind

// register adds a kind of action. It panics if another kind has the verb
// or the rank: each verb parses one way, and the listed order is fixed.
func register(k kind) {
	for _, v := range verbs {
		if v.verb == k.verb || v.rank == k.rank {
			panic(fmt.Sprintf("faults: kind %q (rank %d) registered after %q (rank %d)", k.verb, k.rank, v.verb, v.rank))
		}
	}
	i, _ := slices.BinarySearchFunc(verbs, k.rank, func(v kind, r int) int { return v.rank - r })
	verbs = slices.Insert(verbs, i, k)
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

// verbList returns the verbs, comma-separated, by rank.
func verbList() string {
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.verb
	}
	return strings.Join(names, ", ")
}
