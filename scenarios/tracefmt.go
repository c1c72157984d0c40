package scenarios

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// traceWriter reads the observation stream and writes the run's timeline:
// one deterministic line per observation worth a line, hashed as it goes
// (the trace hash) and, with -trace, printed.
type traceWriter struct {
	*sim.Trace
	names   []string
	scratch []byte // a message description, for hashMsg's fallback
}

// newTraceWriter returns the trace of a run with the given node names, in
// old's memory when old is not nil (a finished run's: runner.go).
func newTraceWriter(names []string, old *traceWriter) *traceWriter {
	if old == nil {
		return &traceWriter{Trace: sim.NewTrace(), names: names}
	}
	old.Trace.Reset()
	*old = traceWriter{Trace: old.Trace, names: names, scratch: old.scratch[:0]}
	return old
}

// name returns node n's name; -1 is "sim".
func (t *traceWriter) name(n int32) string {
	if n < 0 {
		return "sim"
	}
	return t.names[n]
}

// Observe hashes o's trace entry, if it has a line, and formats the line
// only when the trace is kept or written.
func (t *traceWriter) Observe(o *model.Obs) {
	switch {
	case o.Kind == model.ObsActive, o.Kind == model.ObsStateCheck:
		return // no line: counters and checkers read them
	case o.Kind == model.ObsCrash && o.N == 0:
		return // the fault line says it
	}
	t.hashObs(o)
	if t.Formats() {
		t.format(o)
	}
}

// expiredNote reports whether note o is a producer's NoteExpired, whose
// text is made from its batch (model.ExpiredNote) only for the trace.
func expiredNote(o *model.Obs) bool {
	return o.NoteKind == model.NoteExpired && o.Text == ""
}

