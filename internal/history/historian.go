package history

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/scenarios/world"
	"github.com/idemsim/idemsim/sim"
)

// A run's history is what its clients saw, as operations in the shape of
// Jepsen's Kafka queue workload (jepsen.tests.kafka), so that a checker
// that knows nothing of idemsim can judge the run (docs/history.md). It
// is built by a reader of the observation stream, like the explain log:
// from the applications' sends (invocations), the outcomes the producers
// report (completions), the produce requests and responses on the wire
// (whether a failed send is definitely unwritten), the transactions'
// outcomes, and, for the final reads, the partition logs as the stream
// tells them (data appends and markers, as check/logview.go rebuilds
// them). It never asks a node for its state.

// History is a run's client-visible history: operations in index order,
// each an invocation or a completion of a send, a transaction or a poll,
// ending with the final reads of every partition. [Record] asks for
// it; package internal/history writes it as JSON lines or EDN.
type History struct {
	// Partitions is the topic's partition count: the keys are
	// 0..Partitions-1.
	Partitions int32
	Ops        []HistoryOp
}

// OpType is an operation's :type.
type OpType uint8

// Operation types, as Jepsen names them. Info means indeterminate: the
// operation may or may not have taken effect.
const (
	OpInvoke OpType = iota
	OpOK
	OpFail
	OpInfo
)

var opTypeNames = [...]string{"invoke", "ok", "fail", "info"}

// String returns "invoke", "ok", "fail" or "info".
func (t OpType) String() string { return opTypeNames[t] }

// OpF is an operation's :f.
type OpF uint8

// Operation functions.
const (
	OpSend OpF = iota
	OpPoll
	OpTxn
)

var opFNames = [...]string{"send", "poll", "txn"}

// String returns "send", "poll" or "txn".
func (f OpF) String() string { return opFNames[f] }

// Final marks a final read.
type Final uint8

// Final reads: none, or the isolation level of a final poll.
const (
	NotFinal Final = iota
	FinalReadCommitted
	FinalReadUncommitted
)

var finalNames = [...]string{"", "read_committed", "read_uncommitted"}

// String returns "", "read_committed" or "read_uncommitted".
func (f Final) String() string { return finalNames[f] }

// HistoryOp is one operation of a [History]: an invocation or a
// completion.
type HistoryOp struct {
	// Index is the operation's position in the history (0-based, dense).
	Index int
	// Time is the simulated time, in nanoseconds.
	Time sim.Time
	// Process is the operation's single-threaded process: every
	// outstanding operation has its own, a producer instance with five
	// sends in flight uses five, and a process whose operation ended
	// info is retired, as in Jepsen.
	Process int
	Type    OpType
	F       OpF
	// Value holds the operation's micro-operations.
	Value []Mop
	// Final marks the two final polls of the run.
	Final Final
	// Error says why a fail or info operation failed: the error its
	// producer reported ("PRODUCER_FENCED", "DELIVERY_TIMEOUT", ...; for a
	// transaction, "aborted" with the error that made the application
	// abort it, as in "aborted DELIVERY_TIMEOUT", or the fatal error that
	// ended it), or "crashed" (its producer instance crashed), or
	// "pending" (still unresolved when the run ended).
	Error string
}

// Mop is one micro-operation: a send of Value to partition Key, or a poll.
type Mop struct {
	// Poll: a poll; Reads holds what it read (nil in an invocation).
	Poll  bool
	Reads []KeyReads
	// A send: partition Key, the write's Value ([WriteValue], unique per
	// write) and the logical record it writes ([RecordValue]), which the
	// operation's "records" field lists. Acked: the send is written in its
	// completed form [offset value], with Offset -1 when the offset is
	// unknown (nil in the written history).
	Key    int32
	Value  int64
	Record int64
	Offset int64
	Acked  bool
}

// KeyReads are the records a poll read from one partition, in offset
// order.
type KeyReads struct {
	Key     int32
	Records []Read
}

