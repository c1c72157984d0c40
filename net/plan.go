package net

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ActionKind is the kind of a fault-plan [Action].
type ActionKind uint8

// Action kinds, with their plan-text verbs.
const (
	// Pause: "pause NODE DUR": the process handles nothing for DUR.
	Pause ActionKind = iota
	// Crash: "crash NODE": the process stops and loses its volatile state.
	Crash
	// Restart: "restart NODE [clean|unclean]": a crashed process starts
	// again from what it persists.
	Restart
	// Partition: "partition A... | B...": no message crosses between the
	// two sets, in either direction.
	Partition
	// PartitionOneWay: "partition-oneway A... > B...": no message goes
	// from a node of A to a node of B.
	PartitionOneWay
	// Heal: "heal A... | B...": ends a partition in both directions.
	Heal
	// HealOneWay: "heal-oneway A... > B...": ends the cut from A to B.
	HealOneWay
	// Drop: "drop request|response N CLIENT>SERVER": the N-th request the
	// client sends to the server in the run (1-based), or its response, is
	// lost.
	Drop
	// Drift: "drift NODE ±PPMppm": the process's timers run slow (+) or
	// fast (-) by PPM parts per million from now on.
	Drift
	// Reject: "reject N CLIENT>SERVER ERROR [partition K]": the server
	// answers the batches of the N-th request the client sends it (only
	// partition K's batch, when given) with the error ERROR, a Kafka error
	// name such as NOT_ENOUGH_REPLICAS, and appends none of them. It is
	// the plan form of a broker's random transient error.
	Reject
)

var actionVerbs = [...]string{"pause", "crash", "restart", "partition", "partition-oneway", "heal", "heal-oneway", "drop", "drift", "reject"}

// String returns the kind's plan-text verb.
func (k ActionKind) String() string {
	if int(k) < len(actionVerbs) {
		return actionVerbs[k]
	}
	return "unknown"
}

// MaxDriftPPM bounds [Action.PPM]: a clock at most twice as slow, and
// never stopped or running backwards.
const MaxDriftPPM = 1_000_000

// Action is one timed fault. Which fields matter depends on Kind; the
// others are zero. Actions are plain values: they print ([Action.AppendTo]),
// parse ([ParsePlan]) and compare ([Action.Equal]).
type Action struct {
	// At is when the action takes effect, >= 0, from the start of the run.
	At   time.Duration
	Kind ActionKind
	// Node is the process of Pause, Crash, Restart and Drift.
	Node string
	// For is the length of a Pause, >= 0.
	For time.Duration
	// Clean is a Restart after a clean shutdown (the broker's snapshot is
	// trusted); false is a restart after a crash.
	Clean bool
	// A and B are the two sides of a partition or heal; for the one-way
	// kinds, messages from A to B. Both non-empty and disjoint.
	A, B []string
	// Dir, N, From and To name a Drop: the response to (or the) N-th
	// request, N >= 1, on the connection From (client) > To (server).
	Dir      Direction
	N        int64
	From, To string
	// PPM is a Drift's rate error in parts per million,
	// -MaxDriftPPM < PPM <= MaxDriftPPM.
	PPM int32
	// Code is a Reject's error name (upper-case Kafka name); N, From and
	// To name its request. Part is the one partition it rejects, or -1
	// for every batch of the request.
	Code string
	Part int32
	// Line is the plan-text line the action came from, 0 if it was not
	// parsed. Equal ignores it.
	Line int
}

// Equal reports whether a and b are the same action (Line aside).
func (a *Action) Equal(b *Action) bool {
	return a.At == b.At && a.Kind == b.Kind && a.Node == b.Node && a.For == b.For && a.Clean == b.Clean &&
		slices.Equal(a.A, b.A) && slices.Equal(a.B, b.B) && a.Dir == b.Dir && a.N == b.N &&
		a.From == b.From && a.To == b.To && a.PPM == b.PPM && a.Code == b.Code && a.Part == b.Part
}

