package controller

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// ctlHarness drives a Controller directly: heartbeats and wake-ups by
// hand.
type ctlHarness struct {
	t     *testing.T
	c     *Controller
	wakes map[uint64]sim.Time
	meta  []*model.MetadataUpdate
}

func newCtl(t *testing.T, cfg ControllerConfig, brokers int, parts ...model.PartitionState) *ctlHarness {
	h := &ctlHarness{t: t, c: NewController(cfg, brokers, parts), wakes: map[uint64]sim.Time{}}
	h.outs(h.c.Start(0))
	return h
}

func (h *ctlHarness) outs(outs []model.Out) []model.Out {
	for _, o := range outs {
		switch o.Kind {
		case model.OutWake:
			h.wakes[o.Timer] = o.At
		case model.OutSend:
			if m := o.Msg.(*model.MetadataUpdate); len(h.meta) == 0 || h.meta[len(h.meta)-1] != m {
				h.meta = append(h.meta, m)
			}
		}
	}
	return outs
}

// advance fires every wake-up due by t, in time order.
func (h *ctlHarness) advance(t sim.Time) {
	for {
		var tok uint64
		at, ok := sim.Time(0), false
		for k, v := range h.wakes {
			if v <= t && (!ok || v < at || v == at && k < tok) {
				tok, at, ok = k, v, true
			}
		}
		if !ok {
			return
		}
		delete(h.wakes, tok)
		h.outs(h.c.Wake(at, tok))
	}
}

// reply returns the OutReply in outs.
func reply(t *testing.T, outs []model.Out) model.Out {
	t.Helper()
	for _, o := range outs {
		if o.Kind == model.OutReply {
			return o
		}
	}
	t.Fatalf("no reply in %+v", outs)
	return model.Out{}
}

func (h *ctlHarness) beat(now sim.Time, b ...int32) {
	for _, id := range b {
		h.outs(h.c.Step(now, model.Peer{Node: id}, &model.BrokerHeartbeatRequest{BrokerID: id}))
	}
}

func (h *ctlHarness) part(id int32) model.PartitionState {
	st, _ := h.c.Partition(id)
	return st
}

func TestControllerFencesAfterSessionTimeout(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 3, model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{2, 1, 0}, Leader: 0})
	h.beat(ms(2000), 1, 2)
	h.advance(ms(9000))
	if h.c.Fenced(0) {
		t.Fatal("fenced at exactly last contact + 9000 (the session is still valid)")
	}
	h.advance(ms(9001))
	if !h.c.Fenced(0) || h.c.Fenced(1) {
		t.Fatal("broker 0 not fenced after 9000 ms without heartbeat")
	}
	// PartitionChangeBuilder#electAnyLeader: first replica in assignment
	// order in the target ISR, not ISR order; leader epoch and partition
	// epoch bump (PartitionRegistration#merge).
	st := h.part(0)
	if st.Leader != 1 || st.LeaderEpoch != 1 || st.PartitionEpoch != 1 || !slices.Equal(st.ISR, []int32{2, 1}) {
		t.Fatalf("after fencing: %+v", st)
	}
	last := h.meta[len(h.meta)-1]
	if len(last.Partitions) != 1 || !slices.Equal(last.Fenced, []int32{0}) {
		t.Fatalf("publication %+v", last)
	}
	// A follower fenced: ISR-only change, same leader epoch.
	h.beat(ms(9500), 1)
	h.advance(ms(11002))
	st = h.part(0)
	if st.Leader != 1 || st.LeaderEpoch != 1 || st.PartitionEpoch != 2 || !slices.Equal(st.ISR, []int32{1}) {
		t.Fatalf("after fencing 2: %+v", st)
	}
	// PartitionChangeBuilder#build: the last ISR member is kept; the
	// partition goes offline.
	h.advance(ms(30000))
	st = h.part(0)
	if st.Leader != -1 || st.LeaderEpoch != 2 || !slices.Equal(st.ISR, []int32{1}) {
		t.Fatalf("after fencing the last ISR member: %+v", st)
	}
	// Broker 2 returns: not in the ISR, unclean off: still offline.
	h.beat(ms(31000), 2)
	if st = h.part(0); st.Leader != -1 {
		t.Fatalf("out-of-sync replica elected with unclean off: %+v", st)
	}
	// Broker 1 returns: re-elected (RCM#handleBrokerUnfenced).
	h.beat(ms(32000), 1)
	if st = h.part(0); st.Leader != 1 || st.LeaderEpoch != 3 {
		t.Fatalf("last ISR member back: %+v", st)
	}
}

