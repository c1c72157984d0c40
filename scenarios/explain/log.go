package explain

import (
	"fmt"
	"slices"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/trace"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// LogKind is the kind of a [LogEvent].
type LogKind uint8

// Log entry kinds.
const (
	// LogSend: From sends the message Text to To. Fate is "" when it
	// arrived at Arrive, else why it was lost (at Arrive, or at At when
	// it never left).
	LogSend LogKind = iota
	// LogBatch: the broker From's verdict on one batch, Text.
	LogBatch
	// LogApp: application From hands record Text to producer To.
	LogApp
	// LogOutcome: producer From tells application To the outcome Text.
	LogOutcome
	// LogFault: fault-plan action Text on Nodes, in effect until Until
	// (pauses, crashes, partitions; 0 for instant actions).
	LogFault
	// LogNote: something From does or that happens to it, Text (a start,
	// a resume, a restart, the plan's end).
	LogNote
	// LogViolation: invariant From broke, Text the detail.
	LogViolation
)

// Log is a run's compact event log, for sequence diagrams and timelines:
// typed entries in time order. [Record] asks a run for it.
type Log struct {
	// Nodes are the world's processes: producer instances p1.., b1, c1.
	Nodes []string
	// Brokers are the broker nodes among Nodes, b1 first.
	Brokers []string
	// Apps are the applications, "app0", "app1", ...
	Apps []string
	// End is when the run ended; PlanEnd when its fault phase ended.
	End, PlanEnd sim.Time
	Entries      []LogEvent
}

// LogEvent is one event of a [Log]; which fields matter depends on Kind.
type LogEvent struct {
	At       sim.Time
	Kind     LogKind
	From, To string
	Text     string
	Fate     string
	Arrive   sim.Time
	Until    sim.Time
	Nodes    []string
}

// explainLog reads the observation stream and builds the run's [Log].
type explainLog struct {
	log   *Log
	names []string
	plan  *faults.Plan
	// sendAt maps a message id to its send entry.
	sendAt map[uint64]int
	// intervals are the fault entries that open an interval, with their
	// actions.
	intervals []interval
	// servers marks the servers' node ids in a replicated run, whose
	// notes (elections, ISR changes, truncations) the log keeps; nil
	// otherwise.
	servers []bool
	// ended is set once the run ended and the log is finished.
	ended bool
}

// interval is a fault entry that opens an interval: until Until is set,
// it is open.
type interval struct {
	entry int
	a     faults.Action
}

func newExplainLog(l *world.Layout) *explainLog {
	x := &explainLog{log: &Log{Nodes: slices.Clone(l.Names)}, names: l.Names, plan: l.Plan, sendAt: make(map[uint64]int), servers: l.Servers}
	for _, b := range l.Brokers {
		x.log.Brokers = append(x.log.Brokers, l.Names[b])
	}
	for a := range l.Apps {
		x.log.Apps = append(x.log.Apps, fmt.Sprintf("app%d", a))
	}
	return x
}

// Held is the number of entries the log holds: they count in the run's
// state (scenarios.Spec.MaxState).
func (x *explainLog) Held() int64 { return int64(len(x.log.Entries)) }

// End finishes the log at the run's end.
func (x *explainLog) End(e *world.RunEnd) {
	x.finish(e.At, e.PlanEnd, e.Violations)
	x.ended = true
}

func (x *explainLog) add(e LogEvent) int {
	x.log.Entries = append(x.log.Entries, e)
	return len(x.log.Entries) - 1
}

// Observe adds o's entry, if it has one.
func (x *explainLog) Observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsSent:
		e := LogEvent{At: o.At, Kind: LogSend, From: x.names[o.Node], To: x.names[o.Peer], Text: string(o.Msg.AppendDescription(nil)), Arrive: o.At}
		if o.Fate != "" {
			e.Fate = o.Fate
			if o.Forced {
				e.Fate += " (plan)"
			}
			x.add(e)
			return
		}
		x.sendAt[o.MsgID] = x.add(e)
	case model.ObsDelivered, model.ObsLost:
		i, ok := x.sendAt[o.MsgID]
		if !ok {
			return // a duplicate copy
		}
		delete(x.sendAt, o.MsgID)
		e := &x.log.Entries[i]
		e.Arrive = o.At
		if o.Kind == model.ObsLost {
			e.Fate = o.Fate
		}
	case model.ObsVerdict:
		x.add(LogEvent{At: o.At, Kind: LogBatch, From: x.names[o.Node], Text: string(trace.AppendVerdict(nil, &o.Batch, &o.Result))})
	case model.ObsAppSend:
		x.add(LogEvent{At: o.At, Kind: LogApp, From: x.log.Apps[o.App], To: x.names[o.Node], Text: o.Record.ID.String()})
	case model.ObsOutcome:
		t := "ack " + o.Outcome.ID.String()
		if o.Outcome.Err != model.ErrNone {
			t = "fail " + o.Outcome.ID.String() + " " + o.Outcome.Err.String()
		}
		x.add(LogEvent{At: o.At, Kind: LogOutcome, From: x.names[o.Node], To: x.log.Apps[o.App], Text: t})
	case model.ObsTxnOutcome:
		x.add(LogEvent{At: o.At, Kind: LogOutcome, From: x.names[o.Node], To: x.log.Apps[o.App], Text: "transaction " + o.Text})
	case model.ObsFault:
		x.fault(o.At, &x.plan.Actions[o.N])
	case model.ObsStart:
		x.node(o.At, x.names[o.Node], "starts")
	case model.ObsResume:
		x.node(o.At, x.names[o.Node], "resumes")
	case model.ObsRestart:
		x.node(o.At, x.names[o.Node], "restarts")
	case model.ObsNote:
		if o.Node >= 0 && int(o.Node) < len(x.servers) && x.servers[o.Node] {
			x.add(LogEvent{At: o.At, Kind: LogNote, From: x.names[o.Node], Text: o.Text})
		}
	case model.ObsPlanEnd:
		x.node(o.At, "fault", "plan end")
	}
}

