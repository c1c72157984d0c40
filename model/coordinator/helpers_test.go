package coordinator

import "github.com/idemsim/idemsim/model"

// mk returns an idempotent batch of pid/epoch covering first..last in s.
func mk(s model.SeqSpace, pid model.ProducerID, epoch int16, first, last int32, txn bool) model.Batch {
	n := int64(1)
	if first >= 0 && last >= 0 {
		n = s.Count(first, last)
	}
	return model.Batch{PID: pid, Epoch: epoch, FirstSeq: first, LastSeq: last, Transactional: txn, Records: make([]model.Record, n)}
}
