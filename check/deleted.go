package check

import "github.com/idemsim/idemsim/model"

// Records deleted by retention or DeleteRecords (docs/operations.md "Log
// start movement"). A broker reports every move of a partition's log start
// ([model.ObsLogStart]); the records below it are gone from Kafka's log.
// They were committed first: INV-LOSS asks whether an acknowledged record
// was ever committed, so a deleted record is not lost, and the tally
// reports how many went ([Counts.Deleted]) instead of leaving them
// unsaid. The brokers keep the deleted entries below the log start
// (model/storage), so the final logs of a replicated run still hold them
// and the committed view is the same with and without deletion.

// logStart records a broker's move of a partition's log start (a refused
// DeleteRecords moves nothing).
func (lv *logView) logStart(o *model.Obs) {
	if o.Err != model.ErrNone || o.Partition < 0 {
		return
	}
	for len(lv.starts) <= int(o.Partition) {
		lv.starts = append(lv.starts, 0)
	}
	lv.starts[o.Partition] = max(lv.starts[o.Partition], o.N)
}

// deleted returns the number of data records below their partition's
// log start: retention deletes whole entries, DeleteRecords may split
// one (its records below the offset count).
func (lv *logView) deleted() int64 {
	var n int64
	for p, start := range lv.starts {
		s := lv.log(int32(p))
		for i := 0; i < s.len(); i++ {
			e := s.at(i)
			if e.first >= start {
				break
			}
			if e.nrec > 0 {
				n += min(int64(e.nrec), start-e.first)
			}
		}
	}
	return n
}
