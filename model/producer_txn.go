package model

import (
	"slices"
	"strconv"

	"github.com/idemsim/idemsim/sim"
)

// Transactions (ProducerConfig.TransactionRecords > 0), after the Java
// client's TransactionManager with classic transactions (semantics T4):
//   - the first record of a transaction begins it; before a partition's
//     first batch of the transaction is sent, the producer adds the
//     partition with AddPartitionsToTxn and waits for the answer;
//   - batches are transactional;
//   - once TransactionRecords records are in the transaction (or the
//     application asks, [Producer.Flush]) and all of them are
//     acknowledged, the producer sends EndTxn(COMMIT); records the
//     application sends meanwhile wait for the next transaction, as
//     commitTransaction blocks the application thread;
//   - the application learns a record's outcome when its transaction
//     ends: acknowledged when the commit succeeds, failed otherwise (an
//     acknowledged produce of an aborted transaction is not a delivery);
//   - an abortable error (C5.3, C5.4, C5.7) aborts the transaction with
//     EndTxn(ABORT) and then bumps the epoch through InitProducerId
//     (C6.3); PRODUCER_FENCED, INVALID_PRODUCER_EPOCH and INVALID_TXN_STATE
//     from the coordinator are fatal (C5.6, T4.2).
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
	// held are the acknowledged records of the open transaction, whose
	// outcome waits for EndTxn; failed records are reported at once.
	held []Outcome
	// waiting are records the application sent while the transaction was
	// ending; they start the next one.
	waiting []Record
	// flush asks to commit what the open transaction holds.
	flush bool
	// nextInput is the input position after the transaction's records
	// (the highest message number + 1), committed with the transaction
	// when ProducerConfig.GroupID is set; offsetsAdded and
	// offsetsCommitted track AddOffsetsToTxn and TxnOffsetCommit, and
	// offsetsBusy that one of them is on the wire.
	nextInput                      int64
	offsetsAdded, offsetsCommitted bool
	offsetsBusy                    bool
	retryAt                        sim.Time
	abortedBy                      ErrCode
}

// Request kinds a prequest can carry besides produce and InitProducerId.
const (
	txnOpNone uint8 = iota
	txnOpAdd
	txnOpEnd
	txnOpAddOffsets
	txnOpCommitOffsets
)

func (p *Producer) txnMode() bool { return p.cfg.TransactionRecords > 0 && p.cfg.TransactionalID != "" }

