package faults

import "slices"

func init() {
	register(kind{verb: "heal-oneway", rank: 70, parse: parseHealOneWay, example: "9s heal-oneway p1 > b1"})
}

// HealOneWay is "heal-oneway A... > B...": it ends a [CutOneWay] from A
// to B.
type HealOneWay struct {
	// A and B are the two sides, messages from A to B healed: non-empty
	// and disjoint.
	A, B []string
}

func (HealOneWay) Verb() string               { return "heal-oneway" }
func (a HealOneWay) AppendTo(b []byte) []byte { return appendSides(b, a.Verb(), '>', a.A, a.B) }
func (a HealOneWay) Nodes() []string          { return slices.Concat(a.A, a.B) }
func (HealOneWay) Check(Nodes) error          { return nil }
func (HealOneWay) Span() Span                 { return Instant }
func (HealOneWay) Weaken() (Knob, bool)       { return Knob{}, false }

func (a HealOneWay) Equal(b Action) bool {
	c, ok := b.(HealOneWay)
	return ok && slices.Equal(a.A, c.A) && slices.Equal(a.B, c.B)
}

// Closes reports whether opener is a one-way partition of the same
// sides, as sets: the order of each side's nodes does not matter.
func (a HealOneWay) Closes(opener Action) bool {
	_, ok := opener.(CutOneWay)
	return ok && sidesKey(opener) == sidesKey(a)
}

// Apply heals every link from A to B.
func (a HealOneWay) Apply(t Target) {
	for _, x := range a.A {
		for _, y := range a.B {
			t.Heal(x, y)
		}
	}
}

// parseHealOneWay reads "A... > B...".
func parseHealOneWay(args []string) (Action, error) {
	a, b, err := parseSides("heal-oneway", ">", args)
	if err != nil {
		return nil, err
	}
	return HealOneWay{A: a, B: b}, nil
}