// Read is one record a poll read: its offset and the value of the write
// that put it there.
type Read struct {
	Offset, Value int64
}

// RecordValue names a logical record in a history (the "records" field):
// application × 1,000,000 + message number (records ≤ 1,000,000, and a
// scenario runs one or two applications: unique per run, and below 10^9,
// which [WriteValue] needs). Every write of the record, the first and each time the
// application sends it again, names the same logical record.
func RecordValue(id model.RecordID) int64 { return int64(id.App)*1_000_000 + id.N }

// WriteValue is the value a write carries in a history, unique per write
// as Jepsen's Kafka workload assumes: the logical record's
// [RecordValue] for its first hand-over to a producer, plus
// [model.Record.Resend] × 10^9 for a hand-over again (a takeover or a
// restart resend, an exactly-once rewind: a write of its own, which may
// reach the log besides the first). A producer's retry of a batch is the
// same write, with the same value: Resend travels with the record.
func WriteValue(r *model.Record) int64 { return RecordValue(r.ID) + int64(r.Resend)*1_000_000_000 }

// historian reads the observation stream and builds the run's [History].
// It keeps logical operations (an invocation and its completion) and
// numbers them, and gives them processes, once the run ended.
type historian struct {
	parts int32
	// ninst is the number of producer instances: nodes 0..ninst-1.
	ninst int32
	// tick numbers the events of the history in stream order.
	tick int64
	ops  []*hop
	// open holds the open send operations, by instance and record.
	open map[opKey]*hop
	// reqs holds, per instance node, its produce requests by correlation
	// id (an instance's ids restart when it crashes).
	reqs []map[int64]*request
	// txns is the transaction grouping per instance node, for the
	// instances that run transactions (nil for the others).
	txns []*txnGroup
	// fatal is an instance whose fatal error was just noted: the outcomes
	// of its queued records, and its open transaction's outcome if it had
	// one, follow in the same step.
	fatal *fatalStep
	// logs are the partition logs rebuilt from verdicts and markers.
	logs [][]hlogEntry
	done bool
	hist *History
}

type opKey struct {
	node int32
	id   model.RecordID
}

// hop is one logical operation: its invocation and, once closed, its
// completion.
type hop struct {
	node     int32 // the producer instance or consumer node; -1 for a final poll
	f        OpF
	invokeAt sim.Time
	invokeT  int64
	closed   bool
	doneAt   sim.Time
	doneT    int64
	typ      OpType
	err      string
	final    Final
	sends    []hsend
	reads    []KeyReads
	// For a send: the attempts that went on the wire, those not (yet)
	// answered, and whether an answer left the write possible (anything
	// but an error that rejects the batch before it is appended).
	sent, unanswered int
	maybe            bool
}

// hsend is one record of an operation: the record, the write's value
// ([WriteValue]), the offset it was acknowledged at (-1: unknown, or not
// acknowledged), and when the application handed it over.
type hsend struct {
	id     model.RecordID
	value  int64
	part   int32
	offset int64
	at     sim.Time
	t      int64
	// failed is the error a transactional record failed with.
	failed model.ErrCode
}

// request is a produce request: its records, each with the operation it
// belongs to, and whether a response has answered it yet.
type request struct {
	parts    []reqPart
	answered bool
}

// reqPart is one record of a produce request and the operation it
// belongs to.
type reqPart struct {
	part int32
	op   *hop
}

// txnGroup is one transactional instance's records since its last
// transaction ended: those resolved (their produce acknowledged, with
// the offset, or failed) and those handed over and not resolved yet.
// The transaction's outcome ([model.ObsTxnOutcome]) claims the resolved
// ones: a transaction ends only once each of its records is acknowledged
// or failed, and records the application hands over while it ends wait
// for the next one.
type txnGroup struct {
	resolved, handed []hsend
	// commitSent: EndTxn(COMMIT) went out for the open transaction.
	commitSent bool
	// dead: the instance entered a fatal state; each later send is an
	// operation of its own, failed at once.
	dead bool
	// alone holds those operations until their outcome.
	alone map[model.RecordID]*hop
}