// format writes o's line.
func (t *traceWriter) format(o *model.Obs) {
	b := t.Begin(o.At)
	switch o.Kind {
	case model.ObsRunStart:
		b = append(b, "sim "...)
		b = append(b, o.Text...)
	case model.ObsRunEnd:
		b = append(b, "sim end "...)
		b = append(b, o.Text...)
	case model.ObsStart:
		b = append(b, t.name(o.Node)...)
		b = append(b, " start instance of app "...)
		b = strconv.AppendInt(b, int64(o.App), 10)
	case model.ObsTakeover:
		b = append(b, t.name(o.Node)...)
		b = append(b, " takes over app "...)
		b = strconv.AppendInt(b, int64(o.App), 10)
	case model.ObsAppSend:
		b = append(b, t.name(o.Node)...)
		b = append(b, " app-send "...)
		b = o.Record.ID.AppendID(b)
		b = append(b, " p"...)
		b = strconv.AppendInt(b, int64(o.Record.Partition), 10)
	case model.ObsAppResend:
		b = append(b, t.name(o.Node)...)
		b = append(b, " app-resend "...)
		b = o.Record.ID.AppendID(b)
		if o.Flag {
			b = append(b, " p"...)
			b = strconv.AppendInt(b, int64(o.Record.Partition), 10)
		}
	case model.ObsAppIdle:
		b = append(b, t.name(o.Node)...)
		b = append(b, " app goes idle for "...)
		b = append(b, o.Dur.Duration().String()...)
	case model.ObsOutcome:
		b = append(b, t.name(o.Node)...)
		if oc := &o.Outcome; oc.Err == model.ErrNone {
			b = append(b, " ack "...)
			b = oc.ID.AppendID(b)
			b = append(b, " off="...)
			b = strconv.AppendInt(b, oc.Offset, 10)
		} else {
			b = append(b, " fail "...)
			b = oc.ID.AppendID(b)
			b = append(b, ' ')
			b = append(b, oc.Err.String()...)
		}
	case model.ObsNote:
		b = append(b, t.name(o.Node)...)
		b = append(b, ' ')
		if expiredNote(o) {
			b = model.ExpiredNote(b, &o.Batch)
		} else {
			b = append(b, o.Text...)
		}
	case model.ObsTxnOutcome:
		b = append(b, t.name(o.Node)...)
		b = append(b, " transaction "...)
		b = append(b, o.Text...)
		b = append(b, " ("...)
		b = strconv.AppendInt(b, o.N, 10)
		b = append(b, " records)"...)
		if o.Err != model.ErrNone {
			b = append(b, ": "...)
			b = append(b, o.Err.String()...)
		}
	case model.ObsSent:
		b = append(b, t.name(o.Node)...)
		b = append(b, " send "...)
		b = o.Msg.AppendDescription(b)
		b = append(b, " -> "...)
		b = append(b, t.name(o.Peer)...)
		if o.Fate != "" {
			b = append(b, " DROPPED "...)
			b = append(b, o.Fate...)
			if o.Forced {
				dir, client, server := simnet.Request, o.Node, o.Peer
				if o.Flag {
					dir, client, server = simnet.Response, o.Peer, o.Node
				}
				b = append(b, " (plan: "...)
				b = append(b, dir.String()...)
				b = append(b, ' ')
				b = strconv.AppendInt(b, o.N, 10)
				b = append(b, ' ')
				b = t.appendConn(b, client, server, o.ConnGen)
				b = append(b, ')')
			}
		} else if o.Dur > 0 {
			b = append(b, " reorder+"...)
			b = append(b, o.Dur.Duration().String()...)
		}
	case model.ObsDup:
		b = append(b, t.name(o.Node)...)
		b = append(b, " dup "...)
		b = o.Msg.AppendDescription(b)
		b = append(b, " -> "...)
		b = append(b, t.name(o.Peer)...)
		b = append(b, " at="...)
		b = o.Until.AppendTo(b)
	case model.ObsDelivered:
		b = append(b, t.name(o.Node)...)
		b = append(b, " recv "...)
		b = o.Msg.AppendDescription(b)
	case model.ObsLost:
		b = append(b, t.name(o.Node)...)
		b = append(b, " lost-on-wire "...)
		b = o.Msg.AppendDescription(b)
		b = append(b, ' ')
		b = append(b, o.Fate...)
	case model.ObsVerdict:
		b = append(b, t.name(o.Node)...)
		b = append(b, ' ')
		b = appendVerdict(b, &o.Batch, &o.Result)
		if o.Result.Err != model.ErrNone && o.Result.Reason != "" {
			b = append(b, " ("...)
			b = append(b, o.Result.Reason...)
			b = append(b, ')')
		}
	case model.ObsMarker:
		b = append(b, t.name(o.Node)...)
		b = append(b, " marker "...)
		b = append(b, o.Marker.String()...)
		b = append(b, " p"...)
		b = strconv.AppendInt(b, int64(o.Partition), 10)
		b = append(b, " pid="...)
		b = strconv.AppendInt(b, int64(o.PID), 10)
		b = append(b, " e="...)
		b = strconv.AppendInt(b, int64(o.Epoch), 10)
		b = append(b, " -> "...)
		b = append(b, o.Err.String()...)
	case model.ObsTxnState:
		// "c1 txn t1 pid=42 e=0 Ongoing [p0 p1]" (+ " (loaded)").
		b = append(b, t.name(o.Node)...)
		b = append(b, " txn "...)
		b = append(b, o.Text...)
		b = append(b, " pid="...)
		b = strconv.AppendInt(b, int64(o.PID), 10)
		b = append(b, " e="...)
		b = strconv.AppendInt(b, int64(o.Epoch), 10)
		b = append(b, ' ')
		b = append(b, model.TxnState(o.N).String()...)
		if len(o.Parts) > 0 {
			b = append(b, " ["...)
			for i, p := range o.Parts {
				if i > 0 {
					b = append(b, ' ')
				}
				if p == model.OffsetsPartition {
					b = append(b, "offsets"...)
					continue
				}
				b = append(b, 'p')
				b = strconv.AppendInt(b, int64(p), 10)
			}
			b = append(b, ']')
		}
		if o.Flag {
			b = append(b, " (loaded)"...)
		}
	case model.ObsEpoch:
		b = append(b, t.name(o.Node)...)
		b = append(b, " init-producer-id "...)
		b = append(b, o.Err.String()...)
		if o.Err == model.ErrNone {
			b = append(b, " pid="...)
			b = strconv.AppendInt(b, int64(o.PID), 10)
			b = append(b, " e="...)
			b = strconv.AppendInt(b, int64(o.Epoch), 10)
		}
		if o.Text != "" {
			b = append(b, " ("...)
			b = append(b, o.Text...)
			b = append(b, ')')
		}
	case model.ObsTxnOp:
		b = append(b, t.name(o.Node)...)
		switch m := o.Msg.(type) {
		case *model.AddPartitionsToTxnRequest:
			b = append(b, " add-partitions-to-txn "...)
			b = append(b, m.TransactionalID...)
		case *model.EndTxnRequest:
			b = append(b, " end-txn "...)
			b = append(b, m.TransactionalID...)
		case *model.AddOffsetsToTxnRequest:
			b = append(b, " add-offsets-to-txn "...)
			b = append(b, m.TransactionalID...)
			b = append(b, " group="...)
			b = append(b, m.GroupID...)
		}
		b = append(b, " -> "...)
		b = append(b, o.Err.String()...)
	case model.ObsTxnTimeouts:
		b = append(b, t.name(o.Node)...)
		b = append(b, " aborts timed-out transactions (check at "...)
		b = o.Until.AppendTo(b)
		b = append(b, ')')
	case model.ObsExpired:
		b = append(b, t.name(o.Node)...)
		b = append(b, " expire p"...)
		b = strconv.AppendInt(b, int64(o.Partition), 10)
		b = append(b, " pid="...)
		b = strconv.AppendInt(b, int64(o.PID), 10)
		b = append(b, " (idle >= producer.id.expiration.ms at check "...)
		b = o.Until.AppendTo(b)
		b = append(b, ')')
	case model.ObsFault:
		b = append(b, "fault "...)
		b = append(b, o.Text...)
	case model.ObsHold:
		b = append(b, t.name(o.Node)...)
		b = append(b, " holds "...)
		b = append(b, o.Text...)
		b = append(b, " ("...)
		b = append(b, o.Fate...)
		b = append(b, ')')
	case model.ObsResume:
		b = append(b, t.name(o.Node)...)
		b = append(b, " resumes with "...)
		b = strconv.AppendInt(b, o.N, 10)
		b = append(b, " held events"...)
	case model.ObsCrash:
		if o.N == 0 {
			return // the fault line says it
		}
		b = append(b, t.name(o.Node)...)
		b = append(b, " crash abandons "...)
		b = strconv.AppendInt(b, o.N, 10)
		b = append(b, " unresolved records"...)
	case model.ObsRestart:
		b = append(b, t.name(o.Node)...)
		b = append(b, " restarts"...)
	case model.ObsPlanEnd:
		b = append(b, "fault plan end: faults off, network healed"...)
	case model.ObsDisconnected:
		b = append(b, t.name(o.Node)...)
		b = append(b, " disconnected "...)
		b = t.appendConn(b, o.Node, o.Peer, o.ConnGen)
	case model.ObsOffsets:
		b = append(b, t.name(o.Node)...)
		b = append(b, ' ')
		b = append(b, o.Text...)
		b = append(b, " group="...)
		b = append(b, o.Group...)
		if o.Text != "offset-fetch" {
			b = append(b, " pid="...)
			b = strconv.AppendInt(b, int64(o.PID), 10)
			b = append(b, " e="...)
			b = strconv.AppendInt(b, int64(o.Epoch), 10)
		}
		b = append(b, " offset="...)
		b = strconv.AppendInt(b, o.N, 10)
		if o.Text == "txn-offset-commit" || o.Text == "offset-fetch" {
			b = append(b, " -> "...)
			b = append(b, o.Err.String()...)
		}
	case model.ObsAppResume:
		b = append(b, t.name(o.Node)...)
		b = append(b, " app resumes its input at offset "...)
		b = strconv.AppendInt(b, o.N, 10)
	case model.ObsMetadataFlap:
		b = append(b, t.name(o.Node)...)
		b = append(b, " metadata flap: the topic briefly looks deleted"...)
	case model.ObsFinalLog:
		b = append(b, "sim p"...)
		b = strconv.AppendInt(b, int64(o.Partition), 10)
		if o.Node < 0 {
			b = append(b, " has no leader: nothing committed"...)
			break
		}
		b = append(b, " committed on "...)
		b = append(b, t.name(o.Node)...)
		b = append(b, " below high watermark "...)
		b = strconv.AppendInt(b, o.Result.LastOffset, 10)
	default:
		panic("scenarios: no trace line for observation kind " + strconv.Itoa(int(o.Kind)))
	}
	t.Commit(b)
}

// appendConn appends "p1>b1#2".
func (t *traceWriter) appendConn(b []byte, client, server int32, gen uint32) []byte {
	b = append(b, t.names[client]...)
	b = append(b, '>')
	b = append(b, t.names[server]...)
	b = append(b, '#')
	return strconv.AppendUint(b, uint64(gen), 10)
}

// appendVerdict appends the broker's verdict on a batch: "append <batch>
// off=F..L", "duplicate <batch> off=F..L" or "reject <batch> ERROR".
func appendVerdict(b []byte, bt *model.Batch, r *model.AppendResult) []byte {
	switch {
	case r.Duplicate:
		b = append(b, "duplicate "...)
	case r.Err == model.ErrNone:
		b = append(b, "append "...)
	default:
		b = append(b, "reject "...)
	}
	b = bt.AppendDescription(b)
	if r.Err != model.ErrNone {
		b = append(b, ' ')
		return append(b, r.Err.String()...)
	}
	b = append(b, " off="...)
	b = strconv.AppendInt(b, r.FirstOffset, 10)
	b = append(b, ".."...)
	return strconv.AppendInt(b, r.LastOffset, 10)
}
