package consumer

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// KIP-951 leader discovery, the consumer's side (Java client 3.7.0,
// KAFKA-15661 for the broker, AbstractFetch at the 3.7.0 tag:
// clients/src/main/java/org/apache/kafka/clients/consumer/internals/
// AbstractFetch.java, handleFetchSuccess, l.205-250, and
// clients/src/main/java/org/apache/kafka/clients/Metadata.java,
// updatePartitionLeadership). A 3.7 consumer sends Fetch v16; a broker of
// 3.7 or later answers a partition it no longer leads
// (NOT_LEADER_OR_FOLLOWER) or leads at a newer epoch
// (FENCED_LEADER_EPOCH) with the current leader and its epoch
// (model.ConsumerFetchResponse.HasCurrentLeader). handleFetchSuccess
// collects every hint whose leader id and epoch are not -1 and calls
// Metadata.updatePartitionLeadership, which moves the partition to the
// hinted leader when the hint's epoch is newer than the cached one and
// the leader's node is known. FetchCollector.handleInitializeErrors still
// requests a metadata update, as before 3.7. A consumer before 3.7 sends
// Fetch v15 or older, gets no hint, and finds the new leader in the
// Metadata answer.
//
// Simplified: the partition's next fetch still waits retry.backoff.ms
// (the model's retry of a partition error, leaderError), and the position
// is not validated against the new leader
// (SubscriptionState.maybeValidatePositionForCurrentLeader, an
// OffsetsForLeaderEpoch round trip, is not modelled). A Metadata answer
// with an older epoch does not undo the hint (Consumer.metadata).

// readsLeaderHints reports whether the consumer's release sends Fetch
// v16 and reads its leader hints: 3.7 or later.
func (c *Consumer) readsLeaderHints() bool {
	v := c.cfg.ClientVersion
	return v == 0 || v >= 307
}

// applyLeaderHint moves partition m.Partition to the leader m's hint
// names when the hint is complete, names a broker the consumer knows,
// and brings a newer epoch (Metadata.updatePartitionLeadership).
func (c *Consumer) applyLeaderHint(m *model.ConsumerFetchResponse) {
	if !m.HasCurrentLeader || !c.readsLeaderHints() || m.CurrentLeader < 0 || m.CurrentLeaderEpoch < 0 {
		return
	}
	p := m.Partition
	if int(p) >= len(c.leaders) || m.CurrentLeader >= int32(max(c.cfg.Brokers, 1)) || m.CurrentLeaderEpoch <= c.epochs[p] {
		return
	}
	c.leaders[p], c.epochs[p] = m.CurrentLeader, m.CurrentLeaderEpoch
	c.note(model.NoteInfo, "leader hint: p"+strconv.FormatInt(int64(p), 10)+" leader b"+strconv.FormatInt(int64(m.CurrentLeader)+1, 10)+
		" epoch "+strconv.FormatInt(int64(m.CurrentLeaderEpoch), 10))
}
