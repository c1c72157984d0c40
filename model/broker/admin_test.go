package broker

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestDescribeProducers: the leader answers DescribeProducers with its
// partition's producer states (UnifiedLog.activeProducers): an open
// transaction's start offset, -1 once its marker closed it, the marker's
// coordinator epoch; a partition the broker does not host is
// NOT_LEADER_OR_FOLLOWER, one the topic does not have
// UNKNOWN_TOPIC_OR_PARTITION.
func TestDescribeProducers(t *testing.T) {
	b := NewBroker(BrokerConfig{ID: 0, Leaders: []int32{0, 1}, Rand: sim.NewRand(1, 1)})
	p := b.Partition(0)
	mustOK(t, p.Append(0, testBatch(0, 7, 0, 0, 1, true, 0)))  // offsets 0..1, txn open
	mustOK(t, p.Append(0, testBatch(0, 9, 2, 0, 0, false, 0))) // offset 2, idempotent
	ask := func(part int32) *model.DescribeProducersResponse {
		outs := b.Step(5, model.Peer{Node: 3, Handle: 1}, &model.DescribeProducersRequest{CorrelationID: 4, Partition: part})
		for _, o := range outs {
			if o.Kind == model.OutReply {
				return o.Msg.(*model.DescribeProducersResponse)
			}
		}
		t.Fatalf("no answer for p%d", part)
		return nil
	}
	r := ask(0)
	want := []model.ProducerState{{PID: 7, Epoch: 0, LastSequence: 1, CoordinatorEpoch: -1, TxnStartOffset: 0}, {PID: 9, Epoch: 2, LastSequence: 0, CoordinatorEpoch: -1, TxnStartOffset: -1}}
	if r.Err != model.ErrNone || r.CorrelationID != 4 || len(r.Producers) != 2 || r.Producers[0] != want[0] || r.Producers[1] != want[1] {
		t.Fatalf("got %v %+v, want %+v", r.Err, r.Producers, want)
	}
	mustOK(t, p.AppendMarker(6, 7, 0, 3, model.MarkerAbort))
	if r := ask(0); r.Producers[0].TxnStartOffset != -1 || r.Producers[0].CoordinatorEpoch != 3 {
		t.Fatalf("after the marker: %+v", r.Producers[0])
	}
	if r := ask(1); r.Err != model.ErrNotLeaderOrFollower {
		t.Fatalf("p1 (led by b2): %v", r.Err)
	}
	if r := ask(2); r.Err != model.ErrUnknownTopicOrPartition {
		t.Fatalf("p2 (no such partition): %v", r.Err)
	}
}
