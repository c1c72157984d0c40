package client

import (
	"slices"
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Transactions (ProducerConfig.TransactionRecords > 0), after the Java
// client's TransactionManager with classic transactions (transaction
// version 1, KIP-98; Kafka 3.9
// clients/src/main/java/org/apache/kafka/clients/producer/internals/TransactionManager.java):
//   - the first record of a transaction begins it; before a partition's
//     first batch of the transaction is sent, the producer adds the
//     partition with AddPartitionsToTxn and waits for the answer;
//   - batches are transactional;
//   - once TransactionRecords records are in the transaction (or the
//     application asks, [Producer.Flush]) and all of them are
//     acknowledged, the producer sends EndTxn(COMMIT); records the
//     application sends meanwhile wait for the next transaction, as
//     commitTransaction blocks the application thread;
//   - a record's outcome is its produce acknowledgement or failure, as a
//     send() future completes in Kafka (Sender.completeBatch,
//     ProducerBatch.complete); the transaction's end is a separate result
//     ([model.TxnResult]): committed, aborted, or failed with the instance. An
//     acknowledged record of a transaction that did not commit is not a
//     delivery, and the report keeps the two apart;
//   - an abortable error (TransactionManager.maybeTransitionToErrorState:
//     a head batch's OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH,
//     INVALID_TXN_STATE on produce) aborts the transaction with
//     EndTxn(ABORT) and then bumps the epoch through InitProducerId
//     (KIP-360), and the records the application sent meanwhile wait for
//     the bump, as abortTransaction returns only after it
//     (TransactionManager.beginCompletingTransaction, l.338-361 at
//     apache/kafka@1eb7644349cb); after INVALID_PRODUCER_ID_MAPPING the
//     abort skips EndTxn (l.342-345), and so does the abort of a
//     transaction with no partition added yet (nextRequest, l.816-822);
//   - AddPartitionsToTxn and EndTxn errors are classified as the client's
//     handlers do ([txnErrorAction]); PRODUCER_FENCED,
//     INVALID_PRODUCER_EPOCH and INVALID_TXN_STATE from the coordinator
//     are fatal (InitProducerIdHandler, AddPartitionsToTxnHandler and
//     EndTxnHandler turn them into fatalError).
//
// Simplification: one transaction at a time and no consumer offsets
// (AddOffsetsToTxn, TxnOffsetCommit are not modelled).
type txnState struct {
	open bool
	// n counts the records in the open transaction.
	n int
	// added[p] tells whether partition p is in the open transaction;
	// needAdd lists partitions waiting for AddPartitionsToTxn.
	added   []bool
	needAdd []int32
	adding  bool // AddPartitionsToTxn on the wire
	ending  bool // EndTxn on the wire
	// commit is set once the transaction should commit, abort once it
	// must abort.
	commit, abort bool
	// acked are the records of the open transaction whose produce was
	// acknowledged (their outcomes are reported at once); the
	// transaction's result lists them.
	acked []model.RecordID
	// waiting are records the application sent while the transaction was
	// ending (or, after an abort, until the epoch bump); they start the
	// next one.
	waiting []model.Record
	// skipEnd: the abort goes on to the epoch bump without EndTxn (an
	// EndTxn(ABORT) answered with an error that needs the bump).
	skipEnd bool
	// flush asks to commit what the open transaction holds.
	flush bool
	// nextInput is the input position after the transaction's records
	// (the highest message number + 1), committed with the transaction
	// when ProducerConfig.GroupID is set; offsetsAdded and
	// offsetsCommitted track AddOffsetsToTxn and TxnOffsetCommit, and
	// offsetsBusy that one of them is on the wire.
	nextInput                      int64
	offsetsAdded, offsetsCommitted bool
	// inputNext is, with ProducerConfig.InputParts, each input
	// partition's next offset after the transaction's records (-1:
	// none); meta is the group metadata its offsets go with.
	inputNext   []int64
	meta        model.GroupMetadata
	offsetsBusy bool
	retryAt     sim.Time
	// abortedBy is the first error that made the transaction abort.
	abortedBy model.ErrCode
	// sent: a batch of the open transaction went on the wire (transaction
	// version 2: the leader may have added its partition, so the
	// transaction must end with EndTxn).
	sent bool
	// ordinal is the open transaction's number on this instance (1, 2,
	// ...), stamped on its batches and EndTxn; opened counts transactions
	// begun so far and survives the reset at each transaction's end.
	ordinal, opened int32
}

// Request kinds a prequest can carry besides produce and InitProducerId.
const (
	txnOpNone uint8 = iota
	txnOpAdd
	txnOpEnd
	txnOpAddOffsets
	txnOpCommitOffsets
)

// openInput starts a group application's transaction: no input offsets
// yet, and the group metadata the application gave last
// (SetGroupMetadata), which its sendOffsetsToTransaction passes.
func (t *txnState) openInput(p *Producer) {
	t.inputNext = t.inputNext[:0]
	for range p.cfg.InputParts {
		t.inputNext = append(t.inputNext, -1)
	}
	t.meta = p.groupMeta
}

// SetGroupMetadata gives the producer the application's consumer group
// metadata (KafkaConsumer.groupMetadata()), which the next transaction
// commits its offsets with (KafkaProducer.sendOffsetsToTransaction(offsets,
// groupMetadata), KIP-447): the metadata of the poll whose records open a
// transaction is the one its TxnOffsetCommit carries, so that a
// transaction whose instance was paused past its session commits with
// the generation it read its records in. The zero value is the
// deprecated sendOffsetsToTransaction(offsets, groupId)'s: generation -1,
// no member, and the group coordinator skips the generation check.
func (p *Producer) SetGroupMetadata(md model.GroupMetadata) { p.groupMeta = md }

// CommitOpen asks the producer to commit its open transaction once its
// records are acknowledged (the application's commitTransaction from
// ConsumerRebalanceListener.onPartitionsRevoked); it reports whether a
// transaction is open (else there is nothing to wait for).
func (p *Producer) CommitOpen(now sim.Time) ([]model.Out, bool) {
	p.begin()
	if !p.txnMode() || !p.txn.open {
		return p.out, false
	}
	if !p.txn.abort {
		p.txn.commit = true
		p.poll(now)
	}
	return p.out, true
}

func (p *Producer) txnMode() bool { return p.cfg.TransactionRecords > 0 && p.cfg.TransactionalID != "" }

// txnSend takes an application record in transaction mode. It returns true
// when the record must wait for the next transaction.
func (p *Producer) txnSend(rec model.Record) bool {
	t := &p.txn
	if t.ending || t.commit || t.abort || !t.open && p.txnBump && p.abortErr != model.ErrNone {
		// While a transaction ends, and after an abort until its epoch
		// bump is answered: the application's abortTransaction returns
		// only then (TransactionManager.beginCompletingTransaction:
		// with an epoch bump required the abort's result is the
		// InitProducerId's), so a record sent meanwhile waits for the
		// next transaction instead of failing in the abortable state.
		t.waiting = append(t.waiting, rec)
		return true
	}
	if t.added == nil {
		t.added = make([]bool, len(p.parts))
	}
	if !t.open {
		t.opened++
		t.ordinal = t.opened
		if p.cfg.InputParts > 0 {
			t.openInput(p)
		}
	}
	t.open = true
	t.n++
	t.nextInput = max(t.nextInput, rec.ID.N+1)
	if p.cfg.InputParts > 0 {
		i := rec.ID.N % int64(p.cfg.InputParts)
		off := rec.ID.N/int64(p.cfg.InputParts) + 1
		if i == 0 {
			off += p.cfg.InputSkip0
		}
		t.inputNext[i] = max(t.inputNext[i], off)
	}
	if p.txnV2() {
		// KIP-890 part 2: no AddPartitionsToTxn; the leader adds the
		// partition when the first batch arrives.
		t.added[rec.Partition] = true
	} else if !t.added[rec.Partition] && !slices.Contains(t.needAdd, rec.Partition) {
		t.needAdd = append(t.needAdd, rec.Partition)
	}
	if t.n >= p.cfg.TransactionRecords {
		t.commit = true
	}
	return false
}

// Flush asks the producer to commit its open transaction once its records
// are acknowledged (the application's commitTransaction at the end of its
// stream). Without transactions it does nothing.
func (p *Producer) Flush(now sim.Time) []model.Out {
	p.begin()
	if p.txnMode() && p.txn.open {
		p.txn.flush = true
		p.poll(now)
	}
	return p.out
}

// txnRecord notes a record's outcome in the open transaction: an
// acknowledged record joins the transaction's acknowledged records, and a
// failed one makes the application abort the transaction.
func (p *Producer) txnRecord(o model.Outcome) {
	t := &p.txn
	if !p.txnMode() || !t.open {
		return
	}
	if o.Err == model.ErrNone {
		t.acked = append(t.acked, o.ID)
		return
	}
	if !t.abort && p.fatal == model.ErrNone {
		// A record of the open transaction failed: the transaction must
		// abort (the application's abortTransaction).
		t.abort = true
		if t.abortedBy == model.ErrNone {
			t.abortedBy = o.Err
		}
	}
}

// txnStarted reports whether the coordinator knows the open transaction:
// some partition was added (TransactionManager.transactionStarted).
func (p *Producer) txnStarted() bool {
	if p.txnV2() {
		return p.txn.sent || p.txn.offsetsAdded
	}
	return slices.Contains(p.txn.added, true) || p.txn.offsetsAdded
}

// txnDrainable tells whether partition ps may send in transaction mode.
func (p *Producer) txnDrainable(ps *partState) bool {
	return !p.txnMode() || p.txn.added != nil && p.txn.added[ps.id]
}

// txnUnacked reports whether any record of the open transaction is not yet
// acknowledged or failed.
func (p *Producer) txnUnacked() bool {
	for _, ps := range p.parts {
		if len(ps.queue) > 0 || len(ps.unacked) > 0 {
			return true
		}
	}
	return false
}

// txnStep sends what the transaction needs next: AddPartitionsToTxn for new
// partitions, EndTxn when it should commit or abort.
func (p *Producer) txnStep(now sim.Time) {
	t := &p.txn
	if !p.txnMode() || p.pid == model.NoProducerID || p.fatal != model.ErrNone || now < t.retryAt {
		return
	}
	if p.abortErr != model.ErrNone && t.open && !t.abort {
		t.abort, t.abortedBy = true, p.abortErr
	}
	if t.ending || t.adding || p.bumpInTxn {
		return
	}
	if t.abort {
		if !p.nothingOnWire() {
			return
		}
		switch {
		case p.abortErr == model.ErrInvalidProducerIDMapping || t.skipEnd:
			// TransactionManager.beginCompletingTransaction l.342-345: the
			// coordinator will not accept EndTxn; go straight to the
			// epoch bump (InitProducerId with the current pid and epoch).
			p.note(model.NoteInfo, "abort without EndTxn: the epoch bump ends the transaction")
			p.endTxn(now, false)
			return
		case !p.txnStarted():
			// TransactionManager.nextRequest l.816-822: no partition was
			// added, so the coordinator knows no transaction; EndTxn is
			// not sent and the transaction ends locally.
			p.note(model.NoteInfo, "abort without EndTxn: no partition was added")
			p.endTxn(now, false)
			return
		}
		p.sendTxn(now, txnOpEnd, false)
		return
	}
	if len(t.needAdd) > 0 {
		p.sendTxn(now, txnOpAdd, false)
		return
	}
	if t.open && (t.commit || t.flush) && !p.txnUnacked() {
		if p.cfg.GroupID != "" && !t.offsetsCommitted {
			// sendOffsetsToTransaction before commitTransaction. Under
			// transaction version 2 the client sends TxnOffsetCommit v5
			// alone: the group coordinator adds the offsets partition to
			// the transaction (KIP-890 part 2).
			if !t.offsetsBusy {
				if !t.offsetsAdded && !p.txnV2() {
					p.sendTxn(now, txnOpAddOffsets, false)
				} else {
					p.sendTxn(now, txnOpCommitOffsets, false)
				}
			}
			return
		}
		p.endOrComplete(now, true)
	}
}

// endOrComplete ends the open transaction: with EndTxn once a partition
// was added to it, else locally. The Java client sends no EndTxn for a
// transaction to which no partition (or offsets) was successfully added
// (clients/src/main/java/org/apache/kafka/clients/producer/internals/TransactionManager.java,
// nextRequest, lines 816-823: transactionStarted, set by a successful
// AddPartitionsToTxn at line 1448 and cleared by completeTransaction at
// line 1186); the coordinator would answer it INVALID_TXN_STATE (its state
// is still Empty or Complete*), which is fatal (EndTxnHandler). An epoch
// bump the abort owes then follows as usual.
func (p *Producer) endOrComplete(now sim.Time, commit bool) {
	if p.txnStarted() {
		p.sendTxn(now, txnOpEnd, commit)
		return
	}
	p.note(model.NoteInfo, "no partition was added to the transaction: it ends without EndTxn")
	p.endTxn(now, commit)
}

func (p *Producer) sendTxn(now sim.Time, op uint8, commit bool) {
	dest, kind := model.DestCoordinator, model.CoordKeyTransaction
	if op == txnOpCommitOffsets {
		dest, kind = model.DestGroupCoordinator, model.CoordKeyGroup
	}
	tag, ok := p.coordReady(now, kind) // coordlookup.go
	if !ok {
		return
	}
	c := p.conn(dest)
	if !p.ensureConn(now, c) {
		return
	}
	q := p.newRequest(dest, now)
	q.txnOp = op
	var m model.Message
	switch op {
	case txnOpAddOffsets:
		m = model.Carve(&p.pool.msgs.addOffsets, model.AddOffsetsToTxnRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, PID: p.pid, Epoch: p.epoch, GroupID: p.cfg.GroupID, Coord: tag})
		p.txn.offsetsBusy = true
	case txnOpCommitOffsets:
		m = model.Carve(&p.pool.msgs.offsetCommit, model.TxnOffsetCommitRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, GroupID: p.cfg.GroupID, PID: p.pid, Epoch: p.epoch, Offset: p.txn.nextInput,
			TransactionV2: p.txnV2(), Coord: tag})
		if p.cfg.InputParts > 0 {
			p.inputOffsets(m.(*model.TxnOffsetCommitRequest))
		}
		p.txn.offsetsBusy = true
	case txnOpAdd:
		parts := p.pool.msgs.parts.Slice(len(p.txn.needAdd))
		copy(parts, p.txn.needAdd)
		slices.Sort(parts)
		m = model.Carve(&p.pool.msgs.addParts, model.AddPartitionsToTxnRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, PID: p.pid, Epoch: p.epoch, Partitions: parts, Txn: p.txn.ordinal, Coord: tag})
		p.txn.adding = true
	default:
		m = model.Carve(&p.pool.msgs.endTxn, model.EndTxnRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, PID: p.pid, Epoch: p.epoch, Commit: commit, Txn: p.txn.ordinal, Version: 4, Coord: tag})
		if p.txnV2() {
			m.(*model.EndTxnRequest).Version = 5
		}
		p.txn.ending = true
	}
	c.inflight = append(grab(c.inflight, &c.spare), q)
	p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: dest, Msg: m})
}

