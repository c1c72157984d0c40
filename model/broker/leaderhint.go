package broker

import "github.com/idemsim/idemsim/model"

// KIP-951 leader discovery, the broker's side (Kafka 3.7.0, KAFKA-15661):
// a produce answered NOT_LEADER_OR_FOLLOWER carries the partition's
// current leader and its epoch, so that the client can move the
// partition to it without waiting for a Metadata answer.
// KafkaApis.handleProduceRequest's sendResponseCallback
// (core/src/main/scala/kafka/server/KafkaApis.scala) fills
// PartitionResponse.currentLeader for every NOT_LEADER_OR_FOLLOWER when
// "request.header.apiVersion >= 10", from KafkaApis.getCurrentLeader: the
// hosted partition's leader and leader epoch
// (ReplicaManager.getPartitionOrError), else the metadata cache's, else
// -1 and -1; it adds the leader's endpoint to the response's
// NodeEndpoints when the leader is alive. Produce v10 and the callback's
// hint are absent from 3.6.0 and present from 3.7.0 (the release tags).

// sendsLeaderHints reports whether this broker's release fills the hint:
// 3.7 or later, with replication (an unreplicated world has no
// controller and no leader epochs; its leaders never move, so a hint
// could only name the leader the client already has, at the epoch it
// has, which the client ignores).
func (b *Broker) sendsLeaderHints() bool {
	v := b.cfg.Leader.Version
	return b.Replicated() && (v == 0 || v >= 307)
}

// fillLeaderHints sets the hint on every NOT_LEADER_OR_FOLLOWER partition
// of resp from the broker's applied metadata, as the response is sent
// (sendResponseCallback runs when an acks=all wait ends, too). The
// broker's replicas take their leader and epoch from the same metadata,
// so the hosted partition's answer and the cache's agree.
func (b *Broker) fillLeaderHints(resp *model.ProduceResponse) {
	for i := range resp.Partitions {
		pr := &resp.Partitions[i]
		if pr.Err != model.ErrNotLeaderOrFollower {
			continue
		}
		pr.HasCurrentLeader, pr.CurrentLeader, pr.CurrentLeaderEpoch = true, -1, -1
		if int(pr.Partition) < len(b.meta) {
			st := &b.meta[pr.Partition]
			pr.CurrentLeader, pr.CurrentLeaderEpoch = st.Leader, st.LeaderEpoch
		}
	}
}

// KIP-951 for consumers (Kafka 3.7.0): KafkaApis.handleFetchRequest
// (core/src/main/scala/kafka/server/KafkaApis.scala at the 3.7.0 tag)
// fills a Fetch v16 answer's PartitionData.currentLeader for every
// partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, from
// the same KafkaApis.getCurrentLeader, and adds the leader's endpoint to
// NodeEndpoints. A consumer's fetch is answered at once (no purgatory),
// so the hint comes from the metadata the broker has applied when it
// answers. Fetch v16 is absent from 3.6.0.

// fillFetchLeaderHint sets the hint on consumer fetch answer resp.
func (b *Broker) fillFetchLeaderHint(resp *model.ConsumerFetchResponse) {
	resp.HasCurrentLeader, resp.CurrentLeader, resp.CurrentLeaderEpoch = true, -1, -1
	if int(resp.Partition) < len(b.meta) {
		st := &b.meta[resp.Partition]
		resp.CurrentLeader, resp.CurrentLeaderEpoch = st.Leader, st.LeaderEpoch
	}
}
