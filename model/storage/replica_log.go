package storage

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// ReplicaLog is one broker's replica of a partition: the log and producer
// state ([Partition]) plus what Kafka's UnifiedLog keeps beside them for
// replication, the leader-epoch cache and the high watermark (ULOG,
// core/src/main/scala/kafka/log/UnifiedLog.scala at apache/kafka@1eb7644349cb).
// The same type serves a leader and a follower; broker.LeaderState and
// broker.ReplicaFetcher drive it. Log start is always 0.
type ReplicaLog struct {
	// Part is the log and producer state. Appends as leader go through
	// Part.AppendWith / Part.AppendMarker followed by
	// [ReplicaLog.OnLeaderAppend]; appends as follower through
	// [ReplicaLog.AppendAsFollower]; truncation through
	// [ReplicaLog.TruncateTo], never Part directly.
	Part   *Partition
	Epochs LeaderEpochCache
	hw     int64
}

// NewReplicaLog wraps p with an empty epoch cache and high watermark 0;
// from then on p's high watermark ([Partition.HighWatermark]) is this
// log's.
func NewReplicaLog(p *Partition) *ReplicaLog {
	p.setHighWatermark(0)
	return &ReplicaLog{Part: p}
}

// setHW sets the high watermark, here and in the partition's producer
// state (ULOG#updateHighWatermarkMetadata calls
// producerStateManager.onHighWatermarkUpdated).
func (r *ReplicaLog) setHW(hw int64) {
	r.hw = hw
	r.Part.setHighWatermark(hw)
}

// Preloaded marks what the log holds as written and committed before the
// run, in leader epoch 0 (the topic's first, which its first leader
// begins when it applies the first metadata): the epoch cache starts
// epoch 0 at offset 0 and the high watermark is the log end. Every
// replica of the partition gets the same appends and this call before
// the run starts, so that replication and elections see the data as
// ordinary committed data (the simulator writes an input topic this way,
// as if produced with acks=all before the run).
func (r *ReplicaLog) Preloaded() {
	if end := r.LogEndOffset(); end > 0 {
		r.Epochs.Assign(0, 0)
		r.setHW(end)
	}
}

// LogEndOffset returns the log end offset (LEO).
func (r *ReplicaLog) LogEndOffset() int64 { return r.Part.LogEndOffset() }

// HighWatermark returns the high watermark: offsets below it are
// committed.
func (r *ReplicaLog) HighWatermark() int64 { return r.hw }

// LatestEpoch returns the newest epoch in the cache, or UndefinedEpoch.
func (r *ReplicaLog) LatestEpoch() int32 { return r.Epochs.LatestEpoch() }

// BeginEpoch records that leader epoch starts at the log end, as a new
// leader does (P#makeLeader:793).
func (r *ReplicaLog) BeginEpoch(epoch int32) { r.Epochs.Assign(epoch, r.LogEndOffset()) }

// OnLeaderAppend stamps a leader's append with its leader epoch
// (P#appendRecordsToLeader:1375 writes the epoch into the batch; ULOG
// append assigns it in the cache). Call it after every successful
// Part.AppendWith or Part.AppendMarker; a duplicate or an error is
// ignored.
func (r *ReplicaLog) OnLeaderAppend(epoch int32, res model.AppendResult) {
	if res.Err == model.ErrNone && !res.Duplicate && res.FirstOffset >= 0 {
		r.Epochs.Assign(epoch, res.FirstOffset)
	}
}

// AppendAsFollower appends batches a leader served, in order
// (RFT#processPartitionData:103, ULOG#appendAsFollower:732): each entry
// through [Partition.AppendReplica], each epoch into the cache at the entry's
// first offset (ULOG#append:762). It stops at the first entry that does not
// continue the log and returns its error; the entries before it stay.
func (r *ReplicaLog) AppendAsFollower(batches []model.ReplicaBatch) error {
	for i := range batches {
		b := &batches[i]
		if b.LeaderEpoch < 0 {
			return ErrReplicaEntry
		}
		if err := r.Part.AppendReplica(b.Entry); err != nil {
			return err
		}
		r.Epochs.Assign(b.LeaderEpoch, b.Entry.FirstOffset)
	}
	return nil
}

