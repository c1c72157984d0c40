package faults

import (
	"fmt"
	"time"
)

func init() {
	register(kind{verb: "mute-heartbeat", rank: 211, parse: parseMuteHeartbeat, example: "3.2s mute-heartbeat p1 15s"})
}

// MuteHeartbeat is "mute-heartbeat NODE DUR": group member NODE's
// heartbeat thread sends nothing for DUR (a starved thread) while its
// application polls, sends and commits on. A silence longer than
// session.timeout.ms makes the group coordinator remove the member and
// rebalance (Kafka 3.9 group-coordinator/src/main/java/org/apache/kafka/
// coordinator/group/GroupMetadataManager.java, the classic member's
// session timeout: onClassicGroupMemberSessionTimeout); the member learns
// it from the answer to its next heartbeat or commit (UNKNOWN_MEMBER_ID
// or ILLEGAL_GENERATION; AbstractCoordinator.HeartbeatResponseHandler,
// ConsumerCoordinator.OffsetCommitResponseHandler, and for a
// transaction TxnOffsetCommit's answer, a CommitFailedException) and
// rejoins. The plan's end cuts the silence short. Only a member of a
// consumer group takes one.
type MuteHeartbeat struct {
	Node string
	// For is the silence's length, >= 0.
	For time.Duration
}

func (MuteHeartbeat) Verb() string { return "mute-heartbeat" }

func (a MuteHeartbeat) AppendTo(b []byte) []byte {
	b = append(b, a.Verb()...)
	b = appendNode(b, a.Node)
	b = append(b, ' ')
	return append(b, a.For.String()...)
}

func (a MuteHeartbeat) Nodes() []string     { return []string{a.Node} }
func (a MuteHeartbeat) Check(n Nodes) error { return checkMember("mute-heartbeat", a.Node, n) }

func (MuteHeartbeat) Span() Span            { return Instant }
func (MuteHeartbeat) Closes(Action) bool    { return false }
func (a MuteHeartbeat) Equal(b Action) bool { c, ok := b.(MuteHeartbeat); return ok && a == c }

// Weaken shortens the silence, down to 0.
func (a MuteHeartbeat) Weaken() (Knob, bool) {
	return Knob{Max: int64(a.For), Duration: true, With: func(v int64) Action {
		a.For = time.Duration(v)
		return a
	}}, true
}

// parseMuteHeartbeat reads "NODE DUR".
func parseMuteHeartbeat(args []string) (Action, error) {
	var a MuteHeartbeat
	if len(args) != 2 {
		return nil, fmt.Errorf("want \"mute-heartbeat NODE DUR\", e.g. 3.2s mute-heartbeat p1 15s")
	}
	var err error
	if a.Node, err = parseNode(args[0]); err != nil {
		return nil, fmt.Errorf("mute-heartbeat: %v", err)
	}
	if a.For, err = parseDur(args[1]); err != nil {
		return nil, fmt.Errorf("mute-heartbeat length %v", err)
	}
	return a, nil
}

// Apply silences the heartbeat through a [MemberTarget]; a target without
// group members ignores it.
func (a MuteHeartbeat) Apply(t Target) {
	if m, ok := t.(MemberTarget); ok {
		m.MuteHeartbeat(a.Node, a.For)
	}
}