// inputOffsets fills a group application's TxnOffsetCommit: the input
// partitions the transaction read, each with the offset after its last
// record, and the group metadata (KafkaProducer.sendOffsetsToTransaction:
// TransactionManager.txnOffsetCommitHandler builds the
// TxnOffsetCommitRequest with the member id, generation and group
// instance id of the ConsumerGroupMetadata passed).
func (p *Producer) inputOffsets(m *model.TxnOffsetCommitRequest) {
	m.GroupMetadata = p.txn.meta
	m.Partitions, m.Offsets = []int32{}, []int64{}
	for i, off := range p.txn.inputNext {
		if off >= 0 {
			m.Partitions = append(m.Partitions, p.cfg.InputBase+int32(i))
			m.Offsets = append(m.Offsets, off)
		}
	}
}

// txnLost handles a transactional request lost with its connection: it is
// sent again, after a new lookup of its coordinator
// (TxnRequestHandler.onComplete, wasDisconnected).
func (p *Producer) txnLost(q *prequest) {
	kind := model.CoordKeyTransaction
	if q.txnOp == txnOpCommitOffsets {
		kind = model.CoordKeyGroup
	}
	p.coordLost(0, kind, "", model.ErrNetworkException)
	switch q.txnOp {
	case txnOpAdd:
		p.txn.adding = false
	case txnOpEnd:
		p.txn.ending = false
	case txnOpAddOffsets, txnOpCommitOffsets:
		p.txn.offsetsBusy = false
	}
}

