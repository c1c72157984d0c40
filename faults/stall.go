package faults

import (
	"fmt"
	"time"
)

func init() {
	register(kind{verb: "stall", rank: 110, parse: parseStall, example: "3s stall b1 2s"})
}

// Stall is "stall NODE DUR": a server's request handlers stop for For, as
// when its disk or a log lock stalls, while its network threads keep
// accepting and buffering requests and its timers keep running. Unlike
// [Pause], which stops the whole process, a stall stops only the reading
// and handling of requests: producer-state expiry and transaction timeouts
// still run, and what arrived meanwhile is read and handled in order when
// the stall ends (a request already read is handled to the end even if
// its connection broke: Kafka's SocketServer mutes a connection until its
// response is sent, and Processor.sendResponse drops a response for a
// closed channel). Only servers stall.
type Stall struct {
	Node string
	// For is the stall's length, >= 0.
	For time.Duration
}

func (Stall) Verb() string { return "stall" }

func (a Stall) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Node)
	b = append(b, ' ')
	return append(b, a.For.String()...)
}

func (a Stall) Nodes() []string { return []string{a.Node} }

// Check: only a server (a broker or the coordinator) has request handlers.
func (a Stall) Check(n Nodes) error {
	for _, s := range n.Servers {
		if s == a.Node {
			return nil
		}
	}
	return fmt.Errorf("stall: %s is not a server (servers: %v)", a.Node, n.Servers)
}

func (a Stall) Apply(t Target)      { t.Stall(a.Node, a.For) }
func (Stall) Span() Span            { return UntilResumed }
func (Stall) Closes(Action) bool    { return false }
func (a Stall) Equal(b Action) bool { c, ok := b.(Stall); return ok && a == c }

// Weaken shortens the stall, down to 0.
func (a Stall) Weaken() (Knob, bool) {
	return Knob{Max: int64(a.For), Duration: true, With: func(v int64) Action {
		a.For = time.Duration(v)
		return a
	}}, true
}

// parseStall reads "NODE DUR".
func parseStall(args []string) (Action, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("want \"stall NODE DUR\", e.g. 3s stall b1 2s")
	}
	n, err := parseNode(args[0])
	if err != nil {
		return nil, fmt.Errorf("stall: %v", err)
	}
	d, err := parseDur(args[1])
	if err != nil {
		return nil, fmt.Errorf("stall length %v", err)
	}
	return Stall{Node: n, For: d}, nil
}