// Read appends to dst the entries from offset from to the log end (a
// follower's read is bounded by the LEO: LOG_END isolation), at most max
// entries when max > 0, each with its epoch, and returns dst. from must be an
// entry boundary; an offset inside an entry starts at that entry. The entries
// share nothing with the log: their records are made again from it, in slots
// of the partition's slab that are never written again.
func (r *ReplicaLog) Read(from int64, max int, dst []model.ReplicaBatch) []model.ReplicaBatch {
	lo, hi := r.Span(from, max)
	return r.ReadRange(lo, hi, dst)
}

// ReadRange appends the entries of log indexes [lo, hi) to dst (Read).
func (r *ReplicaLog) ReadRange(lo, hi int, dst []model.ReplicaBatch) []model.ReplicaBatch {
	log := &r.Part.log
	if lo >= hi {
		return dst
	}
	// The entries' records, made again from the compact log, are carved
	// from the partition's slab.
	buf := r.Part.spare.recs.Slice(log.records(lo, hi))
	ri := log.run(lo)
	for i := lo; i < hi; i++ {
		for int(log.runs[ri].from+log.runs[ri].n) <= i {
			ri++
		}
		run := &log.runs[ri]
		e := log.entryOf(run, int32(i)-run.from, &buf)
		dst = append(dst, model.ReplicaBatch{Entry: e, LeaderEpoch: r.Epochs.EpochFor(e.FirstOffset)})
	}
	return dst
}

// Span returns the log indexes [lo, hi) a read from offset from of at
// most limit entries (0: no limit) covers.
func (r *ReplicaLog) Span(from int64, limit int) (lo, hi int) {
	log := &r.Part.log
	lo, hi = log.search(from), log.len()
	if limit > 0 {
		hi = min(hi, lo+limit)
	}
	return lo, hi
}

// EndOffsetForEpoch is [LeaderEpochCache.EndOffsetFor] at this log's end
// (ULOG#endOffsetForEpoch; the leader's side of Fetch's divergence check,
// P#readRecords:1517, and of OffsetsForLeaderEpoch,
// RM#lastOffsetForLeaderEpoch:2754).
func (r *ReplicaLog) EndOffsetForEpoch(epoch int32) (int32, int64) {
	return r.Epochs.EndOffsetFor(epoch, r.LogEndOffset())
}

// TruncationOffset is the follower's decision
// (AbstractFetcherThread#getOffsetTruncationState) for the leader's
// answer (leaderEpoch, leaderEnd), with this log's end as both own LEO
// and fetch offset; see [LeaderEpochCache.TruncationOffset].
func (r *ReplicaLog) TruncationOffset(leaderEpoch int32, leaderEnd int64) (int64, bool) {
	leo := r.LogEndOffset()
	return r.Epochs.TruncationOffset(leaderEpoch, leaderEnd, leo, leo)
}

// TruncateTo truncates the log to offset (ULOG#truncateTo:1827): entries
// at or above it go, the producer state is rebuilt
// ([Partition.TruncateTo]), the epoch cache drops entries starting at or
// above the new end (also when nothing was truncated: then at the log
// end, which removes an epoch a former leader began without writing),
// and the high watermark is clamped to the new end. Truncating below the
// high watermark happens only after an unclean election and is
// done all the same. It returns the new log end offset.
func (r *ReplicaLog) TruncateTo(now sim.Time, offset int64) int64 {
	end := r.Part.TruncateTo(now, offset)
	r.Epochs.TruncateFromEnd(end)
	if r.hw > end {
		r.setHW(end)
	}
	return end
}

// UpdateFollowerHighWatermark sets a follower's high watermark from a
// fetch response, clamped to [0, LEO]; it may move down
// (ULOG#maybeUpdateHighWatermark:340). It returns the new value.
func (r *ReplicaLog) UpdateFollowerHighWatermark(hw int64) int64 {
	r.setHW(max(0, min(hw, r.LogEndOffset())))
	return r.hw
}

// MaybeIncrementHighWatermark raises a leader's high watermark to hw,
// capped at the LEO; it never lowers it (ULOG#maybeIncrementHighWatermark:311).
// It reports whether it rose.
func (r *ReplicaLog) MaybeIncrementHighWatermark(hw int64) bool {
	hw = min(hw, r.LogEndOffset())
	if hw <= r.hw {
		return false
	}
	r.setHW(hw)
	return true
}
