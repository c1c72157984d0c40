package storage

import (
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// DefaultWindow is Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN: the
// number of batches per (producer id, partition) kept for duplicate
// detection.
const DefaultWindow = 5

// PartitionConfig holds a partition leader's settings. The zero value is
// Kafka's behaviour.
type PartitionConfig struct {
	// Window is the number of batch-metadata entries kept per producer,
	// 1..1000; 0 means Kafka's 5.
	Window int
	// NoDedup turns duplicate detection off entirely: a retry of an
	// appended batch is judged by the sequence check alone. Redpanda up to
	// 21.10 behaved this way (the README's -bug Z16). What-if knob.
	NoDedup bool
	// EmptyPartitionCheck models KAFKA-15591's fix, after 4.1 (apache/kafka
	// pull request 23234; no covered release has it): a
	// partition whose log never held a record rejects an unknown
	// producer's first batch unless it starts at sequence 0. Off by
	// default, as in the 4.0 code (apache/kafka@1eb7644349cb).
	EmptyPartitionCheck bool
	// NoEpochCheck skips the "lower epoch" rejection (what-if knob).
	NoEpochCheck bool
	// Retention is retention.ms and retention.bytes (logstart.go); nil
	// keeps everything.
	Retention *Retention
	// Seq is the sequence-number space (Kafka: 31 bits).
	Seq model.SeqSpace
	// ProducerIDExpiration is producer.id.expiration.ms: producer state
	// idle this long is removed (never while a transaction is open).
	// Zero means Kafka's default, 86400000 ms (1 day).
	ProducerIDExpiration time.Duration
	// BugNoVerificationGuard (defect KAFKA-14904, what-if of a 3.6
	// pre-release): the verification sequence guard (VerificationStateEntry)
	// is missing, so a later in-flight batch of a producer can be appended
	// ahead of an earlier one whose verification failed retriably.
	BugNoVerificationGuard bool
	// NoPartitionVerification turns KIP-890 part 1 verification off
	// (transaction.partition.verification.enable=false; Kafka's default is
	// true, 3.6+). With verification on, the first transactional batch of a
	// transaction on this partition is appended only if the caller's
	// [AppendOptions.Verification] is ErrNone
	// (ReplicaManager.handleProduceAppend).
	NoPartitionVerification bool
	// SnapshotEvery is the number of log entries (data batches and
	// markers) between two producer-state snapshots, a stand-in for Kafka's
	// snapshot at every segment roll (segment.bytes). 0 means no periodic
	// snapshots: only a clean restart and every rebuild take one, so an
	// unclean restart replays the log from the last of those (or from
	// offset 0). Range 0..2^31-1.
	SnapshotEvery int
}

// DefaultProducerIDExpiration is producer.id.expiration.ms's default,
// 86400000 ms (KIP-854, Kafka 3.4+).
const DefaultProducerIDExpiration = 24 * time.Hour

func (c PartitionConfig) expiration() time.Duration {
	if c.ProducerIDExpiration <= 0 {
		return DefaultProducerIDExpiration
	}
	return c.ProducerIDExpiration
}

func (c PartitionConfig) window() int {
	if c.Window <= 0 {
		return DefaultWindow
	}
	return c.Window
}

// BatchMetadata is what the broker caches of an appended batch
// (storage/.../log/BatchMetadata.java), with first and last stored directly.
type BatchMetadata struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset int64
	Timestamp               sim.Time
}

// ProducerStateEntry is the broker's state for one producer id on one
// partition (storage/.../log/ProducerStateEntry.java).
type ProducerStateEntry struct {
	// Epoch is the producer epoch; NoEpoch for an entry created empty.
	Epoch int16
	// CoordinatorEpoch is the epoch of the coordinator that wrote the last
	// marker; -1 until a marker is seen.
	CoordinatorEpoch int32
	// TxnFirstOffset is the first offset of the open transaction, or -1.
	TxnFirstOffset int64
	// LastTimestamp is the timestamp of the last batch or marker: a data
	// batch's max timestamp, the records' CreateTime from the client's
	// clock (ProducerAppendInfo.append, l.162 at apache/kafka@1eb7644349cb
	// storage/src/main/java/org/apache/kafka/storage/internals/log/
	// ProducerAppendInfo.java, passes batch.maxTimestamp() to
	// appendDataBatch; ProducerStateEntry.addBatch, l.91-95, keeps it), or
	// the leader's time for a marker the leader writes. Producer-state
	// expiry counts from it (ProducerStateManager.isProducerExpired,
	// l.330-332), so a batch retried long after it was created, or a
	// client clock that drifts, moves expiry, as in Kafka.
	LastTimestamp sim.Time
	// Batches holds the newest appended batches of the current epoch,
	// oldest first, at most the window size.
	Batches []BatchMetadata
}

