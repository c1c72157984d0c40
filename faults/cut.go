package faults

import (
	"fmt"
	"slices"
)

func init() {
	register(kind{verb: "partition", rank: 40, parse: parseCut, example: "5s partition p1 p2 | b1 c1"})
}

// Cut is "partition A... | B...": no message crosses between the two
// sets of nodes, in either direction, until a [Heal] of the same sides.
// Messages already on the wire across the cut are lost too.
type Cut struct {
	// A and B are the two sides: non-empty and disjoint.
	A, B []string
}

func (Cut) Verb() string               { return "partition" }
func (a Cut) AppendTo(b []byte) []byte { return appendSides(b, a.Verb(), '|', a.A, a.B) }
func (a Cut) Nodes() []string          { return slices.Concat(a.A, a.B) }
func (Cut) Check(Nodes) error          { return nil }
func (Cut) Span() Span                 { return UntilClosed }
func (Cut) Closes(Action) bool         { return false }
func (Cut) Weaken() (Knob, bool)       { return Knob{}, false }

func (a Cut) Equal(b Action) bool {
	c, ok := b.(Cut)
	return ok && slices.Equal(a.A, c.A) && slices.Equal(a.B, c.B)
}

// Apply cuts every link between the sides, both ways.
func (a Cut) Apply(t Target) {
	for _, x := range a.A {
		for _, y := range a.B {
			t.Cut(x, y)
			t.Cut(y, x)
		}
	}
}

// parseCut reads "A... | B...".
func parseCut(args []string) (Action, error) {
	a, b, err := parseSides("partition", "|", args)
	if err != nil {
		return nil, err
	}
	return Cut{A: a, B: b}, nil
}

// appendSides appends a partition or heal line: the verb, then the nodes
// of a, sep, the nodes of b.
func appendSides(b []byte, verb string, sep byte, x, y []string) []byte {
	b = append(b, verb...)
	for _, n := range x {
		b = appendNode(b, n)
	}
	b = append(b, ' ', sep)
	for _, n := range y {
		b = appendNode(b, n)
	}
	return b
}

// parseSides reads the tokens "A... SEP B..." of a partition or heal:
// nodes on both sides, none on both.
func parseSides(verb, sep string, args []string) (x, y []string, err error) {
	k := -1
	for j, t := range args {
		if t == sep {
			if k >= 0 {
				return nil, nil, fmt.Errorf("%s: more than one %q", verb, sep)
			}
			k = j
		}
	}
	if k <= 0 || k == len(args)-1 {
		return nil, nil, fmt.Errorf("want \"%s A... %s B...\" with nodes on both sides, e.g. 5s %s p1 %s b1", verb, sep, verb, sep)
	}
	for j, t := range args {
		if j == k {
			continue
		}
		n, err := parseNode(t)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", verb, err)
		}
		if j < k {
			x = append(x, n)
		} else {
			y = append(y, n)
		}
	}
	for _, n := range x {
		if slices.Contains(y, n) {
			return nil, nil, fmt.Errorf("%s: node %s is on both sides", verb, n)
		}
	}
	return x, y, nil
}
