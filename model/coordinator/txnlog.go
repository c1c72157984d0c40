package coordinator

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TxnLogRecord is one record of the __transaction_state partition: the
// value a transition writes for a transactional id
// (core/src/main/scala/kafka/coordinator/transaction/TransactionLog.scala,
// valueToBytes, at apache/kafka@1eb7644349cb). A Dead
// record stands for the tombstone of an expired id.
//
// As in Kafka, the record does not carry lastProducerEpoch or the previous
// producer id (valueToBytes does not write them; readTxnRecordValue sets
// -1), so a coordinator that reloads the log
// answers a retried epoch bump PRODUCER_FENCED and forgets a rotation.
type TxnLogRecord struct {
	TransactionalID string
	ProducerID      model.ProducerID
	ProducerEpoch   int16
	TxnTimeout      time.Duration
	State           model.TxnState
	// Partitions of the transaction, increasing; empty in Empty and
	// Complete*.
	Partitions []int32
	// TxnStartTime and LastUpdate as in [TxnMetadata].
	TxnStartTime, LastUpdate sim.Time
}

// recordOf is the log record of m's current state.
func recordOf(m *TxnMetadata, parts []int32) TxnLogRecord {
	return TxnLogRecord{TransactionalID: m.TransactionalID, ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
		TxnTimeout: m.TxnTimeout, State: m.State, Partitions: parts,
		TxnStartTime: m.TxnStartTime, LastUpdate: m.LastUpdate}
}

// sameAs reports whether r records the same transition result as m (the
// time of the last update aside).
func (r *TxnLogRecord) sameAs(m *TxnMetadata) bool {
	return r.ProducerID == m.ProducerID && r.ProducerEpoch == m.ProducerEpoch && r.State == m.State &&
		r.TxnTimeout == m.TxnTimeout && slices.Equal(r.Partitions, m.Partitions)
}

// txnLog is the coordinator's __transaction_state partition: every
// completed transition appends a record; a restarted coordinator replays
// it, last record wins, a tombstone deletes
// (TransactionStateManager.loadTransactionMetadata). It survives a crash,
// as a replicated log does (appendTransactionToLog writes with acks=-1).
//
// The topic is compacted (cleanup.policy=compact in
// TransactionStateManager.transactionTopicConfigs,
// core/src/main/scala/kafka/coordinator/transaction/
// TransactionStateManager.scala): once
// the log holds more than twice as many records as ids, plus
// txnLogCompactMin, the records an id's newer record supersedes are
// dropped, as Kafka's log cleaner drops them, so that a long run's log
// holds a record per id instead of one per transition. A replay reads
// the same last record per id either way; an id's tombstone is kept as
// its last record.
type txnLog struct {
	records []TxnLogRecord
	// last indexes each id's newest record in records.
	last map[string]int
	// spare is allocator state, not state: the storage of a previous
	// run's log, emptied, for the first records (and reclaim, set by
	// Coordinator.Reclaim, says nobody holds that run's log).
	spare struct {
		records []TxnLogRecord
		last    map[string]int
	}
	reclaim bool
}

// cloneInto copies ps into values carved from pool: nil or empty as
// slices.Clone makes them.
func cloneInto(pool *model.Slab[int32], ps []int32) []int32 {
	if len(ps) == 0 {
		return ps[:0:0]
	}
	return append(pool.Slice(len(ps))[:0], ps...)
}

// spareOf returns l's storage for a new run's log, emptied: a reclaimed
// log's arrays (the spare kept), none otherwise.
func (l *txnLog) spareOf() txnLog {
	var n txnLog
	if !l.reclaim {
		return n
	}
	recs, last := l.records, l.last
	if recs == nil {
		recs, last = l.spare.records, l.spare.last
	}
	clear(recs[:cap(recs)])
	clear(last)
	n.spare.records, n.spare.last = recs[:0], last
	return n
}

// append logs m's state unless the id's newest record already says the
// same; it reports whether it wrote. The record's partition list is
// copied into pool (the coordinator's: never reused within a run).
func (l *txnLog) append(m *TxnMetadata, pool *model.Slab[int32]) bool {
	if l.last == nil {
		l.last, l.records = l.spare.last, l.spare.records
		l.spare.last, l.spare.records = nil, nil
		if l.last == nil {
			l.last = make(map[string]int)
		}
	}
	if i, ok := l.last[m.TransactionalID]; ok && l.records[i].sameAs(m) {
		return false
	}
	l.last[m.TransactionalID] = len(l.records)
	l.records = append(l.records, recordOf(m, cloneInto(pool, m.Partitions)))
	if len(l.records) > 2*len(l.last)+txnLogCompactMin {
		l.compact()
	}
	return true
}

// txnLogCompactMin is how many superseded records the log may hold
// beyond one per id before it is compacted: a short log (every test's, a
// few transactions') keeps its whole history.
const txnLogCompactMin = 1024

// compact drops the records a newer record of the same id supersedes,
// keeping the others in log order, and the indices in last with them.
func (l *txnLog) compact() {
	kept := l.records[:0]
	for i := range l.records {
		r := l.records[i]
		if l.last[r.TransactionalID] != i {
			continue
		}
		l.last[r.TransactionalID] = len(kept)
		kept = append(kept, r)
	}
	clear(l.records[len(kept):])
	l.records = kept
}

// changes reports whether m's state differs from what the log holds for
// its id (a write is due).
func (l *txnLog) changes(m *TxnMetadata) bool {
	i, ok := l.last[m.TransactionalID]
	return !ok || !l.records[i].sameAs(m)
}

// load replays the log into fresh metadata, in log order. Dead ids are
// left out. lastProducerEpoch and the previous producer id are not on the
// log and come back as NoEpoch and NoProducerID, as from
// TransactionLog.readTxnRecordValue.
func (l *txnLog) load() map[string]*TxnMetadata {
	out := make(map[string]*TxnMetadata, len(l.last))
	for i := range l.records {
		r := &l.records[i]
		if r.State == model.TxnDead {
			delete(out, r.TransactionalID)
			continue
		}
		out[r.TransactionalID] = &TxnMetadata{TransactionalID: r.TransactionalID, ProducerID: r.ProducerID,
			PrevProducerID: model.NoProducerID, ProducerEpoch: r.ProducerEpoch, LastProducerEpoch: model.NoEpoch,
			State: r.State, Partitions: slices.Clone(r.Partitions), TxnTimeout: r.TxnTimeout,
			TxnStartTime: r.TxnStartTime, LastUpdate: r.LastUpdate}
	}
	return out
}

// TxnLog returns the coordinator's __transaction_state records, oldest
// first, as compacted so far (a log of up to 1,024 records more than
// twice its ids is whole). The slice is the coordinator's; do not modify
// it.
func (c *Coordinator) TxnLog() []TxnLogRecord { return c.log.records }
