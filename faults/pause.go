package faults

import (
	"fmt"
	"time"
)

func init() {
	register(kind{verb: "pause", rank: 10, parse: parsePause, example: "3.2s pause p1 25s"})
}

// Pause is "pause NODE DUR": the process handles nothing for For (a GC
// pause); what reaches it meanwhile waits and runs when it resumes, in
// its original order.
type Pause struct {
	Node string
	// For is the pause's length, >= 0.
	For time.Duration
}

func (Pause) Verb() string { return "pause" }

func (a Pause) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Node)
	b = append(b, ' ')
	return append(b, a.For.String()...)
}

func (a Pause) Nodes() []string     { return []string{a.Node} }
func (Pause) Check(Nodes) error     { return nil }
func (a Pause) Apply(t Target)      { t.Pause(a.Node, a.For) }
func (Pause) Span() Span            { return UntilResumed }
func (Pause) Closes(Action) bool    { return false }
func (a Pause) Equal(b Action) bool { c, ok := b.(Pause); return ok && a == c }

// Weaken shortens the pause, down to 0.
func (a Pause) Weaken() (Knob, bool) {
	return Knob{Max: int64(a.For), Duration: true, With: func(v int64) Action {
		a.For = time.Duration(v)
		return a
	}}, true
}

// parsePause reads "NODE DUR".
func parsePause(args []string) (Action, error) {
	var a Pause
	if len(args) != 2 {
		return nil, fmt.Errorf("want \"pause NODE DUR\", e.g. 3.2s pause p1 25s")
	}
	var err error
	if a.Node, err = parseNode(args[0]); err != nil {
		return nil, fmt.Errorf("pause: %v", err)
	}
	if a.For, err = parseDur(args[1]); err != nil {
		return nil, fmt.Errorf("pause length %v", err)
	}
	return a, nil
}
