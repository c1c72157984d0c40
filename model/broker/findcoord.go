package broker

import "github.com/idemsim/idemsim/model"

// FindCoordinator (KafkaApis.handleFindCoordinatorRequest,
// core/src/main/scala/kafka/server/KafkaApis.scala, getCoordinator): the
// broker maps the key to its partition of __transaction_state or
// __consumer_offsets and answers with that partition's leader from its
// metadata cache, or COORDINATOR_NOT_AVAILABLE when it has none.
//
// Simplified: the model has no such partitions; the world tells every
// broker where each coordinator is when it moves ([Broker.SetCoordinator]),
// at once, where a Kafka broker learns it from the controller's next
// publication.

// coordKinds is the number of FindCoordinator key types.
const coordKinds = 2

// SetCoordinator records that the coordinator for key type t is on broker
// host (an index), on no broker (model.CoordSelf: the coordinator's own
// node, a world without replication), or unavailable (available false).
func (b *Broker) SetCoordinator(t model.CoordKeyType, host int32, available bool) {
	if int(t) >= coordKinds {
		return
	}
	b.coordTags[t] = model.CoordTag(host)
	if !available {
		b.coordTags[t] = -1
	}
}

func (b *Broker) findCoordinator(from model.Peer, m *model.FindCoordinatorRequest) {
	resp := &model.FindCoordinatorResponse{CorrelationID: m.CorrelationID, KeyType: m.KeyType, Key: m.Key, Node: model.CoordSelf}
	switch {
	case int(m.KeyType) >= coordKinds || m.KeyType < 0:
		resp.Err = model.ErrInvalidRequest
	case b.coordTags[m.KeyType] < 0:
		resp.Err = model.ErrCoordinatorNotAvailable
	default:
		resp.Node = b.coordTags[m.KeyType] - 1
	}
	b.Outs = append(b.Outs, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
}
