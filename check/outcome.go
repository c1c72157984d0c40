package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// SimOutcome is the simulator's own accounting invariant: every record the
// application sent ends in exactly one of acknowledged, failed, pending
// (still held by a live producer at the end) or abandoned (held by a
// producer instance that crashed). A violation is a defect of the model,
// not of Kafka.
const SimOutcome = "SIM-OUTCOME"

// outcome checks sent = acked + failed + pending + abandoned at the end of
// the run, with acked and failed counted per record (a record acknowledged
// by any instance is acknowledged).
type outcome struct {
	lv        *logView
	sent      int64
	abandoned int64
	pending   int64
}

func newOutcome() invariant { return &outcome{} }

func (o *outcome) reset(_ Config, lv *logView) { *o = outcome{lv: lv} }

func (o *outcome) Name() string { return SimOutcome }

func (o *outcome) Observe(ob *model.Obs) {
	switch ob.Kind {
	case model.ObsAppSend:
		o.sent++
	case model.ObsRunEnd:
		o.pending, o.abandoned = ob.N, ob.Abandoned
	}
}

func (o *outcome) reads() []model.ObsKind { return []model.ObsKind{model.ObsAppSend, model.ObsRunEnd} }

func (o *outcome) Finish() []Violation {
	acked, failed := o.lv.recs.acked, o.lv.recs.failed
	if sum := acked + failed + o.pending + o.abandoned; sum != o.sent {
		return []Violation{violation(SimOutcome, o.lv.end, fmt.Sprintf("sent %d records but acked %d + failed %d + pending %d + abandoned %d = %d (a defect of the model)",
			o.sent, acked, failed, o.pending, o.abandoned, sum))}
	}
	return nil
}