// lastSeq returns the newest cached batch's last sequence, or -1.
func (e *ProducerStateEntry) lastSeq() int32 {
	if len(e.Batches) == 0 {
		return -1
	}
	return e.Batches[len(e.Batches)-1].LastSeq
}

// Partition is one partition leader's log and producer-state map
// (UnifiedLog plus ProducerStateManager). It is a pure state machine: no
// I/O, no randomness, no wall clock.
type Partition struct {
	ID  int32
	cfg PartitionConfig
	// log holds every appended batch and marker, in offset order, as
	// runs of entries (logstore.go); read it through its accessors.
	log logStore
	// nextOffset is the log end offset.
	nextOffset int64
	// logStart is the log start offset (logstart.go): entries wholly
	// below it are deleted.
	logStart int64
	// producers maps producer id to its state on this partition. Never
	// iterated in map order where the order could reach a trace.
	producers map[model.ProducerID]*ProducerStateEntry
	// expiry caches NextExpiry's answer while valid. Whatever changes
	// the entries, their timestamps or their open transactions clears
	// it (dirtyExpiry): a broker asks after every append.
	expiry struct {
		at        sim.Time
		ok, valid bool
		// oldest is the entry whose timestamp gives at (when ok): an
		// update of another entry that leaves it the oldest keeps the
		// answer, so a partition with many producer ids (rotated ones,
		// say) does not rescan them at every append.
		oldest *ProducerStateEntry
	}
	// snap is the newest producer-state snapshot (nil before the first);
	// sinceSnap counts log entries appended after it.
	snap      *ProducerSnapshot
	sinceSnap int
	// aborted is the aborted-transaction index, in marker order
	// (partition_txn.go). Like the log, it survives a restart.
	aborted []AbortedTxn
	// replica is set when a [ReplicaLog] wraps the partition: then hw is
	// its high watermark, which the ReplicaLog keeps in step, and
	// unreplicated the completed transactions whose marker is at or above
	// it (partition_txn.go). Without replication the high watermark is
	// the log end offset.
	replica      bool
	hw           int64
	unreplicated []completedTxn
	// verifying are the producers' verification entries (verification.go);
	// volatile: a restart loses them.
	verifying map[model.ProducerID]verificationEntry
	// spare is allocator state, not state: the memory reset keeps of a
	// previous run's log, and the slab that records read from the log
	// are carved from.
	spare partSpare
}

// partSpare is a partition's allocator state.
type partSpare struct {
	// log is the memory of a previous run's log, emptied, kept by reset
	// for the first entries appended (appendEntry): the partition's log
	// slices are nil until then, in a new partition and a reset one
	// alike.
	log logStore
	// recs holds the records [Partition.EntryAt] and [ReplicaLog.Read]
	// make again from the compact log: one allocation per chunk. Its
	// values leave the partition and are never reused, so reset keeps it.
	recs model.Slab[model.Record]
	// ref is StateDiff's scratch partition, reset for each rebuild.
	ref *Partition
	// entries are the producer-state entries of a previous run, which
	// reset took back from the producer map; newEntry hands them out
	// again, each with its window's storage.
	entries []*ProducerStateEntry
}

// NewPartition returns an empty partition with the given settings.
func NewPartition(id int32, cfg PartitionConfig) *Partition {
	p := &Partition{}
	p.Reset(id, cfg)
	return p
}

// Reset makes p an empty partition id with settings cfg, as NewPartition
// returns it, keeping the memory of its log, its producer map and the
// map's entries: an entry [Partition.Producer] returned before is reused
// (Producer's answer is valid until the reset). What [Partition.Log]
// returned before stays valid: it shares nothing with p.
func (p *Partition) Reset(id int32, cfg PartitionConfig) {
	entries := p.spare.entries
	for _, e := range p.producers {
		// Memory only: which entry is handed out next is never seen.
		entries = append(entries, e)
	}
	*p = Partition{ID: id, cfg: cfg, producers: model.ClearedMap(p.producers),
		spare: partSpare{log: p.log.spareWith(p.spare.log), recs: p.spare.recs, ref: p.spare.ref, entries: entries}}
}

