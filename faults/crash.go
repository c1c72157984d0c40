package faults

import "fmt"

func init() {
	register(kind{verb: "crash", rank: 20, parse: parseCrash, example: "12s crash b1"})
}

// Crash is "crash NODE": the process stops and loses its volatile state;
// what reaches it is lost until a [Restart].
type Crash struct {
	Node string
}

func (Crash) Verb() string { return "crash" }

func (a Crash) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	return appendNode(b, a.Node)
}

func (a Crash) Nodes() []string     { return []string{a.Node} }
func (Crash) Check(Nodes) error     { return nil }
func (a Crash) Apply(t Target)      { t.Crash(a.Node) }
func (Crash) Span() Span            { return UntilRestarted }
func (Crash) Closes(Action) bool    { return false }
func (a Crash) Equal(b Action) bool { c, ok := b.(Crash); return ok && a == c }

// Weaken: a crash has no knob; a shrinker shortens it by moving its
// restart earlier.
func (Crash) Weaken() (Knob, bool) { return Knob{}, false }

// parseCrash reads "NODE".
func parseCrash(args []string) (Action, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("want \"crash NODE\", e.g. 12s crash b1")
	}
	n, err := parseNode(args[0])
	if err != nil {
		return nil, fmt.Errorf("crash: %v", err)
	}
	return Crash{Node: n}, nil
}