// txnAction is what the Java client does with an AddPartitionsToTxn or
// EndTxn error (TransactionManager's AddPartitionsToTxnHandler and
// EndTxnHandler.handleResponse).
type txnAction uint8

const (
	txnRetry txnAction = iota
	// txnAbortable: abortableError, the application must abort.
	txnAbortable
	// txnAbortableBump: abortableErrorIfPossible (TransactionManager
	// l.1214-1221): abortable with an epoch bump when the coordinator can
	// bump (InitProducerId v3+, canBumpEpoch l.1170-1176), fatal when it
	// cannot. idemsim's coordinator always can (Kafka 2.5+), so this is
	// the abortable path.
	txnAbortableBump
	txnFatal
)

// ipimFatal reports whether INVALID_PRODUCER_ID_MAPPING is fatal for the
// Java client of release clientVersion (major*100+minor, 0 the newest):
// from 4.0 it is (KAFKA-18019), before it was abortable with an epoch bump
// (KIP-360).
func ipimFatal(clientVersion int) bool { return clientVersion == 0 || clientVersion >= 400 }

// txnErrorAction classifies a transactional request's error as the Java
// client's handlers do (apache/kafka@1eb7644349cb,
// clients/src/main/java/org/apache/kafka/clients/producer/internals/TransactionManager.java,
// AddPartitionsToTxnHandler.handleResponse l.1381-1451, EndTxnHandler
// .handleResponse l.1566-1592):
//   - retriable errors, CONCURRENT_TRANSACTIONS among them, are retried;
//   - INVALID_PRODUCER_EPOCH and PRODUCER_FENCED are fatal (as
//     PRODUCER_FENCED), and so is INVALID_TXN_STATE (l.1405-1413,
//     l.1578-1584);
//   - UNKNOWN_PRODUCER_ID and INVALID_PRODUCER_ID_MAPPING are abortable
//     with an epoch bump (l.1420-1422, l.1585-1586), except that from the
//     4.0 client INVALID_PRODUCER_ID_MAPPING is fatal (KAFKA-18019: the
//     coordinator forgot the transactional id, so no bump can recover it);
//   - TRANSACTION_ABORTABLE is abortable (l.1423-1425, l.1587-1588);
//   - anything else is abortable for AddPartitionsToTxn (a partition
//     error, l.1426-1429 and l.1443-1444) and fatal for EndTxn
//     (l.1589-1591).
func txnErrorAction(op uint8, e model.ErrCode, clientVersion int) txnAction {
	switch {
	case e.Retriable():
		return txnRetry
	case e == model.ErrProducerFenced, e == model.ErrInvalidProducerEpoch, e == model.ErrInvalidTxnState:
		return txnFatal
	case e == model.ErrInvalidProducerIDMapping && ipimFatal(clientVersion):
		return txnFatal
	case e == model.ErrUnknownProducerID, e == model.ErrInvalidProducerIDMapping:
		return txnAbortableBump
	case e == model.ErrTransactionAbortable, op == txnOpAdd:
		return txnAbortable
	}
	return txnFatal
}

