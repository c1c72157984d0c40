package faults

import "slices"

func init() {
	register(kind{verb: "heal", rank: 60, parse: parseHeal, example: "9s heal p1 p2 | b1 c1"})
}

// Heal is "heal A... | B...": it ends a [Cut] between the two sets, both
// ways.
type Heal struct {
	// A and B are the two sides: non-empty and disjoint.
	A, B []string
}

func (Heal) Verb() string               { return "heal" }
func (a Heal) AppendTo(b []byte) []byte { return appendSides(b, a.Verb(), '|', a.A, a.B) }
func (a Heal) Nodes() []string          { return slices.Concat(a.A, a.B) }
func (Heal) Check(Nodes) error          { return nil }
func (Heal) Span() Span                 { return Instant }
func (Heal) Weaken() (Knob, bool)       { return Knob{}, false }

func (a Heal) Equal(b Action) bool {
	c, ok := b.(Heal)
	return ok && slices.Equal(a.A, c.A) && slices.Equal(a.B, c.B)
}

// Closes reports whether opener is a partition of the same sides, as
// sets: the order of the nodes and of the two sides does not matter.
func (a Heal) Closes(opener Action) bool {
	_, ok := opener.(Cut)
	return ok && sidesKey(opener) == sidesKey(a)
}

// Apply heals every link between the sides, both ways.
func (a Heal) Apply(t Target) {
	for _, x := range a.A {
		for _, y := range a.B {
			t.Heal(x, y)
			t.Heal(y, x)
		}
	}
}

// parseHeal reads "A... | B...".
func parseHeal(args []string) (Action, error) {
	a, b, err := parseSides("heal", "|", args)
	if err != nil {
		return nil, err
	}
	return Heal{A: a, B: b}, nil
}
