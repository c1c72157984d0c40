package controller

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// TestControllerElectPreferred: a PREFERRED election moves leadership
// back to the first replica when it is in the ISR and active, bumping
// the leader epoch; a partition already led by it is left alone; a
// preferred replica out of the ISR is not elected and nothing changes.
func TestControllerElectPreferred(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 3,
		model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}, Leader: 1, LeaderEpoch: 3},
		model.PartitionState{Partition: 1, Replicas: []int32{1, 2, 0}, ISR: []int32{1, 2, 0}, Leader: 1},
		model.PartitionState{Partition: 2, Replicas: []int32{2, 0, 1}, ISR: []int32{0, 1}, Leader: 0})
	pe := h.part(0).PartitionEpoch
	outs := h.outs(h.c.ElectPreferred(ms(100), nil))
	if st := h.part(0); st.Leader != 0 || st.LeaderEpoch != 4 || st.PartitionEpoch != pe+1 || !slices.Equal(st.ISR, []int32{0, 1, 2}) {
		t.Fatalf("p0 %+v, want leader 0 epoch 4 with the ISR kept", st)
	}
	if st := h.part(1); st.Leader != 1 || st.LeaderEpoch != 0 {
		t.Fatalf("p1 %+v changed, its preferred replica leads", st)
	}
	if st := h.part(2); st.Leader != 0 || st.LeaderEpoch != 0 {
		t.Fatalf("p2 %+v changed, its preferred replica is out of the ISR", st)
	}
	var notes []string
	for _, o := range outs {
		if o.Kind == model.OutNote {
			notes = append(notes, o.Note)
		}
	}
	if want := []string{"p0 leader b1 epoch 4 isr [b1,b2,b3]", "p2 preferred leader b3 not available: not in the ISR or not active (PREFERRED_LEADER_NOT_AVAILABLE)"}; !slices.Equal(notes, want) {
		t.Fatalf("notes %q, want %q", notes, want)
	}
	if last := h.meta[len(h.meta)-1]; len(last.Partitions) != 1 || last.Partitions[0].Partition != 0 {
		t.Fatalf("publication %+v, want p0 alone", last)
	}
	// Named: a partition led by its preferred replica says so.
	outs = h.c.ElectPreferred(ms(200), []int32{1})
	if len(outs) != 1 || outs[0].Note != "p1 preferred leader election not needed: b2 leads (ELECTION_NOT_NEEDED)" {
		t.Fatalf("outs %+v", outs)
	}
}

// TestControllerReassign: a reassignment adds the new replicas first
// (replicas = target then removing, the leader and its epoch kept), and
// completes when the leader's AlterPartition puts every target replica in
// the ISR: the removed replicas leave, the leader epoch is bumped, and a
// removed leader hands over to the first target replica in the ISR.
func TestControllerReassign(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 4,
		model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}, Leader: 0})
	h.outs(h.c.Reassign(ms(100), 0, []int32{1, 2, 3}))
	st := h.part(0)
	if !slices.Equal(st.Replicas, []int32{1, 2, 3, 0}) || st.Leader != 0 || st.LeaderEpoch != 0 || st.PartitionEpoch != 1 || !h.c.Reassigning(0) {
		t.Fatalf("after the request %+v reassigning=%v, want replicas [1 2 3 0], leader 0 at epoch 0, partition epoch 1", st, h.c.Reassigning(0))
	}
	// Not caught up: an ISR without broker 3 does not complete it.
	outs := h.c.Step(ms(200), model.Peer{Node: 0}, &model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 0, PartitionEpoch: 1, NewISR: []int32{0, 1}})
	if r := reply(t, h.outs(outs)).Msg.(*model.AlterPartitionResponse); r.Err != model.ErrNone || !h.c.Reassigning(0) {
		t.Fatalf("shrink: %+v reassigning=%v", r, h.c.Reassigning(0))
	}
	outs = h.c.Step(ms(300), model.Peer{Node: 0}, &model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 0, PartitionEpoch: 2, NewISR: []int32{0, 1, 2, 3}})
	r := reply(t, h.outs(outs)).Msg.(*model.AlterPartitionResponse)
	st = h.part(0)
	if r.Err != model.ErrNone || h.c.Reassigning(0) || !slices.Equal(st.Replicas, []int32{1, 2, 3}) || !slices.Equal(st.ISR, []int32{1, 2, 3}) || st.Leader != 1 || st.LeaderEpoch != 1 {
		t.Fatalf("completion: %+v, registration %+v, want replicas and ISR [1 2 3], leader 1 at epoch 1", r, st)
	}
	if last := h.meta[len(h.meta)-1]; last.Partitions[0].Leader != 1 {
		t.Fatalf("publication %+v, want the new leader", last)
	}
}