// fatalStep is an instance's fatal error, noted at at, whose step is
// not over yet.
type fatalStep struct {
	node int32
	err  string
	at   sim.Time
	t    int64
}

// hlogEntry is a data batch or a marker of a partition log.
type hlogEntry struct {
	pid    model.ProducerID
	txn    bool
	marker model.MarkerType
	first  int64
	values []int64
}

func newHistorian(l *world.Layout) *historian {
	n := len(l.Instances)
	h := &historian{parts: l.Partitions, ninst: int32(n), open: make(map[opKey]*hop),
		reqs: make([]map[int64]*request, n), txns: make([]*txnGroup, n)}
	for node, in := range l.Instances {
		if in.Transactional {
			h.txns[node] = &txnGroup{alone: make(map[model.RecordID]*hop)}
		}
	}
	return h
}

// Held is 0: the history is not counted in the run's state.
func (h *historian) Held() int64 { return 0 }

// End closes the history at the run's end.
func (h *historian) End(e *world.RunEnd) {}

func (h *historian) next() int64 { h.tick++; return h.tick }

// Observe reads one observation.
func (h *historian) Observe(o *model.Obs) {
	if h.done {
		return
	}
	if f := h.fatal; f != nil && !((o.Kind == model.ObsOutcome || o.Kind == model.ObsTxnOutcome) && o.Node == f.node) {
		h.fatalEnd()
	}
	switch o.Kind {
	case model.ObsAppSend, model.ObsAppResend:
		h.handed(o)
	case model.ObsOutcome:
		h.outcome(o)
	case model.ObsTxnOutcome:
		if h.isInstance(o.Node) && h.txns[o.Node] != nil {
			h.txnEnd(o)
		}
	case model.ObsSent:
		if o.Flag || !h.isInstance(o.Node) {
			return
		}
		switch m := o.Msg.(type) {
		case *model.ProduceRequest:
			h.produceSent(o.Node, m)
		case *model.EndTxnRequest:
			if g := h.txns[o.Node]; g != nil && m.Commit {
				g.commitSent = true
			}
		}
	case model.ObsDelivered:
		if m, ok := o.Msg.(*model.ProduceResponse); ok && h.isInstance(o.Node) {
			h.produceAnswered(o.Node, m)
		}
	case model.ObsNote:
		h.note(o)
	case model.ObsCrash:
		if h.isInstance(o.Node) {
			h.crashed(o)
		}
	case model.ObsVerdict:
		if o.Result.Err == model.ErrNone && !o.Result.Duplicate {
			e := hlogEntry{pid: o.Batch.PID, txn: o.Batch.Transactional, first: o.Result.FirstOffset, values: make([]int64, len(o.Batch.Records))}
			for i := range o.Batch.Records {
				e.values[i] = WriteValue(&o.Batch.Records[i])
			}
			h.appendLog(o.Batch.Partition, e)
		}
	case model.ObsMarker:
		if o.Err == model.ErrNone {
			h.appendLog(o.Partition, hlogEntry{pid: o.PID, txn: true, marker: o.Marker, first: o.Result.FirstOffset})
		}
	case model.ObsFinalLog:
		// A replicated run: what was appended is read from the final
		// leader's log below its high watermark, not from the appends.
		for int(o.Partition) >= len(h.logs) {
			h.logs = append(h.logs, nil)
		}
		h.logs[o.Partition] = nil
		for i := range o.Log {
			le := &o.Log[i]
			if le.Marker != model.MarkerNone {
				h.appendLog(o.Partition, hlogEntry{pid: le.Batch.PID, txn: true, marker: le.Marker, first: le.FirstOffset})
				continue
			}
			e := hlogEntry{pid: le.Batch.PID, txn: le.Batch.Transactional, first: le.FirstOffset, values: make([]int64, len(le.Batch.Records))}
			for j := range le.Batch.Records {
				e.values[j] = WriteValue(&le.Batch.Records[j])
			}
			h.appendLog(o.Partition, e)
		}
	case model.ObsPoll:
		h.polled(o)
	case model.ObsRunEnd:
		h.end(o.At)
	}
}

