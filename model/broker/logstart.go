package broker

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// The broker's side of log start movement (docs/operations.md "Log start
// movement"): the periodic retention check on every hosted log
// (LogManager.cleanupLogs, every log.retention.check.interval.ms, calls
// UnifiedLog.deleteOldSegments), DeleteRecords on a partition leader
// (ReplicaManager.deleteRecords, Partition.deleteRecordsOnLeader), and
// the log start a follower learns from its leader's fetch answers
// (fetcher.go). Fetches and ListOffsets read from the log start
// (consumer.go).

// tokRetention marks the retention check's timer tokens.
const tokRetention uint64 = 1 << 61

// armRetention asks for a wake-up at the first check boundary at which
// retention would delete an entry of a hosted log, if there is one.
func (b *Broker) armRetention(now sim.Time) {
	every := sim.Time(b.cfg.RetentionCheckInterval)
	r := b.cfg.Partition.Retention
	if every <= 0 || r == nil {
		return
	}
	next := sim.Time(-1)
	for _, p := range b.parts {
		if p == nil {
			continue
		}
		if t, ok := p.NextRetention(now, r); ok && (next < 0 || t < next) {
			next = t
		}
	}
	if next < 0 {
		return
	}
	if o, ok := b.retention.Arm(next, every); ok {
		o.Timer |= tokRetention
		b.Outs = append(b.Outs, o)
	}
}

// retentionWake runs the retention check due at the token's boundary.
func (b *Broker) retentionWake(now sim.Time, token uint64) {
	at, ok := b.retention.Fire(token &^ tokRetention)
	if !ok {
		return
	}
	for _, p := range b.parts {
		if p == nil {
			continue
		}
		old := p.LogStartOffset()
		if start, cause, moved := p.DeleteOldEntries(at, b.cfg.Partition.Retention); moved {
			b.observeLogStart(p.ID, old, start, cause, model.ErrNone)
		}
	}
}

// DeleteRecords is an admin's DeleteRecords for partition part before
// offset before (ReplicaManager.deleteRecords): on the partition's
// leader, an offset at or below the high watermark moves the log start
// there; above it, or below 0, it is OFFSET_OUT_OF_RANGE
// (UnifiedLog.maybeIncrementLogStartOffset), and a broker that does not
// lead the partition answers NOT_LEADER_OR_FOLLOWER. The request does not
// travel: the world hands it to the leader the plan names (simplified).
// The answer is an observation.
func (b *Broker) DeleteRecords(now sim.Time, part int32, before int64) []model.Out {
	b.begin()
	err, _ := b.leaderEpochCheck(part, -1)
	old := int64(0)
	if p := b.Partition(part); p != nil {
		old = p.LogStartOffset()
		if err == model.ErrNone && (before < 0 || before > p.HighWatermark()) {
			err = model.ErrOffsetOutOfRange
		}
		if err == model.ErrNone {
			p.IncrementLogStart(before)
		}
	}
	start := old
	if err == model.ErrNone {
		start = b.Partition(part).LogStartOffset()
	}
	b.observeLogStart(part, old, start, storage.CauseDeleteRecords, err)
	b.armExpiry(now)
	return b.Outs
}

// observeLogStart reports a log start's move from old to start (or, with
// err, a refused DeleteRecords).
func (b *Broker) observeLogStart(part int32, old, start int64, cause string, err model.ErrCode) {
	b.observe(model.Obs{Kind: model.ObsLogStart, Partition: part, N: start, Result: model.AppendResult{FirstOffset: old}, Text: cause, Err: err})
}
