package client

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// PolicyJava is Apache Kafka's Java producer, the reference.
const PolicyJava ClientPolicy = 0

func init() { registerPolicy(PolicyJava, &javaPolicy{}) }

// javaPolicy is Apache Kafka's Java producer (the reference; Kafka 3.9
// clients/src/main/java/org/apache/kafka/clients/producer/internals:
// Sender, RecordAccumulator, TransactionManager, TxnPartitionEntry),
// including its sequence arithmetic in plain int ([model.SeqSpace.JavaInt]):
// past the wrap lastAckedSequence sticks until the next epoch bump, no
// sequence is "next", and in-flight batches order by their base sequence
// as an int.
type javaPolicy struct{}

func (*javaPolicy) name() string { return "java" }

// release: the Java client's release is client.version.
func (*javaPolicy) release() string { return "" }

// transactionVersion: the Java client runs what is offered (KIP-890 part
// 2 from its 4.0 release, which the version profiles decide).
func (*javaPolicy) transactionVersion(_, java int) int { return java }

// produceV11: the Java client sends the newest Produce version both sides
// know, v11 from its 3.8 release (ProduceRequest.json at 3.8.1, KIP-890).
func (*javaPolicy) produceV11(client int) bool { return client == 0 || client >= 308 }

// retryInOrder: the Java client puts a retried batch first in its deque
// (RecordAccumulator.reenqueue, deque.addFirst), ahead of batches
// created after it; without idempotence a retry can so overtake.
func (*javaPolicy) retryInOrder() bool { return false }

// exponentialBackoff: the Java client backs off exponentially, with
// jitter, from 3.7.0 (KIP-580, KAFKA-14076 and the 3.7.0 upgrade notes:
// retry.backoff.max.ms); before, RecordAccumulator waited retry.backoff.ms
// before every retry.
func (*javaPolicy) exponentialBackoff(client int) bool { return client == 0 || client >= 307 }

// leaderHints: the Java client reads KIP-951's leader hints from 3.7.0
// (KAFKA-15627: Sender.handleProduceResponse and completeBatch,
// Metadata.updatePartitionLeadership; Produce v10 is in 3.7.0's
// ProduceRequest.json, not in 3.6.0's).
func (*javaPolicy) leaderHints(client int) bool { return client == 0 || client >= 307 }

// hintReplacesMetadata: Sender.completeBatch requests a metadata update
// for NOT_LEADER_OR_FOLLOWER whether or not the answer has a hint
// (leaderhint.go).
func (*javaPolicy) hintReplacesMetadata() bool { return false }

// lookupOnLoad: TransactionManager's handlers retry
// COORDINATOR_LOAD_IN_PROGRESS with the coordinator they have (reenqueue
// without lookupCoordinator).
func (*javaPolicy) lookupOnLoad() bool { return false }

// drainAfterAnswers: the Java client's sender thread handles the answers
// one poll returns and then drains (Sender.runOnce: sendProducerData,
// then client.poll); the model sends as each answer is handled, as
// before.
func (*javaPolicy) drainAfterAnswers() bool { return false }

// nagle: the Java client's sockets have TCP_NODELAY (Kafka's
// Selector.configureSocketChannel, setTcpNoDelay(true)).
func (*javaPolicy) nagle() bool { return false }

// responded: the Java client pipelines a partition whatever its last
// response was.
func (*javaPolicy) responded(*partState, model.ErrCode) {}

// failed is Sender.completeBatch's error path: Sender.canRetry with
// TransactionManager.canRetry (Producer.canRetry), then
// TransactionManager.handleFailedBatch (Producer.failBatch).
func (*javaPolicy) failed(p *Producer, now sim.Time, b *pbatch, err model.ErrCode, logStart int64) {
	if p.canRetry(now, b, err, logStart) {
		p.reenqueueRetry(now, b)
		return
	}
	if err == model.ErrDuplicateSequenceNumber {
		// An old broker's duplicate is a success of unknown offset
		// (Sender.completeBatch, DUPLICATE_SEQUENCE_NUMBER).
		p.completeOK(now, b, -1)
		return
	}
	p.failBatch(now, b, err, b.attempts < p.cfg.Retries)
}