// TestControllerUncleanElectionByVersion (KAFKA-12670): unclean election
// elects an out-of-sync live replica with isr = [it], RECOVERING, from 3.9;
// KRaft before 3.9 ignores the setting.
func TestControllerUncleanElectionByVersion(t *testing.T) {
	for _, tc := range []struct {
		cfg  ControllerConfig
		want int32
	}{
		{ControllerConfig{UncleanLeaderElection: true}, 1},
		{ControllerConfig{UncleanLeaderElection: true, Version: 309}, 1},
		{ControllerConfig{UncleanLeaderElection: true, Version: 308}, -1},
		{ControllerConfig{}, -1},
	} {
		h := newCtl(t, tc.cfg, 3, model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0}, Leader: 0})
		for at := int64(2000); at <= 10000; at += 2000 {
			h.beat(ms(at), 1, 2)
		}
		h.advance(ms(10000))
		st := h.part(0)
		if st.Leader != tc.want {
			t.Errorf("%+v: leader %d, want %d", tc.cfg, st.Leader, tc.want)
			continue
		}
		if tc.want >= 0 && (!st.Recovering || !slices.Equal(st.ISR, []int32{1}) || st.LeaderEpoch != 1) {
			t.Errorf("%+v: unclean result %+v", tc.cfg, st)
		}
	}
}

// TestControllerUncleanRecheck: with unclean election on, a leaderless
// partition whose only live replica comes back unfenced is taken by it at
// once; the periodic check covers partitions left leaderless otherwise.
func TestControllerUncleanRecheck(t *testing.T) {
	h := newCtl(t, ControllerConfig{UncleanLeaderElection: true}, 2, model.PartitionState{Partition: 0, Replicas: []int32{0, 1}, ISR: []int32{0}, Leader: 0})
	h.advance(ms(9001)) // both fenced: no leader
	if st := h.part(0); st.Leader != -1 {
		t.Fatalf("%+v", st)
	}
	h.beat(ms(10000), 1)
	if st := h.part(0); st.Leader != 1 || !st.Recovering {
		t.Fatalf("unfenced out-of-sync replica with unclean on: %+v", st)
	}
	// The first AlterPartition from the leader clears RECOVERING.
	st := h.part(0)
	outs := h.outs(h.c.Step(ms(10001), model.Peer{Node: 1}, &model.AlterPartitionRequest{BrokerID: 1, Partition: 0, LeaderEpoch: st.LeaderEpoch, PartitionEpoch: st.PartitionEpoch, NewISR: []int32{1}}))
	if r := reply(t, outs).Msg.(*model.AlterPartitionResponse); r.Err != model.ErrNone || r.State.Recovering {
		t.Fatalf("AlterPartition: %+v", r)
	}
}

