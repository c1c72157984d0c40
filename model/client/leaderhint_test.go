package client

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestProducerLeaderHint: a 3.7+ client sends Produce v10; a
// NOT_LEADER_OR_FOLLOWER answer whose hint has a newer epoch moves the
// partition, and the retry goes to the hinted leader at once, before the
// Metadata request (KIP-951). A hint at the cached epoch, or one without
// a leader, moves nothing; a 3.6 client sends Produce v9 and ignores any
// hint, asking for metadata first.
func TestProducerLeaderHint(t *testing.T) {
	for _, c := range []struct {
		name            string
		version         int
		leader, epoch   int32
		v10             bool
		firstDest, want int32 // the first request's kind after the answer: -1 Metadata, else Produce to that broker
	}{
		{"4.1, newer epoch", 0, 2, 1, true, 2, 2},
		{"3.7, newer epoch", 307, 2, 1, true, 2, 2},
		{"4.1, same epoch", 0, 2, 0, true, -1, 0},
		{"4.1, no leader", 0, -1, 1, true, -1, 0},
		{"3.6", 306, 2, 1, false, -1, 0},
	} {
		cfg, _, err := DefaultProducerConfig().Resolve()
		if err != nil {
			t.Fatal(err)
		}
		cfg.EnableIdempotence = false
		cfg.RefreshMetadata, cfg.Brokers, cfg.ClientVersion = true, 3, c.version
		p := NewProducer(cfg, 0, []int32{0}, sim.NewRand(1, 1))
		p.Start(0)
		outs := p.Send(0, model.Record{ID: model.RecordID{App: 0, N: 0}, Partition: 0})
		if len(outs) == 0 || !hasProduce(outs) {
			outs = p.Wake(ms(10), p.wakeToken)
		}
		var req *model.ProduceRequest
		for _, o := range outs {
			if r, ok := o.Msg.(*model.ProduceRequest); ok && o.Kind == model.OutSend {
				req = r
			}
		}
		if req == nil {
			t.Fatalf("%s: no produce request", c.name)
		}
		if req.LeaderHints != c.v10 {
			t.Fatalf("%s: Produce v10 %v, want %v", c.name, req.LeaderHints, c.v10)
		}
		outs = p.Receive(ms(20), 0, &model.ProduceResponse{CorrelationID: req.CorrelationID, Partitions: []model.PartitionResponse{{Partition: 0,
			Err: model.ErrNotLeaderOrFollower, BaseOffset: -1, HasCurrentLeader: true, CurrentLeader: c.leader, CurrentLeaderEpoch: c.epoch}}})
		first := int32(-2)
		for _, o := range outs {
			if o.Kind != model.OutSend {
				continue
			}
			switch o.Msg.(type) {
			case *model.MetadataRequest:
				first = -1
			case *model.ProduceRequest:
				first = o.Dest
			}
			break
		}
		if first != c.firstDest {
			t.Fatalf("%s: first request after the answer %d (-1 Metadata, -2 none), want %d: %v", c.name, first, c.firstDest, outs)
		}
		if got := p.Leaders()[0]; got != c.want {
			t.Fatalf("%s: leader b%d after the answer, want b%d", c.name, got+1, c.want+1)
		}
	}
}

func hasProduce(outs []model.Out) bool {
	for _, o := range outs {
		if _, ok := o.Msg.(*model.ProduceRequest); ok {
			return true
		}
	}
	return false
}
