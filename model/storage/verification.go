package storage

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// The verification sequence guard (KIP-890 part 1):
// when a partition leader starts verifying a producer's first
// transactional batch of a transaction, it records the lowest sequence it
// verifies for (storage/src/main/java/org/apache/kafka/storage/internals/
// log/VerificationStateEntry.java, lowestSequence, at apache/kafka@1eb7644349cb).
// While that entry stands, a batch of the producer whose first sequence is
// above the lowest one gets OUT_OF_ORDER_SEQUENCE_NUMBER, so a later
// in-flight batch cannot be appended ahead of an earlier one whose
// verification failed with a retriable error (KAFKA-14904, KAFKA-14920,
// fixed in 3.6.0). The entry ends when the producer's
// transaction starts on the partition (its first transactional batch is
// appended) or a marker for it is written, and with the broker's memory at
// a restart.

// verificationEntry is a producer's VerificationStateEntry.
type verificationEntry struct {
	epoch  int16
	lowest int32
}

// StartVerification records that the leader verifies pid's transactional
// batch at epoch starting at firstSeq: the entry's lowest sequence becomes
// firstSeq if it is lower (or the epoch is new).
func (p *Partition) StartVerification(pid model.ProducerID, epoch int16, firstSeq int32) {
	if p.verifying == nil {
		p.verifying = make(map[model.ProducerID]verificationEntry)
	}
	if e, ok := p.verifying[pid]; ok && e.epoch == epoch && e.lowest <= firstSeq {
		return
	}
	p.verifying[pid] = verificationEntry{epoch: epoch, lowest: firstSeq}
}

// verificationGuard returns the OUT_OF_ORDER_SEQUENCE_NUMBER result for a
// transactional batch above its producer's lowest verified sequence, and
// false when the batch passes (Kafka's VerificationStateEntry).
// BugNoVerificationGuard skips it.
func (p *Partition) verificationGuard(b *model.Batch) (model.AppendResult, bool) {
	if p.cfg.BugNoVerificationGuard || !b.Transactional || len(p.verifying) == 0 {
		return model.AppendResult{}, false
	}
	e, ok := p.verifying[b.PID]
	if !ok || e.epoch != b.Epoch || b.FirstSeq <= e.lowest {
		return model.AppendResult{}, false
	}
	return errResult(model.ErrOutOfOrderSequenceNumber, "verification guard: seq "+strconv.FormatInt(int64(b.FirstSeq), 10)+" above the lowest verified "+strconv.FormatInt(int64(e.lowest), 10)), true
}

// endVerification drops pid's entry: its transaction started on the
// partition, or a marker ended it.
func (p *Partition) endVerification(pid model.ProducerID) {
	if len(p.verifying) > 0 {
		delete(p.verifying, pid)
	}
}

// verificationStands reports whether pid's verification entry at epoch
// still stands: no marker ended it since the leader started verifying
// (and no restart lost it).
func (p *Partition) verificationStands(pid model.ProducerID, epoch int16) bool {
	e, ok := p.verifying[pid]
	return ok && e.epoch == epoch
}