// handleTxnResponse handles AddPartitionsToTxn and EndTxn answers.
func (p *Producer) handleTxnResponse(now sim.Time, q *prequest, r *model.TxnResponse) {
	t := &p.txn
	switch q.txnOp {
	case txnOpAdd:
		t.adding = false
		if r.Err == model.ErrNone {
			for _, part := range t.needAdd {
				t.added[part] = true
			}
			t.needAdd = t.needAdd[:0]
			return
		}
	case txnOpAddOffsets, txnOpCommitOffsets:
		t.offsetsBusy = false
		switch r.Err {
		case model.ErrNone:
			if q.txnOp == txnOpAddOffsets {
				t.offsetsAdded = true
			} else {
				// Under transaction version 2 the commit also added the
				// offsets partition to the transaction.
				t.offsetsCommitted = true
				t.offsetsAdded = t.offsetsAdded || p.txnV2()
			}
		case model.ErrConcurrentTransactions, model.ErrNotEnoughReplicas, model.ErrRequestTimedOut, model.ErrNetworkException, model.ErrUnstableOffsetCommit,
			model.ErrNotCoordinator, model.ErrCoordinatorNotAvailable, model.ErrCoordinatorLoadInProgress:
			// The coordinator errors: AddOffsetsToTxnHandler and
			// TxnOffsetCommitHandler look the coordinator up again on
			// NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE, and retry
			// (coordlookup.go).
			if coordRetry(r.Err) {
				kind := model.CoordKeyTransaction
				if q.txnOp == txnOpCommitOffsets {
					kind = model.CoordKeyGroup
				}
				p.coordLost(now, kind, r.Op, r.Err)
			}
			t.retryAt = now.Add(p.cfg.RetryBackoff)
		case model.ErrProducerFenced, model.ErrInvalidProducerEpoch, model.ErrInvalidTxnState:
			// Fatal (AddOffsetsToTxnHandler, TxnOffsetCommitHandler).
			p.note(model.NoteInfo, r.Op+" "+r.Err.String())
			p.enterFatal(now, fatalOf(r.Err))
		default:
			// Abortable: the transaction aborts (the same handlers:
			// UNKNOWN_PRODUCER_ID, INVALID_PRODUCER_ID_MAPPING with a
			// bump; GROUP_AUTHORIZATION_FAILED, TRANSACTION_ABORTABLE;
			// and, for TxnOffsetCommit, UNKNOWN_MEMBER_ID and
			// ILLEGAL_GENERATION as a CommitFailedException, "Transaction
			// offset Commit failed due to consumer group metadata
			// mismatch", and FENCED_INSTANCE_ID: TransactionManager
			// .TxnOffsetCommitHandler.handleResponse, apache/kafka@00549248).
			p.note(model.NoteInfo, r.Op+" "+r.Err.String())
			p.abortable(now, r.Err)
		}
		return
	case txnOpEnd:
		t.ending = false
		if r.Err == model.ErrNone {
			if p.txnV2() && r.PID != model.NoProducerID {
				p.adoptEndTxnEpoch(r.PID, r.Epoch)
			}
			p.endTxn(now, !t.abort)
			return
		}
	}
	op := "AddPartitionsToTxn "
	if q.txnOp == txnOpEnd {
		op = "EndTxn "
	}
	if coordRetry(r.Err) {
		// AddPartitionsToTxnHandler and EndTxnHandler: NOT_COORDINATOR
		// and COORDINATOR_NOT_AVAILABLE look the coordinator up again,
		// COORDINATOR_LOAD_IN_PROGRESS keeps it; the request is sent
		// again (coordlookup.go).
		p.coordLost(now, model.CoordKeyTransaction, r.Op, r.Err)
		t.retryAt = now.Add(p.cfg.RetryBackoff)
		return
	}
	switch txnErrorAction(q.txnOp, r.Err, p.cfg.ClientVersion) {
	case txnRetry:
		t.retryAt = now.Add(p.cfg.RetryBackoff)
	case txnAbortable, txnAbortableBump:
		// idemsim always bumps after an abort: a plain abortable error
		// never comes from its coordinator.
		p.note(model.NoteInfo, op+r.Err.String())
		if q.txnOp == txnOpEnd && t.abort {
			if p.txnV2() {
				// The EndTxn that was to bump the epoch failed: bump it
				// through InitProducerId.
				p.txnBump = true
			}
			// The abort itself failed: the application goes on to the
			// epoch bump without another EndTxn. (Kafka 4.0 ignores the
			// transition while aborting, l.462-467, and fails
			// abortTransaction; a second abortTransaction is then an
			// invalid transition. idemsim lets the abort end in the bump,
			// which the coordinator fences when the producer id was
			// taken over.)
			t.skipEnd = true
		}
		p.abortable(now, r.Err)
	default:
		p.note(model.NoteInfo, op+r.Err.String())
		p.enterFatal(now, fatalOf(r.Err))
	}
}

