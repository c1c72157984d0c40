package faults

import "fmt"

func init() {
	register(kind{verb: "restart", rank: 30, parse: parseRestart, example: "14s restart b1 clean"})
}

// Restart is "restart NODE [clean|unclean]": a crashed process starts
// again from what it persists. It ends the node's [Crash].
type Restart struct {
	Node string
	// Clean is a restart after a clean shutdown (the broker's snapshot
	// is trusted); false (the default, "unclean") after a crash.
	Clean bool
}

func (Restart) Verb() string { return "restart" }

func (a Restart) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Node)
	if a.Clean {
		b = append(b, " clean"...)
	}
	return b
}

func (a Restart) Nodes() []string     { return []string{a.Node} }
func (Restart) Check(Nodes) error     { return nil }
func (a Restart) Apply(t Target)      { t.Restart(a.Node, a.Clean) }
func (Restart) Span() Span            { return Instant }
func (Restart) Weaken() (Knob, bool)  { return Knob{}, false }
func (a Restart) Equal(b Action) bool { c, ok := b.(Restart); return ok && a == c }

// Closes reports whether opener is a crash of the same node.
func (a Restart) Closes(opener Action) bool {
	c, ok := opener.(Crash)
	return ok && c.Node == a.Node
}

// parseRestart reads "NODE [clean|unclean]".
func parseRestart(args []string) (Action, error) {
	var a Restart
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("want \"restart NODE [clean|unclean]\", e.g. 14s restart b1 clean")
	}
	var err error
	if a.Node, err = parseNode(args[0]); err != nil {
		return nil, fmt.Errorf("restart: %v", err)
	}
	if len(args) == 2 {
		switch args[1] {
		case "clean":
			a.Clean = true
		case "unclean":
		default:
			return nil, fmt.Errorf("restart: %q is not allowed (allowed: clean, unclean)", args[1])
		}
	}
	return a, nil
}
