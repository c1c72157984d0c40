package storage

import (
	"errors"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Replication-origin appends and truncation on a [Partition]. Citations
// are to apache/kafka@1eb7644349cb: core/src/main/scala/kafka/log/UnifiedLog.scala
// (ULOG) and storage/src/main/java/org/apache/kafka/storage/internals/log/
// ProducerStateManager.java (PSM).

// Errors of [Partition.AppendReplica].
var (
	ErrReplicaOffset = errors.New("model: replicated entry does not continue the log")
	ErrReplicaEntry  = errors.New("model: malformed replicated entry")
)

// AppendReplica appends a log entry written by the partition's leader, as a
// follower does (ULOG#appendAsFollower:732, AppendOrigin.REPLICATION): the
// entry keeps its offsets, timestamps and coordinator epoch, and no epoch,
// sequence or transaction check runs (a follower adopts whatever the leader
// wrote, gaps and duplicates included;
// UnifiedLogTest#testDuplicateAppendToFollower). The producer state is updated
// by the same replication path a rebuild replays, so a follower that
// replicated a batch holds the leader's state for it.
//
// e.FirstOffset must equal the log end offset ([ErrReplicaOffset]); a
// data entry must carry LastOffset-FirstOffset+1 records and a marker
// exactly one offset ([ErrReplicaEntry]). On error nothing changes. The
// entry's Records slice is shared with the caller; records are never
// modified after an append.
func (p *Partition) AppendReplica(e model.LogEntry) error {
	if e.FirstOffset != p.nextOffset {
		return ErrReplicaOffset
	}
	switch {
	case e.LastOffset < e.FirstOffset:
		return ErrReplicaEntry
	case e.Marker == model.MarkerNone && int64(len(e.Batch.Records)) != e.LastOffset-e.FirstOffset+1:
		return ErrReplicaEntry
	case e.Marker != model.MarkerNone && (e.LastOffset != e.FirstOffset || e.Marker > model.MarkerAbort):
		return ErrReplicaEntry
	}
	p.appendEntry(&e)
	p.nextOffset = e.LastOffset + 1
	if e.Marker != model.MarkerNone && e.Batch.Idempotent() {
		// A follower's transaction index and unreplicated transactions
		// follow its log as the leader's do (ULOG#append runs
		// completeTxn for a follower's appends too).
		p.indexMarker(e.Batch.PID, e.Marker, e.FirstOffset)
		p.completeTxn(e.Batch.PID, e.FirstOffset)
	}
	p.replayEntry(&e, e.Batch.MaxTimestamp())
	p.maybeSnapshot()
	return nil
}

// TruncateTo removes every log entry at or above offset and rebuilds the
// producer state from what remains (ULOG#truncateTo:1827 and
// rebuildProducerState), and returns the new log
// end offset. An offset at or above the log end changes nothing. The
// rebuild is Kafka's: snapshots above the new end are dropped, the newest
// remaining one is loaded (skipping entries expired at now, PSM
// loadFromSnapshot), the log from its offset to the new end is replayed
// through the replication path, and a new snapshot is taken at the new
// end. State of the truncated batches disappears with them.
//
// Simplifications: the partition keeps only its newest snapshot, so when
// that one lies above the new end the replay starts at offset 0 (Kafka
// would load an older snapshot, whose windows hold one batch per producer;
// here the windows may hold more of the replayed batches, never fewer).
// An offset inside a batch removes the whole batch and the log then ends
// at that batch's first offset (Kafka's truncation points are batch
// boundaries: epoch start offsets, log ends and high watermarks). The log
// start offset is always 0. A negative offset panics.
func (p *Partition) TruncateTo(now sim.Time, offset int64) int64 {
	if offset < 0 {
		panic("model: TruncateTo a negative offset")
	}
	if offset >= p.nextOffset {
		return p.nextOffset
	}
	i := p.log.search(offset)
	end := int64(0)
	if i < p.log.len() {
		end = p.log.firstOffset(i)
	}
	p.log.truncate(i)
	p.nextOffset = end
	if i > 0 {
		p.nextOffset = p.log.lastOffset(i-1) + 1
	}
	p.dropTxnsFrom(p.nextOffset)
	p.rebuildTo(now)
	return p.nextOffset
}

// rebuildTo rebuilds the producer state for the current log end after a
// truncation (see [Partition.TruncateTo]).
func (p *Partition) rebuildTo(now sim.Time) {
	if p.snap != nil && p.snap.Offset > p.nextOffset {
		p.snap = nil
	}
	from := p.loadSnapshot(now)
	p.replay(&p.log, p.log.search(from))
	p.Snapshot()
}