// TestControllerReassignKeepsLeader: a reassignment that keeps the leader
// still bumps the leader epoch at completion (a replica left); one that
// only reorders the replicas completes at once without a bump, and the
// reordered first replica is then the preferred leader.
func TestControllerReassignKeepsLeader(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 4,
		model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}, Leader: 0})
	h.outs(h.c.Reassign(ms(100), 0, []int32{0, 1, 3}))
	h.outs(h.c.Step(ms(300), model.Peer{Node: 0}, &model.AlterPartitionRequest{BrokerID: 0, Partition: 0, LeaderEpoch: 0, PartitionEpoch: 1, NewISR: []int32{0, 1, 2, 3}}))
	if st := h.part(0); !slices.Equal(st.Replicas, []int32{0, 1, 3}) || !slices.Equal(st.ISR, []int32{0, 1, 3}) || st.Leader != 0 || st.LeaderEpoch != 1 {
		t.Fatalf("%+v, want replicas [0 1 3], leader 0 at epoch 1", st)
	}
	h.outs(h.c.Reassign(ms(400), 0, []int32{3, 1, 0}))
	if st := h.part(0); !slices.Equal(st.Replicas, []int32{3, 1, 0}) || st.Leader != 0 || st.LeaderEpoch != 1 || h.c.Reassigning(0) {
		t.Fatalf("reorder: %+v, want replicas [3 1 0], leader 0 at epoch 1", st)
	}
	h.outs(h.c.ElectPreferred(ms(500), []int32{0}))
	if st := h.part(0); st.Leader != 3 || st.LeaderEpoch != 2 {
		t.Fatalf("preferred after the reorder: %+v, want leader 3 at epoch 2", st)
	}
	// Refused: an unknown broker, a broker twice, an unknown partition.
	for _, tc := range []struct {
		part   int32
		target []int32
	}{{0, []int32{0, 4}}, {0, []int32{1, 1}}, {5, []int32{0}}, {0, nil}} {
		outs := h.c.Reassign(ms(600), tc.part, tc.target)
		if len(outs) != 1 || outs[0].Kind != model.OutNote {
			t.Fatalf("reassign p%d to %v: %+v, want one note", tc.part, tc.target, outs)
		}
	}
}

// TestControllerAutoRebalance: with auto.leader.rebalance.enable the
// controller elects preferred leaders one check interval after a
// partition became imbalanced, and arms nothing while every partition is
// led by its preferred replica; without it, nothing is armed.
func TestControllerAutoRebalance(t *testing.T) {
	parts := []model.PartitionState{{Partition: 0, Replicas: []int32{0, 1}, ISR: []int32{0, 1}, Leader: 0}}
	off := newCtl(t, ControllerConfig{}, 2, parts...)
	h := newCtl(t, ControllerConfig{AutoLeaderRebalance: true, LeaderImbalanceCheckInterval: 10 * time.Second}, 2, parts...)
	if len(h.wakes) != len(off.wakes) {
		t.Fatalf("balanced: wakes %v, want only the session check's %v", h.wakes, off.wakes)
	}
	// Broker 0 fenced (no heartbeat for the session), back at 12 s.
	h.beat(ms(5000), 1)
	h.advance(ms(9500))
	if st := h.part(0); st.Leader != 1 {
		t.Fatalf("%+v, want broker 1 leading after broker 0's fencing", st)
	}
	h.beat(ms(12000), 0)
	h.outs(h.c.Step(ms(12100), model.Peer{Node: 1}, &model.AlterPartitionRequest{BrokerID: 1, Partition: 0, LeaderEpoch: 1, PartitionEpoch: h.part(0).PartitionEpoch, NewISR: []int32{1, 0}}))
	h.beat(ms(14000), 0, 1)
	h.beat(ms(18000), 0, 1)
	h.advance(ms(19000))
	if st := h.part(0); st.Leader != 1 {
		t.Fatalf("%+v: elected before the check interval ran out", st)
	}
	h.advance(ms(19500))
	if st := h.part(0); st.Leader != 0 || st.LeaderEpoch != 2 {
		t.Fatalf("%+v, want broker 0 elected back at epoch 2 (the check armed at 9.5 s)", st)
	}
}
