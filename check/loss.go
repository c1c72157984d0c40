package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// loss is INV-LOSS: every record acknowledged to the application is
// committed in the log; for a record sent in a transaction, once the
// application was told its transaction committed (lostAcked). It reports the missing records by application and
// message number, each at its acknowledgement: the first 8, then how many
// more.
type loss struct{ lv *logView }

// maxLost bounds the lost records reported one by one.
const maxLost = 8

func newLoss() invariant { return &loss{} }

func (l *loss) reset(_ Config, lv *logView) { l.lv = lv }

func (l *loss) Name() string { return InvLoss }

func (l *loss) Observe(*model.Obs) {}

func (l *loss) reads() []model.ObsKind { return nil } // it judges the log view at the end

func (l *loss) Finish() []Violation {
	ids := l.lv.lostAcked()
	var v []Violation
	for i, id := range ids {
		if i == maxLost {
			v = append(v, violation(InvLoss, l.lv.end, fmt.Sprintf("... and %d more", len(ids)-maxLost)))
			break
		}
		o, _ := l.lv.recs.ackFor(id)
		how := ""
		if o.txn {
			how = ", its transaction reported committed,"
		}
		v = append(v, violation(InvLoss, o.at, fmt.Sprintf("%v acknowledged at offset %d of p%d%s but not in the log", id, o.offset, o.part, how)))
	}
	return v
}
