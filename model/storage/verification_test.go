package storage

import (
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestVerifiedAppendAfterMarker: the leader verifies a producer's first
// transactional batch of a transaction with the coordinator; if a
// same-epoch ABORT marker for the producer is written before the verified
// batch is appended (the marker overtook the coordinator's answer), the
// marker ended the verification and the append is refused with
// INVALID_TXN_STATE, instead of opening a transaction no coordinator
// holds (KAFKA-14884, fixed in 3.6.0: UnifiedLog.append re-checks the
// VerificationGuard). Without the marker the verified batch is appended.
func TestVerifiedAppendAfterMarker(t *testing.T) {
	const pid, epoch = model.ProducerID(7), int16(0)
	for _, marker := range []bool{false, true} {
		p := NewPartition(0, PartitionConfig{})
		p.StartVerification(pid, epoch, 0)
		if marker {
			if r := p.AppendMarker(0, pid, epoch, 0, model.MarkerAbort); r.Err != model.ErrNone {
				t.Fatalf("the ABORT marker: %v", r.Err)
			}
		}
		r := p.AppendWith(0, testBatch(0, pid, epoch, 0, 0, true, 0), AppendOptions{Verified: true})
		switch {
		case marker && r.Err != model.ErrInvalidTxnState:
			t.Errorf("verified batch after an ABORT marker: %v (%s), want INVALID_TXN_STATE", r.Err, r.Reason)
		case !marker && r.Err != model.ErrNone:
			t.Errorf("verified batch: %v (%s), want appended", r.Err, r.Reason)
		}
	}
	// A producer whose transaction is open at the batch's epoch needs no
	// verification entry: its later batches are appended.
	p := NewPartition(0, PartitionConfig{})
	p.StartVerification(pid, epoch, 0)
	if r := p.AppendWith(0, testBatch(0, pid, epoch, 0, 0, true, 0), AppendOptions{Verified: true}); r.Err != model.ErrNone {
		t.Fatalf("first batch: %v", r.Err)
	}
	if r := p.AppendWith(0, testBatch(0, pid, epoch, 1, 1, true, 0), AppendOptions{Verified: true}); r.Err != model.ErrNone {
		t.Errorf("second batch of the open transaction: %v (%s), want appended", r.Err, r.Reason)
	}
}
