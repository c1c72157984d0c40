package client

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// KIP-951 leader discovery, the producer's side (Java client 3.7.0,
// KAFKA-15627; clients/src/main/java/org/apache/kafka/clients/producer/
// internals/Sender.java and clients/src/main/java/org/apache/kafka/
// clients/Metadata.java at the 3.7.0 tag). A produce answered
// NOT_LEADER_OR_FOLLOWER by a broker of 3.7 or later carries the
// partition's current leader and epoch:
//
//   - Sender.completeBatch retries the batch and requests a metadata
//     update as before (metadata.requestUpdate), and collects the hint
//     when its leader id and epoch are not -1;
//   - Sender.handleProduceResponse then calls
//     Metadata.updatePartitionLeadership, which moves the partition to
//     the hinted leader when the hint's epoch is newer than the cached
//     one (and the leader's node is known);
//   - RecordAccumulator.ready and drain skip a retry's backoff when the
//     partition's leader epoch changed since the batch's last attempt
//     (ProducerBatch.maybeUpdateLeaderEpoch,
//     hasLeaderChangedForTheOngoingRetry, RecordAccumulator.shouldBackoff),
//     so the retry goes to the new leader at the next sender pass, before
//     the Metadata request (Producer.poll).
//
// A client before 3.7 sends Produce v9 or older, gets no hint, and finds
// the new leader in the Metadata answer; its retry waits retry.backoff.ms.
//
// Simplified: the 3.7 client also skips the backoff when a Metadata
// answer (not a hint) brings a newer epoch; the model skips it after a
// hint only.

// franz-go's kgo (clientPolicy.hintReplacesMetadata) differs: a usable
// hint (NOT_LEADER_OR_FOLLOWER, a leader and an epoch that are not -1,
// a broker the client knows) replaces the metadata update. A newer
// epoch moves the partition and its retry goes at once; an equal or
// older one retries on the same leader after the backoff.
//
// Simplified for kgo: its move runs on the metadata goroutine
// (kip951move.maybeBeginMove, blockingMetadataFn), after a Metadata
// request already in flight; the model moves at once.

// usableHint reports whether produce answer pr's hint is one the client
// acts on: NOT_LEADER_OR_FOLLOWER with a leader and an epoch, the leader
// a broker the client knows (kgo's maybeAddProducePartition; the Java
// client's completeBatch and updatePartitionLeadership).
func (p *Producer) usableHint(pr *model.PartitionResponse) bool {
	return pr.Err == model.ErrNotLeaderOrFollower && pr.HasCurrentLeader && pr.CurrentLeader >= 0 && pr.CurrentLeaderEpoch >= 0 &&
		pr.CurrentLeader < int32(max(p.cfg.Brokers, 1))
}

// applyLeaderHints applies the hints of produce response r
// (Metadata.updatePartitionLeadership), after every batch of r was
// completed or queued for retry.
func (p *Producer) applyLeaderHints(now sim.Time, r *model.ProduceResponse) {
	for i := range r.Partitions {
		pr := &r.Partitions[i]
		if !pr.HasCurrentLeader || pr.CurrentLeader < 0 || pr.CurrentLeaderEpoch < 0 {
			continue // incomplete: completeBatch does not collect it
		}
		if int(pr.Partition) >= len(p.parts) || pr.CurrentLeader >= int32(max(p.cfg.Brokers, 1)) {
			continue // a partition or a node the metadata does not know
		}
		ps := p.parts[pr.Partition]
		if pr.CurrentLeaderEpoch <= ps.leaderEpoch {
			continue // not newer than the cached leader
		}
		ps.leaderEpoch = pr.CurrentLeaderEpoch
		if !p.ownLeaders {
			p.leaders = append([]int32(nil), p.leaders...)
			p.ownLeaders = true
		}
		p.leaders[pr.Partition] = pr.CurrentLeader
		p.hintMoved = true
		p.note(model.NoteInfo, "leader hint: p"+strconv.FormatInt(int64(pr.Partition), 10)+" leader b"+strconv.FormatInt(int64(pr.CurrentLeader)+1, 10)+
			" epoch "+strconv.FormatInt(int64(pr.CurrentLeaderEpoch), 10))
		// The epoch moved since every queued retry's last attempt: none
		// backs off (RecordAccumulator.shouldBackoff).
		for _, b := range ps.queue {
			if b.attempts > 0 && b.retryAt > now {
				b.retryAt = now
			}
		}
	}
}
