package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// fence is INV-FENCE: once the coordinator has moved a producer id to
// epoch e (InitProducerId), no data batch of that producer id with a
// lower epoch is appended; and no batch of transaction N is appended
// after N's end marker: a transactional data batch of an instance's
// transaction ordinal N ([txnKey]) is not appended to a partition after
// a marker for the same producer id there closed N, or a later
// transaction of the same instance (a late Produce that crossed its
// transaction's boundary: under transaction version 1 consecutive
// transactions share the producer id and epoch, so the partition cannot
// tell them apart; KIP-890).
//
// A replicated run judges the appends that stayed in the partition's
// log. A leader that a failover deposed appends what it still takes for
// its own: a paused leader that resumes runs the produce requests it had
// queued before it learns of the new leader, as Kafka does, whose leader
// check is the replica's own view (core/src/main/scala/kafka/cluster/
// Partition.scala, appendRecordsToLeader, l.1384 at
// apache/kafka@1eb7644349cb: leaderLogIfLocal and its own ISR); it
// truncates the append when it follows the new leader (the diverging
// epoch, KIP-101). Such an append, and a marker such a leader wrote, were
// never readable; a violation is kept only when its batch, and the
// marker that closed its transaction, are entries of the final committed
// log ([model.ObsFinalLog]), as INV-SEQ judges that log.
type fence struct {
	cfg Config
	lv  *logView
	// below is, per pid, the highest epoch the coordinator handed out
	// (above 0: a pid only ever given epoch 0 fences nothing).
	below map[model.ProducerID]int16
	// held are a replicated run's violations in the order found, until
	// the final logs tell which stayed.
	held []heldFence
	out  capped
}

// heldFence is one violation of a replicated run and the log entries it
// rests on: the batch appended at first on partition part at time at,
// and, for the transaction clause, the marker at offset marker written
// at markerAt (marker -1: the epoch clause, no marker).
type heldFence struct {
	v             Violation
	part          int32
	pid           model.ProducerID
	epoch         int16
	seq           int32
	first, marker int64
	at, markerAt  sim.Time
}

func newFence() invariant { return &fence{} }

func (f *fence) reset(cfg Config, lv *logView) {
	f.cfg, f.lv, f.below = cfg, lv, cleared(f.below)
	f.held = truncated(f.held)
	f.out.reset()
}

func (f *fence) Name() string { return InvFence }

func (f *fence) Observe(o *model.Obs) {
	switch {
	case o.Kind == model.ObsEpoch && o.Err == model.ErrNone:
		if o.Epoch > f.below[o.PID] {
			f.below[o.PID] = o.Epoch
		}
	case appended(o) && o.Batch.Idempotent():
		b := &o.Batch
		if e, ok := f.below[b.PID]; ok && b.Epoch < e && f.room() {
			f.found(o, -1, 0, violation(InvFence, o.At, fmt.Sprintf("%s appended at offset %d after the coordinator moved pid %d to epoch %d", batchTag(b), o.Result.FirstOffset, b.PID, e)))
		}
		if off, at, ok := f.lv.tx.endedBefore(o); ok && f.room() {
			f.found(o, off, at, violation(InvFence, o.At, fmt.Sprintf("%s of %s appended at offset %d after the marker at offset %d closed that transaction or a later one of its instance", batchTag(b), f.lv.tx.keyOf(o).describe(f.cfg), o.Result.FirstOffset, off)))
		}
	case o.Kind == model.ObsFinalLog:
		f.settle(o)
	}
}

// room reports whether a violation found now is kept: always in a
// replicated run, where it is held until the final logs (and counted
// against the cap then), else as capped.room.
func (f *fence) room() bool { return f.lv.replicated || f.out.room() }

// found keeps v, found at append o (after the marker at offset marker
// written at markerAt; marker -1: none): at once, or in a replicated run
// held until the final logs.
func (f *fence) found(o *model.Obs, marker int64, markerAt sim.Time, v Violation) {
	if !f.lv.replicated {
		f.out.add(v)
		return
	}
	b := &o.Batch
	f.held = append(f.held, heldFence{v: v, part: b.Partition, pid: b.PID, epoch: b.Epoch, seq: b.FirstSeq,
		first: o.Result.FirstOffset, at: o.At, marker: marker, markerAt: markerAt})
}

// settle keeps, of the violations held for partition o.Partition, those
// whose batch (and marker) are entries of its final log, and drops the
// others.
func (f *fence) settle(o *model.Obs) {
	kept := f.held[:0]
	for _, h := range f.held {
		if h.part != o.Partition {
			kept = append(kept, h)
			continue
		}
		if !inFinalLog(o.Log, h.first, h.at, func(e *model.LogEntry) bool {
			return e.Marker == model.MarkerNone && e.Batch.PID == h.pid && e.Batch.Epoch == h.epoch && e.Batch.FirstSeq == h.seq
		}) {
			continue
		}
		if h.marker >= 0 && !inFinalLog(o.Log, h.marker, h.markerAt, func(e *model.LogEntry) bool { return e.Marker != model.MarkerNone }) {
			continue
		}
		if f.out.room() {
			f.out.add(h.v)
		}
	}
	f.held = kept
}

// inFinalLog reports whether log (in offset order) has an entry at
// offset first written at time at for which same holds: the very append
// observed, not another leader's entry at that offset.
func inFinalLog(log []model.LogEntry, first int64, at sim.Time, same func(*model.LogEntry) bool) bool {
	lo, hi := 0, len(log)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if log[m].FirstOffset < first {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(log) && log[lo].FirstOffset == first && log[lo].AppendedAt == at && same(&log[lo])
}

func (f *fence) reads() []model.ObsKind {
	return []model.ObsKind{model.ObsEpoch, model.ObsVerdict, model.ObsFinalLog}
}

func (f *fence) Finish() []Violation { return f.out.report(InvFence, f.lv.end) }