// txnSend takes an application record in transaction mode. It returns true
// when the record must wait for the next transaction.
func (p *Producer) txnSend(rec Record) bool {
	t := &p.txn
	if t.ending || t.commit || t.abort {
		t.waiting = append(t.waiting, rec)
		return true
	}
	if t.added == nil {
		t.added = make([]bool, len(p.parts))
	}
	t.open = true
	t.n++
	t.nextInput = max(t.nextInput, rec.ID.N+1)
	if !t.added[rec.Partition] && !slices.Contains(t.needAdd, rec.Partition) {
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
func (p *Producer) Flush(now sim.Time) []Out {
	p.out = p.out[:0]
	if p.txnMode() && p.txn.open {
		p.txn.flush = true
		p.poll(now)
	}
	return p.out
}

// txnHold keeps an acknowledged record's outcome until its transaction
// ends; it reports whether it did.
func (p *Producer) txnHold(o Outcome) bool {
	if !p.txnMode() || !p.txn.open || o.Err != ErrNone {
		return false
	}
	p.txn.held = append(p.txn.held, o)
	return true
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
	if !p.txnMode() || p.pid == NoProducerID || p.fatal != ErrNone || now < t.retryAt {
		return
	}
	if p.abortErr != ErrNone && t.open && !t.abort {
		t.abort, t.abortedBy = true, p.abortErr
	}
	if t.ending || t.adding {
		return
	}
	if t.abort {
		if p.nothingOnWire() {
			p.endOrComplete(now, false)
		}
		return
	}
	if len(t.needAdd) > 0 {
		p.sendTxn(now, txnOpAdd, false)
		return
	}
	if t.open && (t.commit || t.flush) && !p.txnUnacked() {
		if p.cfg.GroupID != "" && !t.offsetsCommitted {
			// sendOffsetsToTransaction before commitTransaction.
			if !t.offsetsBusy {
				if !t.offsetsAdded {
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
	if slices.Contains(p.txn.added, true) || p.txn.offsetsAdded {
		p.sendTxn(now, txnOpEnd, commit)
		return
	}
	p.note(NoteInfo, "no partition was added to the transaction: it ends without EndTxn")
	p.endTxn(now, commit)
}

func (p *Producer) sendTxn(now sim.Time, op uint8, commit bool) {
	dest := DestCoordinator
	if op == txnOpCommitOffsets {
		dest = DestGroupCoordinator
	}
	c := p.conn(dest)
	if !p.ensureConn(now, c) {
		return
	}
	p.nextCorr++
	q := &prequest{corr: p.nextCorr, dest: dest, sentAt: now, txnOp: op}
	var m Message
	switch op {
	case txnOpAddOffsets:
		m = &AddOffsetsToTxnRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, PID: p.pid, Epoch: p.epoch, GroupID: p.cfg.GroupID}
		p.txn.offsetsBusy = true
	case txnOpCommitOffsets:
		m = &TxnOffsetCommitRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, GroupID: p.cfg.GroupID, PID: p.pid, Epoch: p.epoch, Offset: p.txn.nextInput}
		p.txn.offsetsBusy = true
	case txnOpAdd:
		parts := slices.Clone(p.txn.needAdd)
		slices.Sort(parts)
		m = &AddPartitionsToTxnRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, PID: p.pid, Epoch: p.epoch, Partitions: parts}
		p.txn.adding = true
	default:
		m = &EndTxnRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, PID: p.pid, Epoch: p.epoch, Commit: commit}
		p.txn.ending = true
	}
	c.inflight = append(c.inflight, q)
	p.out = append(p.out, Out{Kind: OutSend, Dest: dest, Msg: m})
}

// txnLost handles a transactional request lost with its connection: it is
// sent again.
func (p *Producer) txnLost(q *prequest) {
	switch q.txnOp {
	case txnOpAdd:
		p.txn.adding = false
	case txnOpEnd:
		p.txn.ending = false
	case txnOpAddOffsets, txnOpCommitOffsets:
		p.txn.offsetsBusy = false
	}
}

// handleTxnResponse handles AddPartitionsToTxn and EndTxn answers.
func (p *Producer) handleTxnResponse(now sim.Time, q *prequest, r *TxnResponse) {
	t := &p.txn
	switch q.txnOp {
	case txnOpAdd:
		t.adding = false
		switch r.Err {
		case ErrNone:
			for _, part := range t.needAdd {
				t.added[part] = true
			}
			t.needAdd = t.needAdd[:0]
		case ErrConcurrentTransactions, ErrNotEnoughReplicas, ErrRequestTimedOut, ErrNetworkException:
			t.retryAt = now.Add(p.cfg.RetryBackoff)
		default:
			p.note(NoteInfo, "AddPartitionsToTxn "+r.Err.String())
			p.enterFatal(now, fatalOf(r.Err))
		}
	case txnOpAddOffsets, txnOpCommitOffsets:
		t.offsetsBusy = false
		switch r.Err {
		case ErrNone:
			if q.txnOp == txnOpAddOffsets {
				t.offsetsAdded = true
			} else {
				t.offsetsCommitted = true
			}
		case ErrConcurrentTransactions, ErrNotEnoughReplicas, ErrRequestTimedOut, ErrNetworkException, ErrUnstableOffsetCommit:
			t.retryAt = now.Add(p.cfg.RetryBackoff)
		case ErrProducerFenced, ErrInvalidProducerEpoch, ErrInvalidTxnState:
			// Fatal (transactions.md X34: AddOffsetsToTxnHandler,
			// TxnOffsetCommitHandler).
			p.note(NoteInfo, r.Op+" "+r.Err.String())
			p.enterFatal(now, fatalOf(r.Err))
		default:
			// Abortable: the transaction aborts.
			p.note(NoteInfo, r.Op+" "+r.Err.String()+": abort")
			t.abort, t.abortedBy = true, r.Err
		}
	case txnOpEnd:
		t.ending = false
		switch r.Err {
		case ErrNone:
			p.endTxn(now, !t.abort)
		case ErrConcurrentTransactions, ErrNotEnoughReplicas, ErrRequestTimedOut, ErrNetworkException:
			t.retryAt = now.Add(p.cfg.RetryBackoff)
		default:
			p.note(NoteInfo, "EndTxn "+r.Err.String())
			p.enterFatal(now, fatalOf(r.Err))
		}
	}
}

// fatalOf maps a coordinator error to the producer's fatal error.
func fatalOf(e ErrCode) ErrCode {
	if e == ErrInvalidProducerEpoch {
		return ErrProducerFenced // C5.6: 47 from a coordinator API is fenced
	}
	return e
}

// endTxn closes the open transaction after a successful EndTxn: its held
// records are reported acknowledged on commit, failed on abort; waiting
// records start the next transaction.
func (p *Producer) endTxn(now sim.Time, committed bool) {
	t := &p.txn
	verb, kind := "committed", NoteTxnCommit
	if !committed {
		verb, kind = "aborted", NoteTxnAbort
	}
	p.note(kind, "transaction "+verb+" ("+strconv.Itoa(len(t.held))+" records)")
	for _, o := range t.held {
		o.At = now
		if !committed {
			o.Err, o.Offset = ErrTransactionAborted, -1
		}
		p.out = append(p.out, Out{Kind: OutResult, Result: o})
	}
	waiting := t.waiting
	added := t.added
	for i := range added {
		added[i] = false
	}
	*t = txnState{added: added, flush: t.flush}
	for _, rec := range waiting {
		p.sendRecord(now, rec)
	}
}

// txnFail reports the held records failed with err (a fatal state).
func (p *Producer) txnFail(now sim.Time, err ErrCode) {
	for _, o := range p.txn.held {
		o.Err, o.Offset, o.At = err, -1, now
		p.out = append(p.out, Out{Kind: OutResult, Result: o})
	}
	for _, r := range p.txn.waiting {
		p.result(now, r, err, -1)
	}
	p.txn.held, p.txn.waiting = nil, nil
}

// txnEnding reports whether an open transaction must still be aborted or
// is being ended, which comes before an epoch bump (C6.3: abort, then
// InitProducerId).
func (p *Producer) txnEnding() bool {
	return p.txnMode() && p.txn.open && (p.txn.abort || p.txn.ending)
}
