package broker

import "github.com/idemsim/idemsim/model"

// describeProducers answers the admin's DescribeProducers (KIP-664, Kafka
// 3.0.0): KafkaApis.handleDescribeProducersRequest
// (core/src/main/scala/kafka/server/KafkaApis.scala) answers
// UNKNOWN_TOPIC_OR_PARTITION for a partition the metadata does not have,
// else ReplicaManager.activeProducerState: NOT_LEADER_OR_FOLLOWER when
// the broker hosts no replica of it (getPartitionOrError), else the
// replica's producer states (Partition.activeProducerState,
// UnifiedLog.activeProducers). A follower answers too, from its own
// replica, as in Kafka; the admin asks the leader. Authorization is not
// modelled.
func (b *Broker) describeProducers(from model.Peer, m *model.DescribeProducersRequest) {
	resp := &model.DescribeProducersResponse{CorrelationID: m.CorrelationID, Partition: m.Partition}
	switch p := b.Partition(m.Partition); {
	case m.Partition < 0 || int(m.Partition) >= len(b.cfg.Leaders):
		resp.Err = model.ErrUnknownTopicOrPartition
	case p == nil:
		resp.Err = model.ErrNotLeaderOrFollower
	default:
		resp.Producers = p.ActiveProducers(nil)
	}
	b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
}