// fatalOf maps a coordinator error to the producer's fatal error. The
// Java client's InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn and
// EndTxn handlers turn INVALID_PRODUCER_EPOCH into ProducerFencedException;
// its TxnOffsetCommitHandler raises the error it got
// (isFatalException, then fatalError(error.exception())), so a fenced
// TxnOffsetCommit, which brokers answer INVALID_PRODUCER_EPOCH, stops a
// real Java producer with InvalidProducerEpochException where idemsim
// counts a PRODUCER_FENCED fatal: the same stop, one label for every
// fence (librdkafka reports each as its __FENCED).
func fatalOf(e model.ErrCode) model.ErrCode {
	if e == model.ErrInvalidProducerEpoch {
		return model.ErrProducerFenced // INVALID_PRODUCER_EPOCH from a coordinator API is PRODUCER_FENCED (TransactionManager's coordinator response handlers)
	}
	return e
}

// endTxn closes the open transaction: after a successful EndTxn, or an
// abort that skips it. The application learns the transaction's result
// (its records' outcomes were reported at their acknowledgements). Records
// the application sent meanwhile start the next transaction, once the
// epoch bump that follows an abort is done (txnResume).
func (p *Producer) endTxn(now sim.Time, committed bool) {
	t := &p.txn
	p.txnResult(committed, false, t.abortedBy)
	if !committed && p.cfg.GroupID != "" && len(t.waiting) > 0 {
		// An exactly-once application rewinds its input to the
		// committed position after an abort: what it sent meanwhile is
		// dropped, and it sends those records again from there.
		r := &p.pool.txns[len(p.pool.txns)-1]
		from := len(p.pool.txnIDs)
		for _, rec := range t.waiting {
			p.pool.txnIDs = append(p.pool.txnIDs, rec.ID)
		}
		r.Dropped = p.pool.txnIDs[from:len(p.pool.txnIDs):len(p.pool.txnIDs)]
		t.waiting = t.waiting[:0]
	}
	waiting := t.waiting
	added := t.added
	for i := range added {
		added[i] = false
	}
	*t = txnState{added: added, flush: t.flush, waiting: waiting, opened: t.opened, acked: t.acked[:0], inputNext: t.inputNext[:0]}
	if p.txnV2() && !p.txnBump {
		// Transaction version 2: the abort itself bumped the epoch; the
		// abortable-error state ends with it (KAFKA-17898).
		p.abortErr = model.ErrNone
	}
	if !p.txnBump {
		p.txnResume(now)
	}
}

