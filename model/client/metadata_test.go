package client

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestProducerFollowsLeader: NOT_LEADER_OR_FOLLOWER makes the producer ask
// for metadata, and its retry goes to the leader the answer names.
func TestProducerFollowsLeader(t *testing.T) {
	cfg, _, err := DefaultProducerConfig().Resolve()
	if err != nil {
		t.Fatal(err)
	}
	cfg.EnableIdempotence = false
	cfg.RefreshMetadata, cfg.Brokers = true, 3
	p := NewProducer(cfg, 0, []int32{0}, sim.NewRand(1, 1))
	p.Start(0)
	outs := p.Send(0, model.Record{ID: model.RecordID{App: 0, N: 0}, Partition: 0})
	var req *model.ProduceRequest
	find := func(outs []model.Out) {
		for _, o := range outs {
			if r, ok := o.Msg.(*model.ProduceRequest); ok && o.Kind == model.OutSend {
				req = r
			}
		}
	}
	find(outs)
	if req == nil {
		outs = p.Wake(ms(10), p.wakeToken)
		find(outs)
	}
	if req == nil {
		t.Fatal("no produce request")
	}
	outs = p.Receive(ms(20), 0, &model.ProduceResponse{CorrelationID: req.CorrelationID, Partitions: []model.PartitionResponse{{Partition: 0, Err: model.ErrNotLeaderOrFollower, BaseOffset: -1}}})
	var meta *model.MetadataRequest
	var dest int32
	for _, o := range outs {
		if m, ok := o.Msg.(*model.MetadataRequest); ok {
			meta, dest = m, o.Dest
		}
	}
	if meta == nil {
		t.Fatalf("no Metadata request after NOT_LEADER_OR_FOLLOWER: %v", outs)
	}
	p.Receive(ms(21), dest, &model.MetadataResponse{CorrelationID: meta.CorrelationID, Leaders: []int32{2}, Epochs: []int32{1}})
	if p.Leaders()[0] != 2 {
		t.Fatalf("leaders %v after the answer", p.Leaders())
	}
	outs = p.Wake(ms(500), p.wakeToken)
	req = nil
	for _, o := range outs {
		if r, ok := o.Msg.(*model.ProduceRequest); ok && o.Kind == model.OutSend {
			req, dest = r, o.Dest
		}
	}
	if req == nil || dest != 2 {
		t.Fatalf("retry went to %d (%v)", dest, outs)
	}
}
