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
// hint, asking for metadata first. The Java client asks for Metadata
// whatever the hint; franz-go (kgo v1.22.3, sink.go handleRetryBatches)
// asks only when there is no usable hint, and retries a hint at the
// cached epoch on the same broker after its backoff.
func TestProducerLeaderHint(t *testing.T) {
	for _, c := range []struct {
		name            string
		policy          ClientPolicy
		version         int
		leader, epoch   int32
		v10             bool
		firstDest, want int32 // the first request's kind after the answer: -1 Metadata, -2 none, else Produce to that broker
		meta            bool  // a Metadata request among the answer's effects
	}{
		{"4.1, newer epoch", PolicyJava, 0, 2, 1, true, 2, 2, true},
		{"3.7, newer epoch", PolicyJava, 307, 2, 1, true, 2, 2, true},
		{"4.1, same epoch", PolicyJava, 0, 2, 0, true, -1, 0, true},
		{"4.1, no leader", PolicyJava, 0, -1, 1, true, -1, 0, true},
		{"3.6", PolicyJava, 306, 2, 1, false, -1, 0, true},
		{"franz-go, newer epoch", PolicyFranzGo, 306, 2, 1, true, 2, 2, false},
		{"franz-go, same epoch", PolicyFranzGo, 0, 2, 0, true, -2, 0, false},
		{"franz-go, no leader", PolicyFranzGo, 0, -1, 1, true, -1, 0, true},
		{"librdkafka", PolicyLibrdkafka, 0, 2, 1, false, -1, 0, true},
	} {
		cfg, _, err := DefaultProducerConfig().Resolve()
		if err != nil {
			t.Fatal(err)
		}
		cfg.EnableIdempotence = false
		cfg.RefreshMetadata, cfg.Brokers, cfg.ClientVersion, cfg.Policy = true, 3, c.version, c.policy
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
		outs = keepOuts(p.Receive(ms(20), 0, &model.ProduceResponse{CorrelationID: req.CorrelationID, Partitions: []model.PartitionResponse{{Partition: 0,
			Err: model.ErrNotLeaderOrFollower, BaseOffset: -1, HasCurrentLeader: true, CurrentLeader: c.leader, CurrentLeaderEpoch: c.epoch}}}))
		outs = append(outs, sameInstant(p, ms(20), outs)...)
		first, meta := int32(-2), false
		for _, o := range outs {
			if o.Kind != model.OutSend {
				continue
			}
			switch o.Msg.(type) {
			case *model.MetadataRequest:
				meta = true
				if first == -2 {
					first = -1
				}
			case *model.ProduceRequest:
				if first == -2 {
					first = o.Dest
				}
			}
		}
		if meta != c.meta {
			t.Fatalf("%s: Metadata requested %v, want %v: %v", c.name, meta, c.meta, outs)
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
