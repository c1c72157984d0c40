package check

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestDeletedRecords: records below a partition's final log start (a
// retention move, then a DeleteRecords inside a batch) are counted as
// deleted, not lost; a refused DeleteRecords moves nothing; and in a
// replicated run, where the final log decides what is committed, a
// record below the log start that the final log holds is not lost either.
func TestDeletedRecords(t *testing.T) {
	for _, replicated := range []bool{false, true} {
		r := newRun(Config{Replicated: replicated})
		var log []model.LogEntry
		for n := int64(0); n < 4; n++ {
			r.send(0, 0)
			r.outcome(model.Outcome{ID: model.RecordID{App: 0, N: 2 * n}, Offset: 2 * n})
			r.outcome(model.Outcome{ID: model.RecordID{App: 0, N: 2*n + 1}, Offset: 2*n + 1})
			log = append(log, r.appendBatch(0, batch(7, 0, int32(2*n), 2)))
		}
		logStart := func(start int64, err model.ErrCode) {
			r.emit(func(o *model.Obs) {
				o.Kind, o.Partition, o.N, o.Err, o.Text = model.ObsLogStart, 0, start, err, "retention.ms"
			})
		}
		logStart(4, model.ErrNone)             // retention: the first two batches
		logStart(7, model.ErrNone)             // DeleteRecords inside the fourth batch
		logStart(8, model.ErrOffsetOutOfRange) // refused: above the high watermark
		logStart(5, model.ErrNone)             // an older report (a follower's) moves nothing back
		if replicated {
			r.emit(func(o *model.Obs) { o.Kind, o.Partition, o.Node, o.Log = model.ObsFinalLog, 0, 0, log })
		}
		counts, vs := r.end(10, 0, "drained", 0)
		if counts.Deleted != 7 || counts.LostAcked != 0 || counts.Appended != 8 {
			t.Errorf("replicated=%v: deleted %d, lost %d, appended %d; want 7, 0, 8", replicated, counts.Deleted, counts.LostAcked, counts.Appended)
		}
		for _, v := range vs {
			if v.Invariant == InvLoss {
				t.Errorf("replicated=%v: %v", replicated, v)
			}
		}
	}
}
