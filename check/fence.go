package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// fence is INV-FENCE: once the coordinator has moved a producer id to
// epoch e (InitProducerId), no data batch of that producer id with a
// lower epoch is appended.
type fence struct {
	lv *logView
	// below is, per pid, the highest epoch the coordinator handed out
	// (above 0: a pid only ever given epoch 0 fences nothing).
	below map[model.ProducerID]int16
	out   capped
}

func newFence(_ Config, lv *logView) Invariant {
	return &fence{lv: lv, below: make(map[model.ProducerID]int16)}
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
	}
}

func (f *fence) Finish() []Violation { return f.out.report(InvFence, f.lv.end) }