// newEntry returns an empty producer-state entry (no batches, no
// coordinator epoch, no open transaction) at the given epoch, reusing one
// reset took back when there is one.
func (p *Partition) newEntry(epoch int16) *ProducerStateEntry {
	n := len(p.spare.entries)
	if n == 0 {
		return &ProducerStateEntry{Epoch: epoch, CoordinatorEpoch: -1, TxnFirstOffset: -1}
	}
	e := p.spare.entries[n-1]
	p.spare.entries[n-1] = nil
	p.spare.entries = p.spare.entries[:n-1]
	*e = ProducerStateEntry{Epoch: epoch, CoordinatorEpoch: -1, TxnFirstOffset: -1, Batches: e.Batches[:0]}
	return e
}

// appendEntry appends e to the log. The log does not keep e's records
// slice: it reads the records and makes them again when read.
func (p *Partition) appendEntry(e *model.LogEntry) {
	p.log.add(e, &p.spare.log)
}

// Config returns the partition's settings.
func (p *Partition) Config() PartitionConfig { return p.cfg }

// Log returns the partition's log, every entry with its records, in a new
// slice that shares nothing with the partition (O(entries + records) time
// and memory): nil if nothing was appended since the partition was made
// or reset, empty if everything appended was truncated away.
func (p *Partition) Log() []model.LogEntry { return p.log.all() }

// AppendLogBelow appends to dst the log's entries whose last offset is
// below off, as Log has them, with their records carved from recs (which
// it grows), and returns both, so that a caller reading the log again and
// again reuses the two buffers. The entries' records are recs's: valid
// until the caller reuses it.
func (p *Partition) AppendLogBelow(dst []model.LogEntry, recs []model.Record, off int64) ([]model.LogEntry, []model.Record) {
	return p.log.appendBelow(dst, recs, off)
}

// LogLen returns the number of entries (data batches and markers) in the
// partition's log.
func (p *Partition) LogLen() int { return p.log.len() }

// LogEndOffset returns the next offset to be assigned.
func (p *Partition) LogEndOffset() int64 { return p.nextOffset }

// Producer returns the state entry for pid, or nil if the partition has
// none. The caller must not modify it.
func (p *Partition) Producer(pid model.ProducerID) *ProducerStateEntry { return p.producers[pid] }