// TestControllerAlterPartition is
// ReplicationControlManager#validateAlterPartitionData's checks in order.
func TestControllerAlterPartition(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 3, model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}, Leader: 0, LeaderEpoch: 4, PartitionEpoch: 7})
	alter := func(r model.AlterPartitionRequest) *model.AlterPartitionResponse {
		o := reply(t, h.outs(h.c.Step(ms(1), model.Peer{Node: r.BrokerID}, &r)))
		if o.Peer.Node != r.BrokerID {
			t.Fatalf("reply to %d", o.Peer.Node)
		}
		return o.Msg.(*model.AlterPartitionResponse)
	}
	for _, tc := range []struct {
		req  model.AlterPartitionRequest
		want model.ErrCode
	}{
		{model.AlterPartitionRequest{BrokerID: 0, Partition: 9, LeaderEpoch: 4, PartitionEpoch: 7, NewISR: []int32{0}}, model.ErrUnknownTopicOrPartition},
		{model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 5, PartitionEpoch: 7, NewISR: []int32{0}}, model.ErrNotController},
		{model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 3, PartitionEpoch: 7, NewISR: []int32{0}}, model.ErrFencedLeaderEpoch},
		{model.AlterPartitionRequest{BrokerID: 1, Partition: 0, LeaderEpoch: 4, PartitionEpoch: 7, NewISR: []int32{1}}, model.ErrInvalidRequest},
		{model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 4, PartitionEpoch: 6, NewISR: []int32{0}}, model.ErrInvalidUpdateVersion},
		{model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 4, PartitionEpoch: 7, NewISR: []int32{1}}, model.ErrInvalidRequest},
		{model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 4, PartitionEpoch: 7, NewISR: []int32{0, 5}}, model.ErrInvalidRequest},
	} {
		if r := alter(tc.req); r.Err != tc.want {
			t.Errorf("%+v: %v, want %v", tc.req, r.Err, tc.want)
		}
	}
	r := alter(model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 4, PartitionEpoch: 7, NewISR: []int32{0, 1}})
	if r.Err != model.ErrNone || r.State.PartitionEpoch != 8 || r.State.LeaderEpoch != 4 || !slices.Equal(r.State.ISR, []int32{0, 1}) {
		t.Fatalf("shrink: %+v", r)
	}
	if m := h.meta[len(h.meta)-1]; len(m.Partitions) != 1 || m.Partitions[0].PartitionEpoch != 8 {
		t.Fatalf("not published: %+v", m)
	}
	// A fenced replica is ineligible.
	h.beat(ms(5000), 0, 1)
	h.advance(ms(9001))
	if !h.c.Fenced(2) {
		t.Fatal("2 not fenced")
	}
	if r := alter(model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 4, PartitionEpoch: 8, NewISR: []int32{0, 1, 2}}); r.Err != model.ErrIneligibleReplica {
		t.Fatalf("expand with a fenced replica: %v", r.Err)
	}
}

// TestControllerELR: with eligible leader replicas (KIP-966) and
// min.insync.replicas 2, the leader's shrink of the ISR to itself puts the
// replica it drops in the ELR; when the leader is fenced, that replica is
// elected cleanly (isr = [it], not RECOVERING) and the old leader joins
// the ELR. Without ELR the partition stays leaderless. A broker that comes
// back from an unclean shutdown leaves the ELR.
func TestControllerELR(t *testing.T) {
	for _, elr := range []bool{false, true} {
		h := newCtl(t, ControllerConfig{ELR: elr, MinISR: 2}, 3, model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1}, Leader: 0})
		o := reply(t, h.outs(h.c.Step(ms(1), model.Peer{Node: 0}, &model.AlterPartitionRequest{BrokerID: 0, Partition: 0, NewISR: []int32{0}})))
		if r := o.Msg.(*model.AlterPartitionResponse); r.Err != model.ErrNone {
			t.Fatalf("elr %v: shrink: %v", elr, r.Err)
		}
		st := h.part(0)
		if got, want := st.ELR, []int32(nil); elr {
			want = []int32{1}
			if !slices.Equal(got, want) {
				t.Fatalf("elr %v: ELR after the shrink %v, want %v", elr, got, want)
			}
		} else if got != nil {
			t.Fatalf("elr %v: ELR %v without ELR", elr, got)
		}
		// b0 stops heartbeating; b1 and b2 go on.
		for at := int64(2000); at <= 10000; at += 2000 {
			h.beat(ms(at), 1, 2)
		}
		h.advance(ms(10000))
		st = h.part(0)
		if !elr {
			if st.Leader != -1 {
				t.Errorf("without ELR: leader %d, want none", st.Leader)
			}
			continue
		}
		if st.Leader != 1 || st.Recovering || !slices.Equal(st.ISR, []int32{1}) || !slices.Equal(st.ELR, []int32{0}) {
			t.Fatalf("ELR election: %+v, want leader 1, isr [1], elr [0], not recovering", st)
		}
		// b0 comes back from an unclean shutdown: it leaves the ELR.
		h.outs(h.c.Step(ms(11000), model.Peer{Node: 0}, &model.BrokerHeartbeatRequest{BrokerID: 0, UncleanShutdown: true}))
		if st = h.part(0); len(st.ELR) != 0 {
			t.Errorf("after b0's unclean shutdown: ELR %v, want empty", st.ELR)
		}
	}
}
