package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// epoch is INV-EPOCH: every epoch the coordinator hands out, and every
// epoch of an appended batch with a producer id, is within 0..MaxEpoch;
// and the epochs the coordinator hands a producer id never go down.
type epoch struct {
	max int16
	lv  *logView
	// last is, per pid, the last epoch the coordinator handed out.
	last map[model.ProducerID]int16
	out  capped
}

func newEpoch() invariant { return &epoch{} }

func (e *epoch) reset(cfg Config, lv *logView) {
	e.max, e.lv, e.last = cfg.maxEpoch(), lv, cleared(e.last)
	e.out.reset()
}

func (e *epoch) Name() string { return InvEpoch }

func (e *epoch) Observe(o *model.Obs) {
	switch {
	case o.Kind == model.ObsEpoch && o.Err == model.ErrNone:
		if (o.Epoch < 0 || o.Epoch > e.max) && e.out.room() {
			e.out.add(violation(InvEpoch, o.At, fmt.Sprintf("pid %d given epoch %d outside 0..%d", o.PID, o.Epoch, e.max)))
		}
		if last, ok := e.last[o.PID]; ok && o.Epoch < last && e.out.room() {
			e.out.add(violation(InvEpoch, o.At, fmt.Sprintf("pid %d epoch went from %d down to %d", o.PID, last, o.Epoch)))
		}
		e.last[o.PID] = o.Epoch
	case appended(o) && o.Batch.Idempotent():
		b := &o.Batch
		if (b.Epoch < 0 || b.Epoch > e.max) && e.out.room() {
			e.out.add(violation(InvEpoch, o.At, fmt.Sprintf("%s appended at offset %d with epoch outside 0..%d", batchTag(b), o.Result.FirstOffset, e.max)))
		}
	}
}

func (e *epoch) reads() []model.ObsKind { return []model.ObsKind{model.ObsEpoch, model.ObsVerdict} }

func (e *epoch) Finish() []Violation { return e.out.report(InvEpoch, e.lv.end) }