// acked is maybeUpdateLastAckedSequence: "if (sequence >
// lastAckedSequence)" in plain int (TxnPartitionEntry.java l.127-133 at
// apache/kafka@1eb7644349cb). After the wrap a batch's last sequence is
// small (or, straddling it, negative), so lastAckedSequence sticks until
// the next epoch bump resets it.
func (*javaPolicy) acked(p *Producer, ps *partState, b *pbatch) {
	if last := javaLastSeq(p.cfg.Seq, b); last > ps.lastAckedSeq {
		ps.lastAckedSeq = last
	}
}

// isNextSeq is TransactionManager.isNextSequence, which the Java client
// computes in plain int, "sequence - lastAckedSequence == 1"
// (TransactionManager.java l.788-790 at apache/kafka@1eb7644349cb), so
// after the wrap no sequence is the head until an epoch bump.
func (*javaPolicy) isNextSeq(p *Producer, ps *partState, seq int32) bool {
	return p.cfg.Seq.JavaInt(int64(seq)-int64(ps.lastAckedSeq)) == 1
}

// unackedAt: the Java client keeps its in-flight batches in a TreeSet
// ordered by producer id, epoch and base sequence as a plain int
// (TxnPartitionEntry.java l.62-65): past the wrap a new batch sorts
// before the older ones, and the set's first batch is the one that may go
// in retry mode (firstInFlightSequence,
// RecordAccumulator.shouldStopDrainBatchesForPartition l.858-864), the
// order retries are queued in (insertInSequenceOrder) and the order an
// epoch bump renumbers them in (startSequencesAtBeginning).
func (*javaPolicy) unackedAt(ps *partState, b *pbatch) int {
	i := len(ps.unacked)
	for i > 0 && ps.unacked[i-1].b.FirstSeq > b.b.FirstSeq {
		i--
	}
	return i
}

// expiredGap: an expired batch that had been re-enqueued makes its
// partition unresolved (TransactionManager.markSequenceUnresolved).
func (*javaPolicy) expiredGap(*Producer, *pbatch) bool { return false }

// unresolvedNext is TransactionManager.markSequenceUnresolved (l.739-745
// at apache/kafka@1eb7644349cb): the next sequence is the batch's last
// plus one, the larger one if the partition is unresolved already. The
// Java client does both in plain int (lastSequence() + 1, Math.max), so
// past the wrap the answer can be no sequence at all.
func (*javaPolicy) unresolvedNext(p *Producer, ps *partState, b *pbatch) {
	next := p.cfg.Seq.JavaInt(int64(javaLastSeq(p.cfg.Seq, b)) + 1)
	if !ps.unresolved || next > ps.unresolvedNext {
		ps.unresolvedNext = next
	}
}

// bumpAll: the Java client bumps an idempotent producer's epoch locally,
// for the partitions that asked (bumpIdempotentEpochAndResetIdIfNeeded).
func (*javaPolicy) bumpAll(*Producer) bool { return false }

// maxInFlight is max.in.flight.requests.per.connection.
func (*javaPolicy) maxInFlight(p *Producer, _ *dconn) int { return p.cfg.MaxInFlight }

// pipelines: with max.in.flight.requests.per.connection=1,
// guaranteeMessageOrder mutes a partition while it has a batch on the
// wire (Sender's guaranteeMessageOrder).
func (*javaPolicy) pipelines(p *Producer, _ *partState) bool { return p.cfg.MaxInFlight != 1 }

// drainsNext is retry mode: while a sequenced batch is queued for a
// retry, only the partition's lowest unacknowledged sequence may go
// (RecordAccumulator.shouldStopDrainBatchesForPartition), which
// drops the partition to one request in flight.
func (*javaPolicy) drainsNext(_ *Producer, ps *partState, b *pbatch) bool {
	return !b.hasSeq || len(ps.unacked) == 0 || ps.unacked[0] == b
}

// javaLastSeq is the batch's last sequence as the Java client computes
// it: ProducerBatch.lastSequence, baseSequence + recordCount - 1 in plain
// int (ProducerBatch.java l.544-546), which a batch straddling the wrap
// overflows. The batch on the wire carries the wrapped LastSeq.
func javaLastSeq(s model.SeqSpace, b *pbatch) int32 {
	return s.JavaInt(int64(b.b.FirstSeq) + int64(len(b.b.Records)) - 1)
}
