package trace

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// entry is one observation kind's row in the table: its trace line and its
// hash, or the mark that it has none.
type entry struct {
	// line appends the observation's trace line to b, after the time.
	line func(w *Writer, b []byte, o *model.Obs) []byte
	// hash feeds tr the fields line shows, after the kind and time the
	// writer hashed: every value that changes the line changes the hash.
	hash func(w *Writer, tr *sim.Trace, o *model.Obs)
	// omit, if not nil, reports the observations of the kind that have no
	// line (neither hashed nor formatted).
	omit func(o *model.Obs) bool
	// noLine marks a kind without a line; line and hash are nil.
	noLine bool
}

// The plan language's words for a drop's direction, as simnet.Direction
// names them (a test checks).
const (
	dirRequest  = "request"
	dirResponse = "response"
)

// kinds is the table: one entry per observation kind, in the order
// model/obs.go defines them.
var kinds = [...]entry{
	model.ObsRunStart: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, "sim "...)
			return append(b, o.Text...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) { tr.Str(o.Text) },
	},
	model.ObsRunEnd: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, "sim end "...)
			return append(b, o.Text...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) { tr.Str(o.Text) },
	},
	model.ObsStart: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " start instance of app "...)
			return strconv.AppendInt(b, int64(o.App), 10)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.App))
		},
	},
	model.ObsActive: {noLine: true},
	model.ObsTakeover: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " takes over app "...)
			return strconv.AppendInt(b, int64(o.App), 10)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.App))
		},
	},
	model.ObsAppSend: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " app-send "...)
			b = o.Record.ID.AppendID(b)
			b = append(b, " p"...)
			return strconv.AppendInt(b, int64(o.Record.Partition), 10)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			hashID(tr, o.Record.ID)
			tr.I64(int64(o.Record.Partition))
		},
	},
	model.ObsAppResend: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " app-resend "...)
			b = o.Record.ID.AppendID(b)
			if o.Flag {
				b = append(b, " p"...)
				b = strconv.AppendInt(b, int64(o.Record.Partition), 10)
			}
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			hashID(tr, o.Record.ID)
			tr.Bool(o.Flag)
			if o.Flag {
				tr.I64(int64(o.Record.Partition))
			}
		},
	},
	model.ObsAppIdle: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " app goes idle for "...)
			return append(b, o.Dur.Duration().String()...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Dur))
		},
	},
	model.ObsOutcome: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
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
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			oc := &o.Outcome
			tr.I64(int64(oc.Err))
			hashID(tr, oc.ID)
			if oc.Err == model.ErrNone {
				tr.I64(oc.Offset)
			}
		},
	},
	model.ObsNote: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, ' ')
			if expiredNote(o) {
				return model.ExpiredNote(b, &o.Batch)
			}
			return append(b, o.Text...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			if expiredNote(o) {
				// Hashed as its text would be (Bytes hashes as Str).
				w.scratch = model.ExpiredNote(w.scratch[:0], &o.Batch)
				tr.Bytes(w.scratch)
			} else {
				tr.Str(o.Text)
			}
		},
	},
	model.ObsSent: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " send "...)
			b = o.Msg.AppendDescription(b)
			b = append(b, " -> "...)
			b = append(b, w.name(o.Peer)...)
			if o.Fate != "" {
				b = append(b, " DROPPED "...)
				b = append(b, o.Fate...)
				if o.Forced {
					dir, client, server := dirRequest, o.Node, o.Peer
					if o.Flag {
						dir, client, server = dirResponse, o.Peer, o.Node
					}
					b = append(b, " (plan: "...)
					b = append(b, dir...)
					b = append(b, ' ')
					b = strconv.AppendInt(b, o.N, 10)
					b = append(b, ' ')
					b = w.appendConn(b, client, server, o.ConnGen)
					b = append(b, ')')
				}
			} else if o.Dur > 0 {
				b = append(b, " reorder+"...)
				b = append(b, o.Dur.Duration().String()...)
			}
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			w.hashMsg(tr, o.Msg)
			tr.I64(int64(o.Peer))
			tr.Str(o.Fate)
			if o.Fate != "" {
				tr.Bool(o.Forced)
				if o.Forced {
					tr.Bool(o.Flag)
					tr.I64(o.N)
					tr.U64(uint64(o.ConnGen))
				}
			} else {
				tr.I64(int64(o.Dur))
			}
		},
	},
	model.ObsDup: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " dup "...)
			b = o.Msg.AppendDescription(b)
			b = append(b, " -> "...)
			b = append(b, w.name(o.Peer)...)
			b = append(b, " at="...)
			return o.Until.AppendTo(b)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			w.hashMsg(tr, o.Msg)
			tr.I64(int64(o.Peer))
			tr.I64(int64(o.Until))
		},
	},
	model.ObsDelivered: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " recv "...)
			return o.Msg.AppendDescription(b)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			w.hashMsg(tr, o.Msg)
		},
	},
	model.ObsLost: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " lost-on-wire "...)
			b = o.Msg.AppendDescription(b)
			b = append(b, ' ')
			return append(b, o.Fate...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			w.hashMsg(tr, o.Msg)
			tr.Str(o.Fate)
		},
	},
	model.ObsVerdict: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, ' ')
			b = AppendVerdict(b, &o.Batch, &o.Result)
			if o.Result.Err != model.ErrNone && o.Result.Reason != "" {
				b = append(b, " ("...)
				b = append(b, o.Result.Reason...)
				b = append(b, ')')
			}
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			r := &o.Result
			tr.Bool(r.Duplicate)
			tr.I64(int64(r.Err))
			hashBatch(tr, &o.Batch)
			if r.Err != model.ErrNone {
				tr.Str(r.Reason)
			} else {
				tr.I64(r.FirstOffset)
				tr.I64(r.LastOffset)
			}
		},
	},
	model.ObsMarker: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " marker "...)
			b = append(b, o.Marker.String()...)
			b = append(b, " p"...)
			b = strconv.AppendInt(b, int64(o.Partition), 10)
			b = append(b, " pid="...)
			b = strconv.AppendInt(b, int64(o.PID), 10)
			b = append(b, " e="...)
			b = strconv.AppendInt(b, int64(o.Epoch), 10)
			b = append(b, " -> "...)
			return append(b, o.Err.String()...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.U64(uint64(o.Marker))
			tr.I64(int64(o.Partition))
			tr.I64(int64(o.PID))
			tr.I64(int64(o.Epoch))
			tr.I64(int64(o.Err))
		},
	},
	model.ObsEpoch: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
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
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Err))
			if o.Err == model.ErrNone {
				tr.I64(int64(o.PID))
				tr.I64(int64(o.Epoch))
			}
			tr.Str(o.Text)
		},
	},
	model.ObsTxnOp: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
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
			return append(b, o.Err.String()...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			w.hashMsg(tr, o.Msg)
			tr.I64(int64(o.Err))
		},
	},
	model.ObsTxnTimeouts: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " aborts timed-out transactions (check at "...)
			b = o.Until.AppendTo(b)
			return append(b, ')')
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Until))
		},
	},
	model.ObsExpired: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " expire p"...)
			b = strconv.AppendInt(b, int64(o.Partition), 10)
			b = append(b, " pid="...)
			b = strconv.AppendInt(b, int64(o.PID), 10)
			b = append(b, " (idle >= producer.id.expiration.ms at check "...)
			b = o.Until.AppendTo(b)
			return append(b, ')')
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Partition))
			tr.I64(int64(o.PID))
			tr.I64(int64(o.Until))
		},
	},
	model.ObsStateCheck: {noLine: true},
	model.ObsFault: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, "fault "...)
			return append(b, o.Text...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) { tr.Str(o.Text) },
	},
	model.ObsHold: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " holds "...)
			b = append(b, o.Text...)
			b = append(b, " ("...)
			b = append(b, o.Fate...)
			return append(b, ')')
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.Str(o.Text)
			tr.Str(o.Fate)
		},
	},
	model.ObsResume: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " resumes with "...)
			b = strconv.AppendInt(b, o.N, 10)
			return append(b, " held events"...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(o.N)
		},
	},
	model.ObsCrash: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " crash abandons "...)
			b = strconv.AppendInt(b, o.N, 10)
			return append(b, " unresolved records"...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(o.N)
		},
		// A crash that abandons nothing: the fault line says it.
		omit: func(o *model.Obs) bool { return o.N == 0 },
	},
	model.ObsRestart: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			return append(b, " restarts"...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) { tr.I64(int64(o.Node)) },
	},
	model.ObsPlanEnd: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			return append(b, "fault plan end: faults off, network healed"...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {},
	},
	model.ObsDisconnected: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " disconnected "...)
			return w.appendConn(b, o.Node, o.Peer, o.ConnGen)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Peer))
			tr.U64(uint64(o.ConnGen))
		},
	},
	model.ObsMetadataFlap: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			return append(b, " metadata flap: the topic briefly looks deleted"...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) { tr.I64(int64(o.Node)) },
	},
	model.ObsOffsets: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
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
			if o.Text == "input offsets committed" || o.Text == "input offsets aborted" {
				b = append(b, " p"...)
				b = strconv.AppendInt(b, int64(o.Partition), 10)
			}
			if o.Text == "txn-offset-commit" || o.Text == "offset-fetch" {
				b = append(b, " -> "...)
				b = append(b, o.Err.String()...)
			}
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.Str(o.Text)
			tr.Str(o.Group)
			tr.I64(int64(o.PID))
			tr.I64(int64(o.Epoch))
			tr.I64(o.N)
			tr.I64(int64(o.Err))
			if o.Text == "input offsets committed" || o.Text == "input offsets aborted" {
				tr.I64(int64(o.Partition))
			}
		},
	},
	model.ObsAppResume: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " app resumes its input at offset "...)
			return strconv.AppendInt(b, o.N, 10)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(o.N)
		},
	},
	model.ObsTxnOutcome: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " transaction "...)
			b = append(b, o.Text...)
			b = append(b, " ("...)
			b = strconv.AppendInt(b, o.N, 10)
			b = append(b, " records)"...)
			if o.Err != model.ErrNone {
				b = append(b, ": "...)
				b = append(b, o.Err.String()...)
			}
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.Str(o.Text)
			tr.I64(o.N)
			tr.I64(int64(o.Err))
		},
	},
	model.ObsTxnState: {
		// "c1 txn t1 pid=42 e=0 Ongoing [p0 p1]" (+ " (loaded)").
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
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
			return b
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.Str(o.Text)
			tr.I64(int64(o.PID))
			tr.I64(int64(o.Epoch))
			tr.I64(o.N)
			hashParts(tr, o.Parts)
			tr.Bool(o.Flag)
		},
	},
	model.ObsFinalLog: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, "sim p"...)
			b = strconv.AppendInt(b, int64(o.Partition), 10)
			if o.Node < 0 {
				return append(b, " has no leader: nothing committed"...)
			}
			b = append(b, " committed on "...)
			b = append(b, w.name(o.Node)...)
			b = append(b, " below high watermark "...)
			return strconv.AppendInt(b, o.Result.LastOffset, 10)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Partition))
			tr.I64(int64(o.Node))
			if o.Node >= 0 {
				tr.I64(o.Result.LastOffset)
			}
		},
	},
	model.ObsConsumerFetch: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " fetched p"...)
			b = strconv.AppendInt(b, int64(o.Partition), 10)
			b = append(b, " at "...)
			b = strconv.AppendInt(b, o.N, 10)
			b = append(b, ": lso "...)
			b = strconv.AppendInt(b, o.Result.FirstOffset, 10)
			b = append(b, ", hw "...)
			return strconv.AppendInt(b, o.Result.LastOffset, 10)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Partition))
			tr.I64(o.N)
			tr.I64(o.Result.FirstOffset)
			tr.I64(o.Result.LastOffset)
		},
	},
	model.ObsPoll: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " polls p"...)
			b = strconv.AppendInt(b, int64(o.Partition), 10)
			b = append(b, ": "...)
			b = strconv.AppendInt(b, o.N, 10)
			b = append(b, " records, position "...)
			b = strconv.AppendInt(b, o.Result.FirstOffset, 10)
			b = append(b, " -> "...)
			return strconv.AppendInt(b, o.Result.LastOffset, 10)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Partition))
			tr.I64(o.N)
			tr.I64(o.Result.FirstOffset)
			tr.I64(o.Result.LastOffset)
			for _, id := range o.IDs {
				tr.I64(int64(id.App))
				tr.I64(id.N)
			}
		},
	},
	model.ObsConsumerReset: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " resets p"...)
			b = strconv.AppendInt(b, int64(o.Partition), 10)
			b = append(b, " position "...)
			b = strconv.AppendInt(b, o.Result.FirstOffset, 10)
			b = append(b, " -> "...)
			b = strconv.AppendInt(b, o.N, 10)
			b = append(b, " ("...)
			b = append(b, o.Text...)
			return append(b, ')')
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Partition))
			tr.I64(o.N)
			tr.I64(o.Result.FirstOffset)
			tr.Str(o.Text)
		},
	},
	model.ObsLogStart: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, " log start p"...)
			b = strconv.AppendInt(b, int64(o.Partition), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, o.Result.FirstOffset, 10)
			b = append(b, " -> "...)
			b = strconv.AppendInt(b, o.N, 10)
			if o.Err != model.ErrNone {
				b = append(b, " refused "...)
				b = append(b, o.Err.String()...)
			}
			b = append(b, " ("...)
			b = append(b, o.Text...)
			return append(b, ')')
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.I64(int64(o.Partition))
			tr.I64(o.N)
			tr.I64(o.Result.FirstOffset)
			tr.I64(int64(o.Err))
			tr.Str(o.Text)
		},
	},
	model.ObsAdmin: {
		line: func(w *Writer, b []byte, o *model.Obs) []byte {
			b = append(b, w.name(o.Node)...)
			b = append(b, ' ')
			return append(b, o.Text...)
		},
		hash: func(w *Writer, tr *sim.Trace, o *model.Obs) {
			tr.I64(int64(o.Node))
			tr.Str(o.Text)
		},
	},
	// A new kind's entry goes last, as its kind does in model/obs.go.
}

// expiredNote reports whether note o is a producer's NoteExpired, whose
// text is made from its batch (model.ExpiredNote) only for the trace.
func expiredNote(o *model.Obs) bool {
	return o.NoteKind == model.NoteExpired && o.Text == ""
}