// polled adds a consumer's poll that returned records of one partition
// (a consumer node, model/consumer) as a poll operation of its own,
// invoked and completed when the poll returned: [:poll {key [[offset
// value] ...]}], each value the write's ([WriteValue]).
func (h *historian) polled(o *model.Obs) {
	if o.N == 0 {
		return
	}
	kr := KeyReads{Key: o.Partition, Records: make([]Read, 0, o.N)}
	for i := range o.Log {
		e := &o.Log[i]
		for j := range e.Batch.Records {
			kr.Records = append(kr.Records, Read{Offset: e.FirstOffset + int64(j), Value: WriteValue(&e.Batch.Records[j])})
		}
	}
	op := &hop{node: o.Node, f: OpPoll, invokeAt: o.At, invokeT: h.next(), reads: []KeyReads{kr}}
	h.ops = append(h.ops, op)
	h.finish(op, OpOK, "", o.At)
}

// isInstance reports whether node n is a producer instance (they take
// the first node ids).
func (h *historian) isInstance(n int32) bool { return n >= 0 && n < h.ninst }

func (h *historian) appendLog(p int32, e hlogEntry) {
	for int(p) >= len(h.logs) {
		h.logs = append(h.logs, nil)
	}
	h.logs[p] = append(h.logs[p], e)
}

// handed is the application handing a record to instance o.Node: the
// invocation of a send, or a record of the instance's transactions.
func (h *historian) handed(o *model.Obs) {
	s := hsend{id: o.Record.ID, value: WriteValue(&o.Record), part: o.Record.Partition, offset: -1, at: o.At, t: h.next()}
	if g := h.txns[o.Node]; g != nil {
		if g.dead {
			op := &hop{node: o.Node, f: OpTxn, invokeAt: s.at, invokeT: s.t, sends: []hsend{s}}
			h.ops = append(h.ops, op)
			g.alone[s.id] = op
			return
		}
		if i := slices.IndexFunc(g.handed, func(e hsend) bool { return e.id == s.id }); i >= 0 {
			// A record handed again to the same live instance while its
			// earlier send has no outcome (a group application that seeks
			// back after an abort resends what it had handed and the
			// producer never sent): the earlier send ends, unknown, in an
			// operation of its own, so that the record's outcome goes to
			// the send that made it.
			h.txnOp(o.Node, []hsend{g.handed[i]}, OpInfo, "pending", o.At, h.next())
			g.handed = slices.Delete(g.handed, i, i+1)
		}
		g.handed = append(g.handed, s)
		return
	}
	k := opKey{o.Node, s.id}
	if prev := h.open[k]; prev != nil {
		// Not seen in the catalogue: a record handed again to the same
		// live instance ends its earlier send, unknown.
		h.finish(prev, OpInfo, "pending", o.At)
	}
	op := &hop{node: o.Node, f: OpSend, invokeAt: s.at, invokeT: s.t, sends: []hsend{s}}
	h.ops = append(h.ops, op)
	h.open[k] = op
}

// outcome is instance o.Node reporting a record's outcome.
func (h *historian) outcome(o *model.Obs) {
	oc := &o.Outcome
	if g := h.txns[o.Node]; g != nil {
		h.txnOutcome(g, oc)
		return
	}
	k := opKey{o.Node, oc.ID}
	op := h.open[k]
	if op == nil {
		return
	}
	delete(h.open, k)
	if oc.Err == model.ErrNone {
		op.sends[0].offset = oc.Offset
		h.finish(op, OpOK, "", oc.At)
		return
	}
	h.finish(op, sendFailure(op, oc.Err), oc.Err.String(), oc.At)
}

