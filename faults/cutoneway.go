package faults

import "slices"

func init() {
	register(kind{verb: "partition-oneway", rank: 50, parse: parseCutOneWay, example: "5s partition-oneway p1 > b1"})
}

// CutOneWay is "partition-oneway A... > B...": no message goes from a
// node of A to a node of B, until a [HealOneWay] of the same sides;
// messages from B to A still flow.
type CutOneWay struct {
	// A and B are the two sides, messages from A to B cut: non-empty and
	// disjoint.
	A, B []string
}

func (CutOneWay) Verb() string               { return "partition-oneway" }
func (a CutOneWay) AppendTo(b []byte) []byte { return appendSides(b, a.Verb(), '>', a.A, a.B) }
func (a CutOneWay) Nodes() []string          { return slices.Concat(a.A, a.B) }
func (CutOneWay) Check(Nodes) error          { return nil }
func (CutOneWay) Span() Span                 { return UntilClosed }
func (CutOneWay) Closes(Action) bool         { return false }
func (CutOneWay) Weaken() (Knob, bool)       { return Knob{}, false }

func (a CutOneWay) Equal(b Action) bool {
	c, ok := b.(CutOneWay)
	return ok && slices.Equal(a.A, c.A) && slices.Equal(a.B, c.B)
}

// Apply cuts every link from A to B.
func (a CutOneWay) Apply(t Target) {
	for _, x := range a.A {
		for _, y := range a.B {
			t.Cut(x, y)
		}
	}
}

// parseCutOneWay reads "A... > B...".
func parseCutOneWay(args []string) (Action, error) {
	a, b, err := parseSides("partition-oneway", ">", args)
	if err != nil {
		return nil, err
	}
	return CutOneWay{A: a, B: b}, nil
}