// txnResume starts the next transaction with the records the application
// sent while the last one ended.
func (p *Producer) txnResume(now sim.Time) {
	waiting := p.txn.waiting
	p.txn.waiting = nil
	for _, rec := range waiting {
		p.sendRecord(now, rec)
	}
}

// txnResult reports the open transaction's end to the application and
// hands over its acknowledged records.
func (p *Producer) txnResult(committed, failed bool, err model.ErrCode) {
	t := &p.txn
	if committed {
		err = model.ErrNone
	}
	// The records are handed over as a copy in the call's buffer, so
	// that the transaction's list keeps its storage for the next one.
	var ids []model.RecordID
	if len(t.acked) > 0 {
		from := len(p.pool.txnIDs)
		p.pool.txnIDs = append(p.pool.txnIDs, t.acked...)
		ids = p.pool.txnIDs[from:len(p.pool.txnIDs):len(p.pool.txnIDs)]
	}
	p.pool.txns = append(p.pool.txns, model.TxnResult{Committed: committed, Failed: failed, Err: err, Records: ids, Txn: t.ordinal})
	p.out = append(p.out, model.Out{Kind: model.OutTxnResult, Txn: &p.pool.txns[len(p.pool.txns)-1]})
	t.acked = t.acked[:0]
}

// txnFail ends the open transaction without a commit when the instance
// goes fatal (commitTransaction or abortTransaction fails for good), and
// fails the records waiting for the next transaction with err.
func (p *Producer) txnFail(now sim.Time, err model.ErrCode) {
	t := &p.txn
	if p.txnMode() && t.open {
		p.txnResult(false, true, err)
		t.open = false
	}
	waiting := t.waiting
	t.waiting = nil
	for _, r := range waiting {
		p.result(now, r, err, -1)
	}
}