// sendFailure classifies a send that failed with err: fail when it is
// definitely unwritten, info when it may have been written.
//
// A send is definitely unwritten when its record never went on the wire
// (it failed in the producer's accumulator: expired before it was sent,
// aborted because the producer entered a fatal or abortable state, or
// refused because the producer was already fatal), or when its error is a
// broker error that rejects a batch before appending it
// ([RejectedBeforeAppend]) and every attempt that went on the wire was
// answered with such an error.
//
// Everything else is indeterminate: a delivery timeout of a batch that
// was sent (the Java client then marks the partition's sequence
// unresolved, because "the expired batch actually made it to the broker"
// may be the case: TransactionManager.partitionsWithUnresolvedSequences in
// clients/src/main/java/org/apache/kafka/clients/producer/internals/
// TransactionManager.java, set by Sender.sendProducerData for an expired
// batch that was in retry), a request timeout or network error after the
// retries, a rejection after an attempt that went unanswered or was
// answered with a possible write, and a fatal error for a record on the
// wire.
func sendFailure(op *hop, err model.ErrCode) OpType {
	if op.sent == 0 || RejectedBeforeAppend(err) && op.unanswered == 0 && !op.maybe {
		return OpFail
	}
	return OpInfo
}

// txnOutcome places a transactional record's outcome: in an operation of
// its own after a fatal error, or among the open transaction's resolved
// records.
func (h *historian) txnOutcome(g *txnGroup, oc *model.Outcome) {
	if op := g.alone[oc.ID]; op != nil {
		delete(g.alone, oc.ID)
		if oc.Err == model.ErrNone {
			op.sends[0].offset = oc.Offset
			h.finish(op, OpOK, "", oc.At)
			return
		}
		h.finish(op, OpFail, oc.Err.String(), oc.At)
		return
	}
	i := slices.IndexFunc(g.handed, func(s hsend) bool { return s.id == oc.ID })
	if i < 0 {
		return // its transaction ended already (a fatal error claimed it)
	}
	s := g.handed[i]
	g.handed = slices.Delete(g.handed, i, i+1)
	s.failed = oc.Err
	if oc.Err == model.ErrNone {
		s.offset = oc.Offset
	}
	g.resolved = append(g.resolved, s)
}

// txnEnd completes a transaction from its outcome. Committed: ok, with
// the offsets its records were acknowledged at. Aborted: fail, unless
// its EndTxn(COMMIT) had gone out (an abort after a commit answered with
// an abortable error, or whose epoch bump ends a commit the coordinator
// may have begun), which makes it info. Failed (the instance's fatal
// error): fail or info alike, over its records still on the wire too.
func (h *historian) txnEnd(o *model.Obs) {
	n := o.Node
	g := h.txns[n]
	t := h.next()
	switch {
	case o.Flag:
		// A committed transaction's records are exactly the acknowledged
		// ones it lists (a record that failed makes the application
		// abort). Any other is kept apart, indeterminate.
		var ok, odd []hsend
		for _, s := range g.resolved {
			if s.failed == model.ErrNone && slices.Contains(o.IDs, s.id) {
				ok = append(ok, s)
			} else {
				odd = append(odd, s)
			}
		}
		h.txnOp(n, ok, OpOK, "", o.At, t)
		if len(odd) > 0 {
			h.txnOp(n, odd, OpInfo, "not in the committed transaction", o.At, h.next())
		}
	case o.Text == "failed":
		h.txnOp(n, slices.Concat(g.resolved, g.handed), h.ifCommitSent(g), o.Err.String(), o.At, t)
		g.handed, g.dead = nil, true
		h.fatal = nil
	default:
		err := "aborted"
		if o.Err != model.ErrNone {
			err += " " + o.Err.String()
		}
		h.txnOp(n, g.resolved, h.ifCommitSent(g), err, o.At, t)
	}
	g.resolved, g.commitSent = nil, false
}

// note reads the producer note the history needs: a transactional
// instance's fatal error. Its transaction's outcome follows in the same
// step if one was open; otherwise its waiting records fail then, and the
// step's end completes them (fatalEnd).
func (h *historian) note(o *model.Obs) {
	if !h.isInstance(o.Node) || o.NoteKind != model.NoteFatal {
		return
	}
	g := h.txns[o.Node]
	if g == nil {
		return
	}
	g.dead = true
	h.fatal = &fatalStep{node: o.Node, err: o.Err.String(), at: o.At, t: h.next()}
}

