package faults

import (
	"fmt"
	"slices"
	"time"
)

func init() {
	register(kind{verb: "shutdown", rank: 170, parse: parseShutdown, example: "10s shutdown b2 5s"})
}

// Shutdown is "shutdown BROKER DOWN": an operator stops a broker cleanly,
// as a rolling restart does. The broker first asks the controller to move
// its leaderships away (KRaft's controlled shutdown: heartbeats with
// wantShutDown until the controller answers shouldShutDown; see
// docs/operations.md), then stops; it restarts clean Down after it
// stopped (a restart whose time the plan cannot know: the controlled
// shutdown takes from one round trip to a few heartbeats). The plan's end
// restarts a broker still down, clean. Only brokers of a replicated
// world (one with a controller) shut down this way.
type Shutdown struct {
	Node string
	// Down is how long the broker stays stopped before its clean
	// restart, >= 0.
	Down time.Duration
}

func (Shutdown) Verb() string { return "shutdown" }

func (a Shutdown) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Node)
	b = append(b, ' ')
	return append(b, a.Down.String()...)
}

func (a Shutdown) Nodes() []string { return []string{a.Node} }

// Check: only a broker, and only with a controller to move its
// leaderships.
func (a Shutdown) Check(n Nodes) error {
	if !slices.Contains(n.Brokers, a.Node) {
		return fmt.Errorf("shutdown: %s is not a broker (brokers: %v)", a.Node, n.Brokers)
	}
	if len(n.Controllers) == 0 {
		return fmt.Errorf("shutdown %s: a controlled shutdown needs the controller of a replicated world (allowed with brokers >= 2 and replication.factor >= 2)", a.Node)
	}
	return nil
}

func (a Shutdown) Apply(t Target)      { t.Shutdown(a.Node, a.Down) }
func (Shutdown) Span() Span            { return UntilRestarted }
func (Shutdown) Closes(Action) bool    { return false }
func (a Shutdown) Equal(b Action) bool { c, ok := b.(Shutdown); return ok && a == c }

// Weaken shortens the time the broker stays down, down to 0 (a stop and
// an immediate clean restart, which still moves its leaderships).
func (a Shutdown) Weaken() (Knob, bool) {
	return Knob{Max: int64(a.Down), Duration: true, With: func(v int64) Action {
		a.Down = time.Duration(v)
		return a
	}}, true
}

// parseShutdown reads "NODE DOWN".
func parseShutdown(args []string) (Action, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("want \"shutdown BROKER DOWN\", e.g. 10s shutdown b2 5s")
	}
	n, err := parseNode(args[0])
	if err != nil {
		return nil, fmt.Errorf("shutdown: %v", err)
	}
	d, err := parseDur(args[1])
	if err != nil {
		return nil, fmt.Errorf("shutdown downtime %v", err)
	}
	return Shutdown{Node: n, Down: d}, nil
}

// Rolling returns a rolling restart of brokers, in order: broker i is
// asked to shut down at start + i·gap and stays down for down after it
// stopped, then restarts clean. A gap longer than the controlled
// shutdown (up to two broker heartbeat intervals, 4 s by default), down
// and the catch-up restarts one broker at a time.
func Rolling(brokers []string, start, gap, down time.Duration) []Timed {
	out := make([]Timed, len(brokers))
	for i, b := range brokers {
		out[i] = Timed{At: start + time.Duration(i)*gap, Action: Shutdown{Node: b, Down: down}}
	}
	return out
}