// txnEnding reports whether an open transaction must still be aborted or
// is being ended, which comes before an epoch bump (abort, then
// InitProducerId: TransactionManager.beginCompletingTransaction).
func (p *Producer) txnEnding() bool {
	return p.txnMode() && p.txn.open && (p.txn.abort || p.txn.ending)
}

// InTransaction reports whether record id was acknowledged inside the
// open transaction, which has not ended yet. The world asks right after
// the record's acknowledgement, so the list is searched from its end: a
// transaction of a million records costs a batch's worth per question,
// not the transaction's length.
func (p *Producer) InTransaction(id model.RecordID) bool {
	if !p.txnMode() || !p.txn.open {
		return false
	}
	for i := len(p.txn.acked) - 1; i >= 0; i-- {
		if p.txn.acked[i] == id {
			return true
		}
	}
	return false
}

// txnOrdinal is the [model.Batch.Txn] stamp for a batch built for rec: the open
// transaction's ordinal in transaction mode, else 0.
func (p *Producer) txnOrdinal(rec model.Record) int32 {
	if !p.txnMode() {
		return 0
	}
	return p.txn.ordinal
}

// txnV2 reports whether the producer runs transaction version 2.
func (p *Producer) txnV2() bool { return p.txnMode() && p.cfg.TransactionVersion >= 2 }

