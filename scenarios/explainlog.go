package scenarios

import (
	"slices"
	"strings"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// LogKind is the kind of a [LogEntry].
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
// typed entries in time order. [Spec.Record] asks for it.
type Log struct {
	// Nodes are the world's processes: producer instances p1.., b1, c1.
	Nodes []string
	// Apps are the applications, "app0", "app1", ...
	Apps []string
	// End is when the run ended; PlanEnd when its fault phase ended.
	End, PlanEnd sim.Time
	Entries      []LogEntry
}

// LogEntry is one event of a [Log]; which fields matter depends on Kind.
type LogEntry struct {
	At       sim.Time
	Kind     LogKind
	From, To string
	Text     string
	Fate     string
	Arrive   sim.Time
	Until    sim.Time
	Nodes    []string
}

func (w *World) logAdd(e LogEntry) int {
	w.ex.log.Entries = append(w.ex.log.Entries, e)
	return len(w.ex.log.Entries) - 1
}

// noteSend records a random loss for the realized plan, and the send in
// the log.
func (w *World) noteSend(now sim.Time, in *instance, dest int32, m model.Message, c simnet.Conn, dir simnet.Direction, reqNo int64, s simnet.Sent) {
	if s.Fate == simnet.Lost && !s.Forced {
		w.ex.realized = append(w.ex.realized, simnet.Action{Kind: simnet.Drop, Dir: dir, N: reqNo, From: w.names[c.Client], To: w.names[c.Server]})
	}
	if w.ex.log == nil {
		return
	}
	from, to := in.name, w.names[w.destNode(dest)]
	if dir == simnet.Response {
		from, to = to, from
	}
	e := LogEntry{At: now, Kind: LogSend, From: from, To: to, Text: string(m.AppendDescription(nil)), Arrive: now}
	if s.Fate != simnet.Delivered {
		e.Fate = s.Fate.String()
		if s.Forced {
			e.Fate += " (plan)"
		}
		w.logAdd(e)
		return
	}
	w.ex.sendAt[w.nextMsg+1] = w.logAdd(e)
}

// noteArrive records the fate of message id at its arrival.
func (w *World) noteArrive(now sim.Time, id uint64, delivered bool, why string) {
	if w.ex.log == nil {
		return
	}
	i, ok := w.ex.sendAt[id]
	if !ok {
		return // a duplicate copy
	}
	delete(w.ex.sendAt, id)
	e := &w.ex.log.Entries[i]
	e.Arrive = now
	if !delivered {
		e.Fate = why
	}
}

// noteBatch records the broker's verdict on a batch.
func (w *World) noteBatch(now sim.Time, bt *model.Batch, r model.AppendResult) {
	if w.ex.log == nil {
		return
	}
	b := appendVerdict(nil, bt, &r)
	w.logAdd(LogEntry{At: now, Kind: LogBatch, From: "b1", Text: string(b)})
}

// noteApp records an application's send through instance in.
func (w *World) noteApp(now sim.Time, in *instance, id model.RecordID) {
	if w.ex.log != nil {
		w.logAdd(LogEntry{At: now, Kind: LogApp, From: w.ex.log.Apps[in.app.id], To: in.name, Text: id.String()})
	}
}

// noteOutcome records an outcome reported to an application.
func (w *World) noteOutcome(now sim.Time, in *instance, o model.Outcome) {
	if w.ex.log == nil {
		return
	}
	t := "ack " + o.ID.String()
	if o.Err != model.ErrNone {
		t = "fail " + o.ID.String() + " " + o.Err.String()
	}
	w.logAdd(LogEntry{At: now, Kind: LogOutcome, From: in.name, To: w.ex.log.Apps[in.app.id], Text: t})
}

// noteFault records a fault-plan action and closes the interval a heal
// ends.
func (w *World) noteFault(now sim.Time, a *simnet.Action) {
	if w.ex.log == nil {
		return
	}
	e := LogEntry{At: now, Kind: LogFault, Text: string(a.AppendTo(nil))}
	switch a.Kind {
	case simnet.Pause, simnet.Crash, simnet.Restart, simnet.Drift:
		e.Nodes = []string{a.Node}
	case simnet.Drop, simnet.Reject:
		e.Nodes = []string{a.From, a.To}
	default:
		e.Nodes = slices.Concat(a.A, a.B)
	}
	if a.Kind == simnet.Heal || a.Kind == simnet.HealOneWay {
		cut := simnet.Partition
		if a.Kind == simnet.HealOneWay {
			cut = simnet.PartitionOneWay
		}
		w.closeFaults(now, func(o *LogEntry) bool {
			return o.Text == cut.String()+string(a.AppendTo(nil))[len(a.Kind.String()):]
		})
	}
	w.logAdd(e)
}

// closeFaults sets Until of the open fault intervals that match.
func (w *World) closeFaults(now sim.Time, match func(*LogEntry) bool) {
	for i := range w.ex.log.Entries {
		e := &w.ex.log.Entries[i]
		if e.Kind == LogFault && e.Until == 0 && match(e) {
			e.Until = now
		}
	}
}

// noteNode records something that happens to node: "starts", "resumes",
// "restarts". A resume ends the node's pauses, a restart its crashes.
func (w *World) noteNode(now sim.Time, node, text string) {
	if w.ex.log == nil {
		return
	}
	verb := map[string]string{"resumes": "pause", "restarts": "crash"}[text]
	if verb != "" {
		w.closeFaults(now, func(o *LogEntry) bool {
			return len(o.Nodes) == 1 && o.Nodes[0] == node && strings.HasPrefix(o.Text, verb+" ")
		})
	}
	w.logAdd(LogEntry{At: now, Kind: LogNote, From: node, Text: text})
}

// finishLog closes open intervals and adds the violations.
func (w *World) finishLog(end sim.Time, r *Result) *Log {
	l := w.ex.log
	if l == nil {
		return nil
	}
	l.End, l.PlanEnd = end, w.planEnd
	for i := range l.Entries {
		e := &l.Entries[i]
		if e.Kind == LogFault && e.Until == 0 && isInterval(e.Text) {
			e.Until = min(end, w.planEnd)
		}
	}
	for _, v := range r.Violations {
		l.Entries = append(l.Entries, LogEntry{At: sim.Time(v.AtNs), Kind: LogViolation, From: v.Invariant, Text: v.Detail})
	}
	slices.SortStableFunc(l.Entries, func(a, b LogEntry) int { return int(min(max(a.At-b.At, -1), 1)) })
	return l
}

// isInterval reports whether a fault action's text starts an interval.
func isInterval(text string) bool {
	for _, v := range []string{"pause ", "crash ", "partition ", "partition-oneway "} {
		if strings.HasPrefix(text, v) {
			return true
		}
	}
	return false
}
