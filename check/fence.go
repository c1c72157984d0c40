package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
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
type fence struct {
	cfg Config
	lv  *logView
	// below is, per pid, the highest epoch the coordinator handed out
	// (above 0: a pid only ever given epoch 0 fences nothing).
	below map[model.ProducerID]int16
	out   capped
}

func newFence() invariant { return &fence{} }

func (f *fence) reset(cfg Config, lv *logView) {
	f.cfg, f.lv, f.below = cfg, lv, cleared(f.below)
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
		if e, ok := f.below[b.PID]; ok && b.Epoch < e && f.out.room() {
			f.out.add(violation(InvFence, o.At, fmt.Sprintf("%s appended at offset %d after the coordinator moved pid %d to epoch %d", batchTag(b), o.Result.FirstOffset, b.PID, e)))
		}
		if off, ok := f.lv.tx.endedBefore(o); ok && f.out.room() {
			f.out.add(violation(InvFence, o.At, fmt.Sprintf("%s of %s appended at offset %d after the marker at offset %d closed that transaction or a later one of its instance", batchTag(b), f.lv.tx.keyOf(o).describe(f.cfg), o.Result.FirstOffset, off)))
		}
	}
}

func (f *fence) reads() []model.ObsKind { return []model.ObsKind{model.ObsEpoch, model.ObsVerdict} }

func (f *fence) Finish() []Violation { return f.out.report(InvFence, f.lv.end) }