// fatalEnd completes the records of an instance whose fatal error was
// noted and whose step ended without a transaction outcome: records the
// application handed over while no transaction was open (they waited for
// one, and failed unsent).
func (h *historian) fatalEnd() {
	f := h.fatal
	h.fatal = nil
	g := h.txns[f.node]
	h.txnOp(f.node, slices.Concat(g.resolved, g.handed), h.ifCommitSent(g), f.err, f.at, f.t)
	g.resolved, g.handed, g.commitSent = nil, nil, false
}

// ifCommitSent is the type of a transaction that ends without
// committing: info when its EndTxn(COMMIT) went out (it may have
// committed), else fail (the coordinator commits only on the producer's
// EndTxn(COMMIT)).
func (h *historian) ifCommitSent(g *txnGroup) OpType {
	if g.commitSent {
		return OpInfo
	}
	return OpFail
}

// txnOp adds a transaction operation over sends, invoked when its first
// record was handed over and completed at at.
func (h *historian) txnOp(node int32, sends []hsend, t OpType, err string, at sim.Time, tick int64) {
	if len(sends) == 0 {
		return
	}
	slices.SortFunc(sends, func(a, b hsend) int { return cmp.Compare(a.t, b.t) })
	op := &hop{node: node, f: OpTxn, invokeAt: sends[0].at, invokeT: sends[0].t, sends: sends}
	h.ops = append(h.ops, op)
	op.closed, op.typ, op.err, op.doneAt, op.doneT = true, t, err, at, tick
}

// crashed closes the open operations of a crashed instance: its sends
// end info ("crashed": the process died not knowing their outcome), and
// its open transaction info if its commit was asked for, else fail (it
// can never commit).
func (h *historian) crashed(o *model.Obs) {
	n := o.Node
	h.reqs[n] = nil
	for _, op := range h.ops {
		if op.node == n && !op.closed {
			delete(h.open, opKey{n, op.sends[0].id})
			h.finish(op, OpInfo, "crashed", o.At)
		}
	}
	if g := h.txns[n]; g != nil {
		h.txnOp(n, slices.Concat(g.resolved, g.handed), h.ifCommitSent(g), "crashed", o.At, h.next())
		clear(g.alone)
		*g = txnGroup{alone: g.alone}
	}
}

// produceSent records the attempts a produce request carries.
func (h *historian) produceSent(n int32, m *model.ProduceRequest) {
	if h.txns[n] != nil {
		return
	}
	var parts []reqPart
	for i := range m.Batches {
		b := &m.Batches[i]
		for _, r := range b.Records {
			if op := h.open[opKey{n, r.ID}]; op != nil {
				op.sent++
				op.unanswered++
				parts = append(parts, reqPart{part: b.Partition, op: op})
			}
		}
	}
	if m.Acks == 0 || len(parts) == 0 {
		return
	}
	if h.reqs[n] == nil {
		h.reqs[n] = make(map[int64]*request)
	}
	h.reqs[n][m.CorrelationID] = &request{parts: parts}
}

// produceAnswered reads a produce response: an attempt answered with an
// error that rejects the batch before it is appended is definitely
// unwritten; any other answer leaves the write possible. Every response
// that reaches the instance counts, even one its producer ignores (the
// network may deliver a request twice, and answer it twice).
func (h *historian) produceAnswered(n int32, m *model.ProduceResponse) {
	req := h.reqs[n][m.CorrelationID]
	if req == nil {
		return
	}
	first := !req.answered
	req.answered = true
	for _, pr := range m.Partitions {
		for _, rp := range req.parts {
			if rp.part != pr.Partition {
				continue
			}
			if first {
				rp.op.unanswered--
			}
			if !RejectedBeforeAppend(pr.Err) {
				rp.op.maybe = true
			}
		}
	}
}