// ProducerIDs returns the producer ids with state on this partition, in
// increasing order.
func (p *Partition) ProducerIDs() []model.ProducerID {
	ids := make([]model.ProducerID, 0, len(p.producers))
	for id := range p.producers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// AppendOptions carries what the leader learned outside the batch itself.
// The zero value is "nothing to report".
type AppendOptions struct {
	// Verification is the transaction coordinator's answer to KIP-890 part
	// 1 verification (AddPartitionsToTxn verify-only; Kafka's
	// TransactionCoordinator.handleVerifyPartitionsInTransaction), as
	// returned by coordinator.Coordinator.VerifyPartition. It is read only when
	// verification is on, the batch is transactional and the producer has
	// no open transaction on this partition. ErrNone (the zero value) means
	// verified. The leader passes other answers on as Kafka 4.0's
	// AddPartitionsToTxnManager and ReplicaManager.handleProduceAppend map
	// them for a Produce v11+ client, such as the 4.0 Java client
	// (apache/kafka@1eb7644349cb, core/src/main/scala/kafka/server/:
	// AddPartitionsToTxnManager.scala l.222-231, ReplicaManager.scala
	// l.888-905, KafkaApis.scala l.743):
	//   - PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH
	//     (AddPartitionsToTxnManager l.224-227: "Producers expect to handle
	//     INVALID_PRODUCER_EPOCH in this scenario");
	//   - CONCURRENT_TRANSACTIONS, NETWORK_EXCEPTION (the manager's answer
	//     to a broken or timed-out request, l.202-204), the coordinator
	//     errors, NOT_ENOUGH_REPLICAS and REQUEST_TIMED_OUT (idemsim's
	//     stand-ins for an unreachable coordinator) become the retriable
	//     NOT_ENOUGH_REPLICAS (ReplicaManager l.898-903);
	//   - every other answer passes through unchanged: TRANSACTION_ABORTABLE
	//     (the partition is not in the transaction; the manager turns it
	//     into INVALID_TXN_STATE only for Produce v10 and older, l.228-229),
	//     INVALID_PRODUCER_ID_MAPPING, INVALID_PRODUCER_EPOCH (the
	//     manager's collision rule, l.137-153), INVALID_TXN_STATE, ...
	Verification model.ErrCode
	// ImplicitAdd: Verification is the answer to the leader's implicit
	// add of a transaction version 2 producer's partition (KIP-890 part
	// 2), which applies even with verification off.
	ImplicitAdd bool
	// Verified says the leader verified this batch with the coordinator
	// for this request (the answer was ErrNone). Between the answer and
	// the append a marker for the producer may have been written (a
	// same-epoch ABORT whose markers overtook the answer): the marker ends
	// the verification, and Kafka then refuses the batch with
	// INVALID_TXN_STATE instead of opening a transaction no coordinator
	// holds (KAFKA-14884, fixed in 3.6.0 with verification itself:
	// UnifiedLog.append re-checks the VerificationGuard).
	Verified bool
}

// Append validates and appends a client's data batch, running Kafka's
// checks in order (UnifiedLog.analyzeAndValidateProducerState,
// ProducerAppendInfo.appendDataBatch). The first failing check decides;
// a failed batch changes nothing. Append is [Partition.AppendWith] with
// zero options, i.e. a transactional batch counts as verified.
func (p *Partition) Append(now sim.Time, b model.Batch) model.AppendResult {
	return p.AppendWith(now, b, AppendOptions{})
}

// errResult returns a failed AppendResult.
func errResult(e model.ErrCode, reason string) model.AppendResult {
	return model.AppendResult{Err: e, FirstOffset: -1, LastOffset: -1, Reason: reason}
}

// AppendWith is [Partition.Append] with options. The check order is:
//
//  0. KIP-890 part 1 verification (only with verification on, for a
//     transactional batch of a producer without an open transaction here);
//  1. record validation: a negative sequence, or a LastSeq that does not
//     match the record count, is INVALID_RECORD;
//  2. duplicate: same epoch and exactly the same [FirstSeq, LastSeq] as a
//     cached batch is success with the ORIGINAL offsets, nothing appended;
//  3. a lower epoch is INVALID_PRODUCER_EPOCH;
//  4. the verification sequence guard (verification.go);
//  5. a higher epoch not at sequence 0 (for a known producer), or the same
//     epoch not at last+1 (wrapping), is OUT_OF_ORDER_SEQUENCE_NUMBER; an
//     unknown producer is accepted at any sequence and epoch;
//  6. a non-transactional batch while a transaction is open is
//     INVALID_TXN_STATE;
//  7. accept.
//
// DUPLICATE_SEQUENCE_NUMBER and UNKNOWN_PRODUCER_ID are never returned.
// A verified batch is re-checked against its verification entry at the
// append (AppendOptions.Verified; KAFKA-14884).
func (p *Partition) AppendWith(now sim.Time, b model.Batch, o AppendOptions) model.AppendResult {
	r := p.appendWith(now, b, o)
	r.LogStartOffset = p.logStart
	return r
}

// appendWith is AppendWith without the log start offset in its result.
func (p *Partition) appendWith(now sim.Time, b model.Batch, o AppendOptions) model.AppendResult {
	n := int64(len(b.Records))
	if !b.Idempotent() {
		// No producer id: appended blindly, no producer state.
		r := p.appendData(now, b, n)
		p.maybeSnapshot()
		return r
	}
	e := p.producers[b.PID]
	// Step 0: verification round-trip, before the log append.
	if b.Transactional && (!p.cfg.NoPartitionVerification || o.ImplicitAdd) && (e == nil || e.TxnFirstOffset < 0 || o.ImplicitAdd && e.Epoch != b.Epoch) && o.Verification != model.ErrNone {
		if r, ok := verificationError(o.Verification); ok {
			return r
		}
	}
	if o.Verified && b.Transactional && !(e != nil && e.TxnFirstOffset >= 0 && e.Epoch == b.Epoch) && !p.verificationStands(b.PID, b.Epoch) {
		// KAFKA-14884: a marker ended the transaction after the
		// coordinator verified the batch.
		return errResult(model.ErrInvalidTxnState, "verification: a marker ended the transaction after the batch was verified")
	}
	// Step 1: record validation.
	if b.FirstSeq < 0 || b.LastSeq < 0 {
		return errResult(model.ErrInvalidRecord, "negative sequence")
	}
	if b.LastSeq > p.cfg.Seq.Max() || b.FirstSeq > p.cfg.Seq.Max() || p.cfg.Seq.Count(b.FirstSeq, b.LastSeq) != n {
		return errResult(model.ErrInvalidRecord, "sequence range does not match record count")
	}
	// Step 2: duplicate check, before the epoch and sequence checks.
	if e != nil && !p.cfg.NoDedup && e.Epoch == b.Epoch {
		for i := range e.Batches {
			m := &e.Batches[i]
			if m.FirstSeq == b.FirstSeq && m.LastSeq == b.LastSeq {
				return model.AppendResult{Err: model.ErrNone, FirstOffset: m.FirstOffset, LastOffset: m.LastOffset, Duplicate: true, Reason: "duplicate of cached batch"}
			}
		}
	}
	epoch, last := model.NoEpoch, int32(-1)
	if e != nil {
		epoch, last = e.Epoch, e.lastSeq()
	}
	// Step 3: epoch check.
	if e != nil && b.Epoch < epoch && !p.cfg.NoEpochCheck {
		return errResult(model.ErrInvalidProducerEpoch, "epoch below current "+strconv.FormatInt(int64(epoch), 10))
	}
	// Step 4: verification sequence guard.
	if r, ok := p.verificationGuard(&b); ok {
		return r
	}
	// Step 5: sequence check.
	if e == nil && p.cfg.EmptyPartitionCheck && p.nextOffset == 0 && b.FirstSeq != 0 {
		// KAFKA-15591's fix (after 4.1): a partition whose log never held a
		// record accepts an unknown producer only at sequence 0.
		return errResult(model.ErrOutOfOrderSequenceNumber, "first produce to an empty partition must start at 0 (KAFKA-15591)")
	}
	if b.Epoch != epoch {
		if b.FirstSeq != 0 && epoch != model.NoEpoch {
			return errResult(model.ErrOutOfOrderSequenceNumber, "new epoch must start at 0")
		}
	} else if epoch != model.NoEpoch {
		// last == -1 (empty window after a marker) admits only 0.
		if !p.cfg.Seq.Next(last, b.FirstSeq) {
			return errResult(model.ErrOutOfOrderSequenceNumber, "seq "+strconv.FormatInt(int64(b.FirstSeq), 10)+" after last "+strconv.FormatInt(int64(last), 10))
		}
	}
	// Step 6: transaction-state check.
	if e != nil && e.TxnFirstOffset >= 0 && !b.Transactional {
		return errResult(model.ErrInvalidTxnState, "non-transactional write during open transaction")
	}
	// Step 7: accept.
	r := p.appendData(now, b, n)
	if b.Transactional {
		p.endVerification(b.PID)
	}
	p.applyData(&b, b.MaxTimestamp(), r.FirstOffset, r.LastOffset)
	p.maybeSnapshot()
	return r
}

// verificationError returns the produce error a failed verification
// answer gives (see [AppendOptions.Verification]), and false for ErrNone.
func verificationError(answer model.ErrCode) (model.AppendResult, bool) {
	switch answer {
	case model.ErrNone:
		return model.AppendResult{}, false
	case model.ErrProducerFenced:
		// AddPartitionsToTxnManager.scala l.224-227.
		return errResult(model.ErrInvalidProducerEpoch, "verification: coordinator fenced the epoch"), true
	case model.ErrConcurrentTransactions, model.ErrNetworkException, model.ErrNotEnoughReplicas, model.ErrRequestTimedOut:
		// ReplicaManager.scala l.898-903.
		return errResult(model.ErrNotEnoughReplicas, "verification: coordinator busy or unavailable ("+answer.String()+")"), true
	case model.ErrTransactionAbortable, model.ErrInvalidTxnState:
		return errResult(answer, "verification: partition not in the transaction"), true
	case model.ErrInvalidProducerIDMapping:
		return errResult(answer, "verification: producer id is not the transactional id's"), true
	}
	return errResult(answer, "verification failed"), true
}

// applyData updates producer state for an appended data batch without any
// validation: the accept step of the client path and the whole of the
// replication path (ProducerAppendInfo with AppendOrigin.REPLICATION).
// ts is the entry's timestamp, the batch's max timestamp
// ([model.Batch.MaxTimestamp]; b's records are not read).
func (p *Partition) applyData(b *model.Batch, ts sim.Time, first, last int64) {
	e := p.producers[b.PID]
	if e == nil {
		e = p.newEntry(b.Epoch)
		p.producers[b.PID] = e
	}
	if e.Epoch != b.Epoch {
		e.Epoch = b.Epoch
		e.Batches = e.Batches[:0]
	}
	p.pushBatch(e, BatchMetadata{FirstSeq: b.FirstSeq, LastSeq: b.LastSeq, FirstOffset: first, LastOffset: last, Timestamp: ts})
	e.LastTimestamp = ts
	if b.Transactional && e.TxnFirstOffset < 0 {
		e.TxnFirstOffset = first
	}
	p.refreshExpiry(e)
}

// AppendMarker appends a transaction marker (a control batch written by the
// coordinator's WriteTxnMarkers, AppendOrigin.COORDINATOR) for pid, with
// the checks of ProducerAppendInfo.appendEndTxnMarker:
//
//  1. epoch below the entry's epoch: INVALID_PRODUCER_EPOCH;
//  2. coordinatorEpoch below the entry's coordinator epoch:
//     TRANSACTION_COORDINATOR_FENCED;
//  3. otherwise the marker takes 1 offset, the entry moves to epoch
//     (clearing the window if that changed it), records coordinatorEpoch
//     and closes the open transaction. An unknown pid gets a new entry with
//     an empty window.
//
// The duplicate check does not apply to markers, and a marker is accepted
// whether or not a transaction is open. [PartitionConfig.NoEpochCheck]
// does not apply to markers. m must be MarkerCommit or MarkerAbort.
func (p *Partition) AppendMarker(now sim.Time, pid model.ProducerID, epoch int16, coordinatorEpoch int32, m model.MarkerType) model.AppendResult {
	if m != model.MarkerCommit && m != model.MarkerAbort {
		panic("model: AppendMarker needs MarkerCommit or MarkerAbort")
	}
	e := p.producers[pid]
	if e != nil && epoch < e.Epoch {
		return errResult(model.ErrInvalidProducerEpoch, "marker epoch below current "+strconv.FormatInt(int64(e.Epoch), 10))
	}
	if e != nil && coordinatorEpoch < e.CoordinatorEpoch {
		return errResult(model.ErrTransactionCoordinatorFenced, "coordinator epoch below "+strconv.FormatInt(int64(e.CoordinatorEpoch), 10))
	}
	off := p.nextOffset
	p.nextOffset++
	p.appendEntry(&model.LogEntry{
		FirstOffset: off, LastOffset: off,
		Batch:            model.Batch{Partition: p.ID, PID: pid, Epoch: epoch, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Transactional: true},
		Marker:           m,
		AppendedAt:       now,
		CoordinatorEpoch: coordinatorEpoch,
	})
	p.indexMarker(pid, m, off)
	p.completeTxn(pid, off)
	p.endVerification(pid)
	p.applyMarker(pid, epoch, coordinatorEpoch, now)
	p.maybeSnapshot()
	return model.AppendResult{Err: model.ErrNone, FirstOffset: off, LastOffset: off, Reason: m.String()}
}

// applyMarker updates producer state for an appended marker.
func (p *Partition) applyMarker(pid model.ProducerID, epoch int16, coordinatorEpoch int32, now sim.Time) {
	e := p.producers[pid]
	if e == nil {
		e = p.newEntry(epoch)
		p.producers[pid] = e
	}
	if e.Epoch != epoch {
		e.Epoch = epoch
		e.Batches = e.Batches[:0]
	}
	e.CoordinatorEpoch = coordinatorEpoch
	e.TxnFirstOffset = -1
	e.LastTimestamp = now
	p.refreshExpiry(e)
}

// ExpireProducers runs the periodic producer-state expiry
// (ProducerStateManager.removeExpiredProducers): it removes
// every entry with no open transaction whose last batch or marker is at
// least producer.id.expiration.ms old (now - LastTimestamp >= expiration).
// It returns the removed ids in increasing order. Scheduling it (Kafka:
// every producer.id.expiration.check.interval.ms, default 600000 ms) is
// the caller's business.
func (p *Partition) ExpireProducers(now sim.Time) []model.ProducerID {
	var out []model.ProducerID
	exp := p.cfg.expiration()
	for id, e := range p.producers {
		if e.TxnFirstOffset < 0 && now.Sub(e.LastTimestamp) >= exp {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	for _, id := range out {
		delete(p.producers, id)
	}
	if len(out) > 0 {
		p.dirtyExpiry()
	}
	return out
}

// NextExpiry returns the earliest time at which [Partition.ExpireProducers]
// would remove an entry (the oldest LastTimestamp of an entry with no open
// transaction, plus producer.id.expiration.ms), and false when no entry can
// expire.
func (p *Partition) NextExpiry() (sim.Time, bool) {
	if x := &p.expiry; x.valid {
		return x.at, x.ok
	}
	next, ok := sim.Time(0), false
	var oldest *ProducerStateEntry
	for _, e := range p.producers {
		if e.TxnFirstOffset < 0 && (!ok || e.LastTimestamp < next) {
			next, ok, oldest = e.LastTimestamp, true, e
		}
	}
	at := next.Add(p.cfg.expiration())
	p.expiry.at, p.expiry.ok, p.expiry.valid, p.expiry.oldest = at, ok, true, oldest
	return at, ok
}

// dirtyExpiry clears NextExpiry's cached answer: the producer entries,
// a timestamp or an open transaction changed.
func (p *Partition) dirtyExpiry() { p.expiry.valid = false }

// refreshExpiry is dirtyExpiry after entry e changed, except that when e
// is the only entry (one producer, the usual case) the answer is e's and
// is cached at once.
func (p *Partition) refreshExpiry(e *ProducerStateEntry) {
	x := &p.expiry
	if len(p.producers) != 1 {
		// Another entry than the oldest changed, and it is still not
		// older (or has an open transaction, which takes it out): the
		// answer stands.
		if x.valid && x.ok && e != x.oldest && (e.TxnFirstOffset >= 0 || e.LastTimestamp >= x.at.Add(-p.cfg.expiration())) {
			return
		}
		p.dirtyExpiry()
		return
	}
	x.valid, x.ok, x.at, x.oldest = true, e.TxnFirstOffset < 0, sim.Time(0).Add(p.cfg.expiration()), nil
	if x.ok {
		x.at, x.oldest = e.LastTimestamp.Add(p.cfg.expiration()), e
	}
}

// ExpireProducer removes pid's entry as if producer.id.expiration.ms had
// passed, unless a transaction is open for it here
// (ProducerStateManager.isProducerExpired). It reports whether an entry
// was removed.
func (p *Partition) ExpireProducer(pid model.ProducerID) bool {
	e := p.producers[pid]
	if e == nil || e.TxnFirstOffset >= 0 {
		return false
	}
	delete(p.producers, pid)
	p.dirtyExpiry()
	return true
}

// pushBatch adds m to e's window, dropping the oldest beyond the window.
func (p *Partition) pushBatch(e *ProducerStateEntry, m BatchMetadata) {
	if e.Batches == nil {
		e.Batches = make([]BatchMetadata, 0, min(p.cfg.window(), 16)) // room for the window at once (a small one)
	}
	if w := p.cfg.window(); len(e.Batches) >= w {
		copy(e.Batches, e.Batches[len(e.Batches)-w+1:])
		e.Batches = e.Batches[:w-1]
	}
	e.Batches = append(e.Batches, m)
}

// appendData assigns offsets to n records and appends b to the log.
func (p *Partition) appendData(now sim.Time, b model.Batch, n int64) model.AppendResult {
	if n <= 0 {
		panic("model: append of an empty batch")
	}
	first := p.nextOffset
	last := first + n - 1
	p.nextOffset += n
	p.appendEntry(&model.LogEntry{FirstOffset: first, LastOffset: last, Batch: b, AppendedAt: now, CoordinatorEpoch: -1})
	return model.AppendResult{Err: model.ErrNone, FirstOffset: first, LastOffset: last}
}
