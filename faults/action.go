package faults

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	simnet "github.com/idemsim/idemsim/net"
)

// Action is one kind of fault: what happens, without when (a plan pairs
// it with its time in a [Timed]). Each kind is one type in a file of its
// own, which registers its parser from an init function (registry.go).
// Actions are plain values: they print ([Action.AppendTo]), parse
// ([Parse]) and compare ([Action.Equal]).
type Action interface {
	// Verb returns the action's plan-text verb, e.g. "pause".
	Verb() string
	// AppendTo appends the action's plan-text line without its time and
	// without a newline, e.g. "pause p1 25s". The verb's parser reads
	// it back.
	AppendTo(b []byte) []byte
	// Nodes returns the nodes the action names, in plan-text order.
	Nodes() []string
	// Check reports what keeps the world's nodes from carrying the
	// action out, beyond naming unknown nodes ([Plan.Check] checks
	// those): e.g. a drop's link must go from a client to a server. The
	// error names no line; [Plan.Check] adds it.
	Check(n Nodes) error
	// Apply carries the action out on the world.
	Apply(t Target)
	// Equal reports whether b is the same action.
	Equal(b Action) bool
	// Span tells how a timeline draws the action: an instant, or an
	// interval and what ends it.
	Span() Span
	// Closes reports whether the action ends the interval opener
	// started: a heal ends its partition, a restart its node's crash.
	Closes(opener Action) bool
	// Weaken returns the knob that weakens the action, for shrinking,
	// and false if the action has none.
	Weaken() (Knob, bool)
}

// Timed is one line of a plan: an action and when it takes effect.
type Timed struct {
	// At is when the action takes effect, >= 0, from the start of the
	// run.
	At time.Duration
	Action
	// Line is the plan-text line the action came from, 0 if it was not
	// parsed. Equal ignores it.
	Line int
}

// Equal reports whether t and u are the same action at the same time
// (Line aside).
func (t Timed) Equal(u Timed) bool {
	return t.At == u.At && t.Action.Equal(u.Action)
}

// String returns the action's full plan-text line, e.g. "3.2s pause p1 25s".
func (t Timed) String() string {
	b := append([]byte(t.At.String()), ' ')
	return string(t.AppendTo(b))
}

// errorf returns an error about the action at index i of a plan, as
// "line N: ..." (or "action N: ..." for an action that was not parsed).
func (t *Timed) errorf(i int, format string, args ...any) error {
	where := "action " + strconv.Itoa(i+1)
	if t.Line > 0 {
		where = "line " + strconv.Itoa(t.Line)
	}
	return fmt.Errorf(where+": "+format, args...)
}

// Target is the world an action acts on. Nodes are named as in the plan;
// [Plan.Check] has checked them (and [Action.Check] the rest) before any
// action applies.
type Target interface {
	// Pause makes node handle nothing for d: what reaches it waits. The
	// plan's end cuts a pause short.
	Pause(node string, d time.Duration)
	// Stall stops server node's request handlers for d: requests keep
	// arriving and its timers keep running. The plan's end cuts a stall
	// short.
	Stall(node string, d time.Duration)
	// Crash stops node: it loses its volatile state, and what reaches
	// it is lost.
	Crash(node string)
	// Restart starts a crashed node again from what it persists; clean
	// after a clean shutdown.
	Restart(node string, clean bool)
	// Shutdown asks broker node to stop after a controlled shutdown and
	// to restart clean down after it stopped.
	Shutdown(node string, down time.Duration)
	// Cut drops every message from one node to another, those on the
	// wire included, until Heal.
	Cut(from, to string)
	// Heal ends the cut from one node to another.
	Heal(from, to string)
	// ArmDrop arms a rule that loses the n-th request client sends to
	// server in the run, or its response (dir).
	ArmDrop(dir simnet.Direction, n int64, client, server string)
	// SetDrift makes node's timers run slow (ppm > 0) or fast by ppm
	// parts per million from now on.
	SetDrift(node string, ppm int32)
	// ArmReject arms a rule that makes server answer the batches of the
	// n-th request client sends it (only partition part's, when part >=
	// 0) with the error code and append none of them.
	ArmReject(n int64, client, server, code string, part int32)
	// ArmDelay arms a rule that holds the n-th request client sends to
	// server in the run, or its response (dir), until a message on
	// another connection has arrived after it would have ([Delay]).
	ArmDelay(dir simnet.Direction, n int64, client, server string)
	// ArmDuplicate arms a rule that delivers the n-th request client
	// sends to server in the run, or its response (dir), twice
	// ([Duplicate]; datagram mode).
	ArmDuplicate(dir simnet.Direction, n int64, client, server string)
	// AbortTransaction has the admin node run an operator's abort
	// command ([AbortTxn]).
	AbortTransaction(a AbortTxn)
	// ArmLate arms a rule that delivers the n-th request client sends to
	// server (the n-th of type typ, when typ is not "") d late, and has
	// the server handle it whatever happened to its connection ([Late]).
	ArmLate(typ string, n int64, client, server string, d time.Duration)
	// DeleteRecords hands an operator's DeleteRecords for partition part
	// before offset before to broker server ([DeleteRecords]).
	DeleteRecords(server string, part int32, before int64)
	// ElectPreferred hands the controller an operator's preferred-leader
	// election for partitions parts, all of them when empty
	// ([ElectPreferred]).
	ElectPreferred(parts []int32)
	// Reassign hands the controller an operator's reassignment of
	// partition part to the brokers replicas ([Reassign]).
	Reassign(part int32, replicas []string)
}