// RejectedBeforeAppend reports whether a broker's produce error for a
// batch means the batch was not appended: the broker refused it before
// writing. Kafka (3.8.0) checks the in-sync replica count in
// Partition.appendRecordsToLeader before leaderLog.appendAsLeader
// (core/src/main/scala/kafka/cluster/Partition.scala), and validates the
// batch's records and producer state in UnifiedLog.append
// (analyzeAndValidateRecords, analyzeAndValidateProducerState) before
// localLog.append (core/src/main/scala/kafka/log/UnifiedLog.scala). Any
// other error leaves the write possible ([sendFailure]):
//   - REQUEST_TIMED_OUT from a broker is DelayedProduce expiring after the
//     leader appended (core/src/main/scala/kafka/server/DelayedProduce.scala);
//   - NOT_LEADER_OR_FOLLOWER also comes after the append, when the leader
//     loses its leadership while it waits for acks=all
//     (Partition.checkEnoughReplicasReachOffset);
//   - NOT_ENOUGH_REPLICAS_AFTER_APPEND says so ("discovered *after* the
//     message was already appended to the log. Producer retries will
//     cause duplicates", NotEnoughReplicasAfterAppendException);
//   - NETWORK_EXCEPTION, UNKNOWN_SERVER_ERROR and unknown codes tell
//     nothing.
func RejectedBeforeAppend(e model.ErrCode) bool {
	switch e {
	case model.ErrNotEnoughReplicas, model.ErrInvalidRequest,
		model.ErrOutOfOrderSequenceNumber, model.ErrInvalidProducerEpoch, model.ErrInvalidTxnState,
		model.ErrInvalidProducerIDMapping, model.ErrConcurrentTransactions, model.ErrTransactionCoordinatorFenced,
		model.ErrUnknownProducerID, model.ErrInvalidRecord, model.ErrProducerFenced, model.ErrTransactionAbortable:
		return true
	}
	return false
}

// finish completes op.
func (h *historian) finish(op *hop, t OpType, err string, at sim.Time) {
	op.closed, op.typ, op.err, op.doneAt, op.doneT = true, t, err, at, h.next()
}

// end closes what is still open as info ("pending") and adds the final
// polls of every partition from offset 0: read_committed, then
// read_uncommitted.
func (h *historian) end(at sim.Time) {
	for n, g := range h.txns {
		if g == nil {
			continue
		}
		h.txnOp(int32(n), slices.Concat(g.resolved, g.handed), OpInfo, "pending", at, h.next())
		g.resolved, g.handed = nil, nil
	}
	for _, op := range h.ops {
		if !op.closed {
			h.finish(op, OpInfo, "pending", at)
		}
	}
	clear(h.open)
	for _, f := range []Final{FinalReadCommitted, FinalReadUncommitted} {
		op := &hop{node: -1, f: OpPoll, invokeAt: at, invokeT: h.next(), final: f, reads: h.finalReads(f)}
		h.ops = append(h.ops, op)
		h.finish(op, OpOK, "", at)
	}
	h.done = true
	h.hist = h.build()
}

// finalReads reads every partition from offset 0: read_uncommitted
// returns every data record; read_committed the non-transactional ones
// and the transactional ones whose producer's next marker on the
// partition is a COMMIT (as package check judges "committed"; the last
// stable offset is not modelled, so records after an open transaction are
// returned).
func (h *historian) finalReads(f Final) []KeyReads {
	out := make([]KeyReads, h.parts)
	for p := range out {
		out[p].Key = int32(p)
		out[p].Records = []Read{}
		if p >= len(h.logs) {
			continue
		}
		log := h.logs[p]
		visible := make([]bool, len(log))
		open := map[model.ProducerID][]int{}
		for i, e := range log {
			switch {
			case e.marker != model.MarkerNone:
				if e.marker == model.MarkerCommit {
					for _, j := range open[e.pid] {
						visible[j] = true
					}
				}
				delete(open, e.pid)
			case e.txn && f == FinalReadCommitted:
				open[e.pid] = append(open[e.pid], i)
			default:
				visible[i] = true
			}
		}
		for i, e := range log {
			if !visible[i] {
				continue
			}
			for j, v := range e.values {
				out[p].Records = append(out[p].Records, Read{Offset: e.first + int64(j), Value: v})
			}
		}
	}
	return out
}