// adoptEndTxnEpoch takes the producer id and epoch an EndTxn v5 returned
// (transaction version 2: the coordinator bumped the epoch, or rotated the
// producer id at exhaustion) and starts every partition again at sequence
// 0 under them (KIP-890 part 2, apache/kafka PR #17402).
func (p *Producer) adoptEndTxnEpoch(pid model.ProducerID, epoch int16) {
	if pid == p.pid && epoch == p.epoch {
		return
	}
	if pid != p.pid {
		p.note(model.NoteEpochBump, "producer id "+strconv.FormatInt(int64(p.pid), 10)+" epoch "+strconv.FormatInt(int64(p.epoch), 10)+" -> producer id "+strconv.FormatInt(int64(pid), 10)+" epoch "+strconv.FormatInt(int64(epoch), 10)+" (EndTxn at an exhausted epoch, transaction version 2)")
	} else {
		p.note(model.NoteEpochBump, "epoch "+strconv.FormatInt(int64(p.epoch), 10)+" -> "+strconv.FormatInt(int64(epoch), 10)+" (EndTxn, transaction version 2)")
	}
	p.pid, p.epoch = pid, epoch
	for _, ps := range p.parts {
		p.resetPartition(ps, pid, epoch)
	}
}

// readdAfterBump (defect Z17) carries the open transaction over an epoch
// bump the coordinator made by fencing and aborting it: the client still
// believes it open, and adds the partitions it has records for again, so
// that its commit ends a new transaction at the new epoch.
func (p *Producer) readdAfterBump() {
	t := &p.txn
	p.note(model.NoteInfo, "bug Z17: the transaction goes on under the new epoch; its partitions are added again")
	for i := range t.added {
		t.added[i] = false
	}
	t.needAdd = t.needAdd[:0]
	for _, ps := range p.parts {
		if len(ps.queue) > 0 || len(ps.unacked) > 0 {
			t.needAdd = append(t.needAdd, ps.id)
		}
	}
}