// AppendTo appends the action's plan-text line, without its time and
// without a newline, e.g. "pause p1 25s".
func (a *Action) AppendTo(b []byte) []byte {
	b = append(b, a.Kind.String()...)
	switch a.Kind {
	case Pause:
		b = append(b, ' ')
		b = append(b, a.Node...)
		b = append(b, ' ')
		b = append(b, a.For.String()...)
	case Crash:
		b = append(b, ' ')
		b = append(b, a.Node...)
	case Restart:
		b = append(b, ' ')
		b = append(b, a.Node...)
		if a.Clean {
			b = append(b, " clean"...)
		}
	case Partition, Heal, PartitionOneWay, HealOneWay:
		sep := " |"
		if a.Kind == PartitionOneWay || a.Kind == HealOneWay {
			sep = " >"
		}
		for _, n := range a.A {
			b = append(b, ' ')
			b = append(b, n...)
		}
		b = append(b, sep...)
		for _, n := range a.B {
			b = append(b, ' ')
			b = append(b, n...)
		}
	case Drop:
		if a.Dir == Response {
			b = append(b, " response "...)
		} else {
			b = append(b, " request "...)
		}
		b = strconv.AppendInt(b, a.N, 10)
		b = append(b, ' ')
		b = append(b, a.From...)
		b = append(b, '>')
		b = append(b, a.To...)
	case Drift:
		b = append(b, ' ')
		b = append(b, a.Node...)
		b = append(b, ' ')
		if a.PPM >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(a.PPM), 10)
		b = append(b, "ppm"...)
	case Reject:
		b = append(b, ' ')
		b = strconv.AppendInt(b, a.N, 10)
		b = append(b, ' ')
		b = append(b, a.From...)
		b = append(b, '>')
		b = append(b, a.To...)
		b = append(b, ' ')
		b = append(b, a.Code...)
		if a.Part >= 0 {
			b = append(b, " partition "...)
			b = strconv.AppendInt(b, int64(a.Part), 10)
		}
	}
	return b
}

// String returns the action's full plan-text line, e.g. "3.2s pause p1 25s".
func (a Action) String() string {
	b := append([]byte(a.At.String()), ' ')
	return string(a.AppendTo(b))
}

// Plan is a run's fault plan: timed actions and the end of the fault
// phase. Until End the plan's actions and the network's random fault
// sources are active; at End every fault source turns off, partitions heal
// and paused or crashed processes resume, and the run must then converge.
//
// Actions run at their times; actions at the same time run in plan order.
type Plan struct {
	Actions []Action
	// End is when the fault phase ends, >= every action's time (and every
	// pause's end is cut short by it). 0 means "not set": the world picks
	// its default.
	End time.Duration
}

// Equal reports whether p and q have the same actions, in order, and end.
func (p *Plan) Equal(q *Plan) bool {
	return p.End == q.End && slices.EqualFunc(p.Actions, q.Actions, func(a, b Action) bool { return a.Equal(&b) })
}

// String returns the plan's text: one action per line, then "end DUR"
// when End is set. [ParsePlan] reads it back.
func (p *Plan) String() string {
	var b []byte
	for i := range p.Actions {
		a := &p.Actions[i]
		b = append(b, a.At.String()...)
		b = append(b, ' ')
		b = a.AppendTo(b)
		b = append(b, '\n')
	}
	if p.End != 0 {
		b = append(b, "end "...)
		b = append(b, p.End.String()...)
		b = append(b, '\n')
	}
	return string(b)
}

// Check reports the first action that names a node not in names, or whose
// timing is impossible, as "line N: ..." (or "action N: ..." for an action
// that was not parsed).
func (p *Plan) Check(names []string) error {
	known := func(n string) bool { return slices.Contains(names, n) }
	for i := range p.Actions {
		a := &p.Actions[i]
		var bad string
		switch a.Kind {
		case Pause, Crash, Restart, Drift:
			if !known(a.Node) {
				bad = a.Node
			}
		case Drop, Reject:
			if !known(a.From) {
				bad = a.From
			} else if !known(a.To) {
				bad = a.To
			}
		default:
			for _, n := range slices.Concat(a.A, a.B) {
				if !known(n) {
					bad = n
					break
				}
			}
		}
		if bad != "" {
			return a.errorf(i, "unknown node %q (known: %s)", bad, strings.Join(slices.Sorted(slices.Values(names)), ", "))
		}
		if p.End != 0 && a.At > p.End {
			return a.errorf(i, "action at %v is after the plan's end %v", a.At, p.End)
		}
	}
	return nil
}

func (a *Action) errorf(i int, format string, args ...any) error {
	where := "action " + strconv.Itoa(i+1)
	if a.Line > 0 {
		where = "line " + strconv.Itoa(a.Line)
	}
	return fmt.Errorf(where+": "+format, args...)
}