// fault records a fault-plan action and closes the intervals it ends (a
// heal its partition). Pauses and crashes end when the world says their
// node resumes or restarts ([explainLog.node]).
func (x *explainLog) fault(now sim.Time, a *faults.Timed) {
	x.closeFaults(now, func(o faults.Action) bool { return o.Span() == faults.UntilClosed && a.Closes(o) })
	i := x.add(LogEvent{At: now, Kind: LogFault, Text: string(a.AppendTo(nil)), Nodes: a.Nodes()})
	if a.Span() != faults.Instant {
		x.intervals = append(x.intervals, interval{entry: i, a: a.Action})
	}
}

// closeFaults sets Until of the open fault intervals whose action
// matches.
func (x *explainLog) closeFaults(now sim.Time, match func(faults.Action) bool) {
	for _, v := range x.intervals {
		if e := &x.log.Entries[v.entry]; e.Until == 0 && match(v.a) {
			e.Until = now
		}
	}
}

// node records something that happens to a node: "starts", "resumes",
// "restarts". A resume ends the intervals of the node's pauses, a restart
// those of its crashes.
func (x *explainLog) node(now sim.Time, node, text string) {
	ends := map[string]faults.Span{"resumes": faults.UntilResumed, "restarts": faults.UntilRestarted}[text]
	if ends != faults.Instant {
		x.closeFaults(now, func(a faults.Action) bool {
			ns := a.Nodes()
			return a.Span() == ends && len(ns) == 1 && ns[0] == node
		})
	}
	x.add(LogEvent{At: now, Kind: LogNote, From: node, Text: text})
}

// finish closes open intervals, adds the violations and returns the log.
func (x *explainLog) finish(end, planEnd sim.Time, vs []check.Violation) *Log {
	l := x.log
	l.End, l.PlanEnd = end, planEnd
	for _, v := range x.intervals {
		if e := &l.Entries[v.entry]; e.Until == 0 {
			e.Until = min(end, planEnd)
		}
	}
	for _, v := range vs {
		l.Entries = append(l.Entries, LogEvent{At: sim.Time(v.AtNs), Kind: LogViolation, From: v.Invariant, Text: v.Detail})
	}
	slices.SortStableFunc(l.Entries, func(a, b LogEvent) int { return int(min(max(a.At-b.At, -1), 1)) })
	return l
}