// build numbers the events in stream order and gives each operation its
// process: per producer instance, the lowest process free at its
// invocation; a process whose operation ended info is retired.
func (h *historian) build() *History {
	type event struct {
		op     *hop
		t      int64
		invoke bool
	}
	evs := make([]event, 0, 2*len(h.ops))
	for _, op := range h.ops {
		evs = append(evs, event{op, op.invokeT, true}, event{op, op.doneT, false})
	}
	// Every event has a tick of its own, in stream order.
	slices.SortFunc(evs, func(a, b event) int { return cmp.Compare(a.t, b.t) })
	hist := &History{Partitions: h.parts, Ops: make([]HistoryOp, 0, len(evs))}
	free := map[int32][]int{}
	proc := map[*hop]int{}
	nextProc := 0
	for _, ev := range evs {
		op := ev.op
		ho := HistoryOp{Index: len(hist.Ops), F: op.f, Final: op.final}
		if ev.invoke {
			fs := free[op.node]
			if len(fs) > 0 && op.node >= 0 {
				proc[op] = fs[0]
				free[op.node] = fs[1:]
			} else {
				proc[op] = nextProc
				nextProc++
			}
			ho.Time, ho.Type, ho.Value = op.invokeAt, OpInvoke, op.invokeValue()
		} else {
			ho.Time, ho.Type, ho.Value, ho.Error = op.doneAt, op.typ, op.doneValue(), op.err
			if op.typ != OpInfo && op.node >= 0 {
				fs := append(free[op.node], proc[op])
				slices.Sort(fs)
				free[op.node] = fs
			}
		}
		ho.Process = proc[op]
		hist.Ops = append(hist.Ops, ho)
	}
	return hist
}

func (op *hop) invokeValue() []Mop {
	if op.f == OpPoll {
		return []Mop{{Poll: true}}
	}
	v := make([]Mop, len(op.sends))
	for i, s := range op.sends {
		v[i] = Mop{Key: s.part, Value: s.value, Record: RecordValue(s.id), Offset: -1}
	}
	return v
}

func (op *hop) doneValue() []Mop {
	if op.f == OpPoll {
		return []Mop{{Poll: true, Reads: op.reads}}
	}
	v := make([]Mop, len(op.sends))
	for i, s := range op.sends {
		v[i] = Mop{Key: s.part, Value: s.value, Record: RecordValue(s.id), Offset: -1}
		if op.typ == OpOK {
			v[i].Offset, v[i].Acked = s.offset, true
		}
	}
	return v
}

// history returns the history once the run ended (nil before).
func (h *historian) history() *History { return h.hist }

// String returns "send 0 [60 20]"-like text for a micro-operation, for
// tests and messages.
func (m Mop) String() string {
	if m.Poll {
		b := []byte("poll")
		for _, kr := range m.Reads {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(kr.Key), 10)
			b = append(b, ":["...)
			for i, r := range kr.Records {
				if i > 0 {
					b = append(b, ' ')
				}
				b = strconv.AppendInt(b, r.Offset, 10)
				b = append(b, '=')
				b = strconv.AppendInt(b, r.Value, 10)
			}
			b = append(b, ']')
		}
		return string(b)
	}
	b := []byte("send ")
	b = strconv.AppendInt(b, int64(m.Key), 10)
	b = append(b, ' ')
	if !m.Acked {
		return string(strconv.AppendInt(b, m.Value, 10))
	}
	b = append(b, '[')
	if m.Offset < 0 {
		b = append(b, "nil"...)
	} else {
		b = strconv.AppendInt(b, m.Offset, 10)
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, m.Value, 10)
	return string(append(b, ']'))
}