// MemberTarget is a [Target] with consumer group members: the faults of
// a member ([SlowPoll], [MuteHeartbeat]) apply through it, and do nothing
// on a Target without it (one that runs no group).
type MemberTarget interface {
	Target
	// SlowPoll has group member node's application take a processing
	// step of d: no poll, send or commit meanwhile ([SlowPoll]).
	SlowPoll(node string, d time.Duration)
	// MuteHeartbeat silences group member node's heartbeat thread for d
	// ([MuteHeartbeat]).
	MuteHeartbeat(node string, d time.Duration)
}

// Span is how long an action's effect lasts, as a timeline draws it.
// Every interval ends at the plan's end at the latest.
type Span uint8

const (
	// Instant: the action happens at its time (a restart, a heal, a
	// drift, an armed drop or reject).
	Instant Span = iota
	// UntilResumed: the action's node is out until it resumes (a
	// pause).
	UntilResumed
	// UntilRestarted: the action's node is out until it restarts (a
	// crash, until a restart that [Action.Closes] it).
	UntilRestarted
	// UntilClosed: the action is in effect until a later action
	// [Action.Closes] it (a partition, until its heal).
	UntilClosed
)

// Knob is how an action weakens, for shrinking: one number v whose value
// for the action itself is Max. With(v), for Min <= v < Max, is a weaker
// action, the weaker the smaller v.
type Knob struct {
	Min, Max int64
	With     func(v int64) Action
	// Duration tells that v is a time.Duration: a shrinker may search
	// it at millisecond resolution and prefer round values.
	Duration bool
}

// Nodes names a world's processes, for plan checks and generation.
type Nodes struct {
	// Clients are the producer processes (p1, p2, ...).
	Clients []string
	// Servers are the broker and coordinator processes (b1, c1).
	Servers []string
	// Brokers are the servers that hold partitions (b1, b2, ...), a
	// subset of Servers. The generator uses them only in a replicated
	// world (Controllers not empty).
	Brokers []string
	// Controllers are the KRaft controller of a replicated world (n1), a
	// subset of Servers; empty without replication.
	Controllers []string
	// Admins are the admin nodes (a1) of a world that has one, apart
	// from Clients and Servers: only operator actions name them
	// ([AbortTxn]), and the generator never does.
	Admins []string
	// Partitions is the topic's partition count (delete-records and
	// abort-transaction name one of them).
	Partitions int32
	// Members are the Clients that are consumer group members (a group
	// application's instances): slow-poll and mute-heartbeat name them.
	Members []string
}

// all returns every node name.
func (n Nodes) all() []string { return slices.Concat(n.Clients, n.Servers) }

// appendNode appends ' ' and a node name.
func appendNode(b []byte, node string) []byte {
	b = append(b, ' ')
	return append(b, node...)
}

// appendLink appends " CLIENT>SERVER".
func appendLink(b []byte, from, to string) []byte {
	b = appendNode(b, from)
	b = append(b, '>')
	return append(b, to...)
}
