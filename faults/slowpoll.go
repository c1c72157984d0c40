package faults

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

func init() {
	register(kind{verb: "slow-poll", rank: 210, parse: parseSlowPoll, example: "3.2s slow-poll p1 40s"})
}

// SlowPoll is "slow-poll NODE DUR": group member NODE's application takes
// a processing step of DUR between two polls (a slow record, a blocking
// call). Its consumer does not poll meanwhile, and the application's
// sends and commits wait with it, as a busy application thread's would;
// the consumer's heartbeat thread goes on. A step longer than
// max.poll.interval.ms makes the member leave the group: the heartbeat
// thread finds the poll timer expired and sends LeaveGroup (Kafka 3.9
// clients/src/main/java/org/apache/kafka/clients/consumer/internals/
// AbstractCoordinator.java, HeartbeatThread.run: heartbeat
// .pollTimeoutExpired(now) -> maybeLeaveGroup("consumer poll timeout has
// expired.")). The plan's end cuts a step short. Only a member of a
// consumer group (app.mode=exactly-once-v2 or exactly-once-groupid) takes
// one.
type SlowPoll struct {
	Node string
	// For is the step's length, >= 0.
	For time.Duration
}

func (SlowPoll) Verb() string { return "slow-poll" }

func (a SlowPoll) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Node)
	b = append(b, ' ')
	return append(b, a.For.String()...)
}

func (a SlowPoll) Nodes() []string     { return []string{a.Node} }
func (a SlowPoll) Check(n Nodes) error { return checkMember("slow-poll", a.Node, n) }

func (SlowPoll) Span() Span            { return Instant }
func (SlowPoll) Closes(Action) bool    { return false }
func (a SlowPoll) Equal(b Action) bool { c, ok := b.(SlowPoll); return ok && a == c }

// Weaken shortens the step, down to 0.
func (a SlowPoll) Weaken() (Knob, bool) {
	return Knob{Max: int64(a.For), Duration: true, With: func(v int64) Action {
		a.For = time.Duration(v)
		return a
	}}, true
}

// parseSlowPoll reads "NODE DUR".
func parseSlowPoll(args []string) (Action, error) {
	var a SlowPoll
	if len(args) != 2 {
		return nil, fmt.Errorf("want \"slow-poll NODE DUR\", e.g. 3.2s slow-poll p1 40s")
	}
	var err error
	if a.Node, err = parseNode(args[0]); err != nil {
		return nil, fmt.Errorf("slow-poll: %v", err)
	}
	if a.For, err = parseDur(args[1]); err != nil {
		return nil, fmt.Errorf("slow-poll length %v", err)
	}
	return a, nil
}

// checkMember checks that node is a consumer group member.
func checkMember(verb, node string, n Nodes) error {
	if slices.Contains(n.Members, node) {
		return nil
	}
	if len(n.Members) == 0 {
		return fmt.Errorf("%s %s: this world has no consumer group member (allowed with app.mode=exactly-once-v2 or exactly-once-groupid)", verb, node)
	}
	return fmt.Errorf("%s: %s is not a consumer group member (members: %s)", verb, node, strings.Join(n.Members, ", "))
}

// Apply takes the step through a [MemberTarget]; a target without group
// members ignores it.
func (a SlowPoll) Apply(t Target) {
	if m, ok := t.(MemberTarget); ok {
		m.SlowPoll(a.Node, a.For)
	}
}
