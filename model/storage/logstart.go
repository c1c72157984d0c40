package storage

import (
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// The log start offset and what moves it: retention by time or size and
// DeleteRecords. apache/kafka, UnifiedLog (core/src/main/scala/kafka/
// log/UnifiedLog.scala to 3.9, storage/src/main/java/org/apache/kafka/
// storage/internals/log/UnifiedLog.java from 4.0): logStartOffset,
// maybeIncrementLogStartOffset, deleteOldSegments, deletableSegments,
// deleteRetentionMsBreachedSegments and deleteRetentionSizeBreachedSegments.
//
// Simplifications: every log entry (a batch or a marker) is a segment of
// its own, so retention deletes entry by entry where Kafka deletes whole
// segments of segment.bytes; the size counts offsets (one per record, one
// per marker), not bytes. Deleted entries stay in the partition's store,
// below the log start: no fetch reads them; a restart's replay does,
// standing for the snapshot Kafka takes at every segment roll
// (snapshot.go); and [Partition.Log] still returns them, so that the
// checkers can tell a record deleted by retention from one lost
// (docs/operations.md).

// Retention is a partition's retention.ms and retention.bytes. A nil
// *Retention (PartitionConfig's zero value) keeps everything: idemsim's
// default, where Kafka's retention.ms is 7 days (runs last minutes).
type Retention struct {
	// Ms is retention.ms: an entry whose newest timestamp is more than
	// this old at a retention check is deleted; negative: no time limit.
	Ms time.Duration
	// Records is retention.bytes counted in offsets (records and
	// markers): the oldest entries go while the log keeps at least this
	// many without them; negative: no size limit.
	Records int64
}

// Cause of a log start's move, for the trace.
const (
	CauseRetentionMs      = "retention.ms"
	CauseRetentionRecords = "retention.bytes"
	CauseDeleteRecords    = "delete-records"
	CauseLeader           = "leader's log start"
)

// LogStartOffset returns the log start offset: the first offset a fetch
// may read. 0 until retention or DeleteRecords moves it.
func (p *Partition) LogStartOffset() int64 { return p.logStart }

// IncrementLogStart moves the log start to off if that is above it
// (UnifiedLog.maybeIncrementLogStartOffset) and reports whether it moved.
// The producer state stays: since KIP-360 (KAFKA-7190, Kafka 2.4) a
// producer whose batches are deleted keeps its state until
// producer.id.expiration.ms passes; ProducerStateManager.
// onLogStartOffsetIncremented only forgets the unreplicated
// transactions that ended below the new log start. The caller checks the
// bound: off must not pass the high watermark (Kafka answers
// OFFSET_OUT_OF_RANGE).
func (p *Partition) IncrementLogStart(off int64) bool {
	if off <= p.logStart {
		return false
	}
	p.logStart = off
	p.dropUnreplicatedBelow(off)
	return true
}

// entryTime returns entry i's timestamp for time retention: its batch's
// max timestamp (LogSegment.largestTimestamp, the records' CreateTime), or
// a marker's append time.
func (p *Partition) entryTime(i int) sim.Time {
	e, ts := p.log.head(i)
	if e.Marker != model.MarkerNone {
		return e.AppendedAt
	}
	return ts
}

// DeleteOldEntries runs the retention check at now (UnifiedLog.
// deleteOldSegments, every log.retention.check.interval.ms): first by
// size, then by time, an entry is deleted only when it lies wholly below
// the high watermark (deletableSegments: highWatermark >= the next
// segment's base offset, or the log end offset for the last). The log
// start moves to the first entry kept. It returns the new log start and
// the cause, and false when nothing was deleted.
func (p *Partition) DeleteOldEntries(now sim.Time, r *Retention) (int64, string, bool) {
	if r == nil {
		return p.logStart, "", false
	}
	hw := p.HighWatermark()
	i := p.log.search(p.logStart)
	cause := ""
	if r.Records >= 0 {
		if i < p.log.len() {
			diff := p.nextOffset - p.log.firstOffset(i) - r.Records
			for i < p.log.len() {
				size := p.log.lastOffset(i) - p.log.firstOffset(i) + 1
				if diff-size < 0 || p.log.lastOffset(i)+1 > hw {
					break
				}
				diff -= size
				i++
				cause = CauseRetentionRecords
			}
		}
	}
	if r.Ms >= 0 {
		for i < p.log.len() && now.Sub(p.entryTime(i)) > r.Ms && p.log.lastOffset(i)+1 <= hw {
			i++
			cause = CauseRetentionMs
		}
	}
	if cause == "" {
		return p.logStart, "", false
	}
	start := p.nextOffset
	if i < p.log.len() {
		start = p.log.firstOffset(i)
	}
	if !p.IncrementLogStart(start) {
		return p.logStart, "", false
	}
	return start, cause, true
}

// NextRetention returns the earliest time at or after now at which
// [Partition.DeleteOldEntries] would delete an entry given the log as it
// is, and false when none will be unless the log or the high watermark
// changes: an entry above the high watermark waits for it.
func (p *Partition) NextRetention(now sim.Time, r *Retention) (sim.Time, bool) {
	if r == nil {
		return 0, false
	}
	i := p.log.search(p.logStart)
	if i >= p.log.len() || p.log.lastOffset(i)+1 > p.HighWatermark() {
		return 0, false
	}
	if r.Records >= 0 && p.nextOffset-p.log.lastOffset(i)-1 >= r.Records {
		return now, true
	}
	if r.Ms >= 0 {
		return max(now, p.entryTime(i).Add(r.Ms+1)), true
	}
	return 0, false
}
