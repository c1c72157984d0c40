package broker

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

func testBatch(part int32, pid model.ProducerID, epoch int16, first, last int32, txn bool, at sim.Time) model.Batch {
	n := int(last-first) + 1
	if pid == model.NoProducerID {
		first, last = model.NoSequence, model.NoSequence
	}
	b := model.Batch{Partition: part, PID: pid, Epoch: epoch, FirstSeq: first, LastSeq: last, Transactional: txn, Records: make([]model.Record, n)}
	for i := range b.Records {
		b.Records[i].CreateTime = at
	}
	return b
}

func mustOK(t *testing.T, r model.AppendResult) model.AppendResult {
	t.Helper()
	if r.Err != model.ErrNone {
		t.Fatalf("append: %v (%s)", r.Err, r.Reason)
	}
	return r
}

// errResult returns a failed AppendResult.
func errResult(e model.ErrCode, reason string) model.AppendResult {
	return model.AppendResult{Err: e, FirstOffset: -1, LastOffset: -1, Reason: reason}
}
