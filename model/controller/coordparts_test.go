package controller

import (
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// coordLeaders returns the internal partitions' leaders in the latest
// publication.
func (h *ctlHarness) coordLeaders() []int32 { return h.meta[len(h.meta)-1].CoordLeaders }

// TestControllerCoordPartitions: the coordinators' internal partitions
// start on broker 0 and every publication carries their leaders; a fence
// or a controlled shutdown of their leader moves them to the next active
// broker after it, a preferred election (every partition, or the one
// named) moves them back to broker 0 once it is active again, with a
// note, and a named one led by broker 0 says it needs no election.
// Without ControllerConfig.Coordinators publications carry none.
func TestControllerCoordPartitions(t *testing.T) {
	part := model.PartitionState{Partition: 0, Replicas: []int32{1, 2, 0}, ISR: []int32{1, 2, 0}, Leader: 1}
	if off := newCtl(t, ControllerConfig{}, 3, part); off.coordLeaders() != nil {
		t.Fatalf("without Coordinators: %v, want none", off.coordLeaders())
	}
	h := newCtl(t, ControllerConfig{Coordinators: true}, 3, part)
	if got := h.coordLeaders(); !slices.Equal(got, []int32{0, 0}) {
		t.Fatalf("at the start %v, want [0 0]", got)
	}
	// Broker 0 stops heartbeating: fenced, both move to broker 1.
	h.beat(ms(2000), 1, 2)
	h.advance(ms(9001))
	if got := h.coordLeaders(); !slices.Equal(got, []int32{1, 1}) || h.c.CoordLeader(model.TxnStatePartition) != 1 {
		t.Fatalf("after broker 0's fence %v, want [1 1]", got)
	}
	// A preferred election while broker 0 is fenced changes nothing.
	outs := h.outs(h.c.ElectPreferred(ms(9100), []int32{model.TxnStatePartition}))
	if len(outs) != 1 || outs[0].Note != "__transaction_state preferred leader b1 not available: not in the ISR or not active (PREFERRED_LEADER_NOT_AVAILABLE)" {
		t.Fatalf("election with broker 0 fenced: %+v", outs)
	}
	// Broker 0 back; naming __transaction_state moves it alone.
	h.beat(ms(10000), 0, 1, 2)
	n := len(h.meta)
	outs = h.outs(h.c.ElectPreferred(ms(10100), []int32{model.TxnStatePartition}))
	if got := h.coordLeaders(); len(h.meta) != n+1 || !slices.Equal(got, []int32{0, 1}) {
		t.Fatalf("after the named election %v (%d publications, want one more), want [0 1]", got, len(h.meta)-n)
	}
	if len(outs) == 0 || outs[0].Note != "__transaction_state leader b1 epoch 2 (preferred)" {
		t.Fatalf("named election: %+v", outs)
	}
	outs = h.c.ElectPreferred(ms(10200), []int32{model.TxnStatePartition})
	if len(outs) != 1 || outs[0].Note != "__transaction_state preferred leader election not needed: b1 leads (ELECTION_NOT_NEEDED)" {
		t.Fatalf("named election of a balanced one: %+v", outs)
	}
	// Every partition: __consumer_offsets comes back too, and p0, led by
	// its preferred replica, is left alone.
	h.outs(h.c.ElectPreferred(ms(10300), nil))
	if got := h.coordLeaders(); !slices.Equal(got, []int32{0, 0}) || h.part(0).Leader != 1 {
		t.Fatalf("after the election of every partition %v p0 %+v, want [0 0] and p0 on 1", got, h.part(0))
	}
	// Broker 0 in controlled shutdown: they move to broker 1 again.
	h.outs(h.c.Step(ms(11000), model.Peer{Node: 0}, &model.BrokerHeartbeatRequest{BrokerID: 0, MetadataOffset: h.c.Offset(), WantShutDown: true}))
	if got := h.coordLeaders(); !slices.Equal(got, []int32{1, 1}) {
		t.Fatalf("after broker 0's controlled shutdown %v, want [1 1]", got)
	}
	// With broker 1 fenced too, the next active after 1 is 2.
	h.beat(ms(18000), 2) // broker 1's last heartbeat was at 10 s
	h.advance(ms(19500))
	if got := h.coordLeaders(); !slices.Equal(got, []int32{2, 2}) {
		t.Fatalf("after broker 1's fence %v, want [2 2]", got)
	}
}

// TestControllerCoordLeaderless: with no active broker left the internal
// partitions have no leader, and the first broker unfenced leads them.
func TestControllerCoordLeaderless(t *testing.T) {
	h := newCtl(t, ControllerConfig{Coordinators: true}, 2, model.PartitionState{Partition: 0, Replicas: []int32{0, 1}, ISR: []int32{0, 1}, Leader: 0})
	h.advance(ms(9001))
	if got := h.coordLeaders(); !slices.Equal(got, []int32{-1, -1}) {
		t.Fatalf("every broker fenced: %v, want [-1 -1]", got)
	}
	h.beat(ms(12000), 1)
	if got := h.coordLeaders(); !slices.Equal(got, []int32{1, 1}) {
		t.Fatalf("broker 1 unfenced: %v, want [1 1]", got)
	}
}

// TestControllerCoordAutoRebalance: with auto.leader.rebalance.enable an
// internal partition led away from broker 0 arms the periodic check by
// itself (every data partition balanced), and the check moves it back
// once broker 0 is active.
func TestControllerCoordAutoRebalance(t *testing.T) {
	// p0's preferred replica is broker 1, which leads it throughout.
	h := newCtl(t, ControllerConfig{Coordinators: true, AutoLeaderRebalance: true, LeaderImbalanceCheckInterval: 10 * time.Second}, 2,
		model.PartitionState{Partition: 0, Replicas: []int32{1, 0}, ISR: []int32{1, 0}, Leader: 1})
	h.beat(ms(5000), 1)
	h.advance(ms(9500)) // broker 0 fenced at 9.000000001 s: the check is armed for 19 s
	if got := h.coordLeaders(); !slices.Equal(got, []int32{1, 1}) {
		t.Fatalf("after broker 0's fence %v, want [1 1]", got)
	}
	h.beat(ms(12000), 0)
	h.beat(ms(14000), 0, 1)
	h.beat(ms(18000), 0, 1)
	h.advance(ms(18900))
	if got := h.coordLeaders(); !slices.Equal(got, []int32{1, 1}) {
		t.Fatalf("%v: moved before the check interval ran out", got)
	}
	h.advance(ms(19500))
	if got := h.coordLeaders(); !slices.Equal(got, []int32{0, 0}) || h.part(0).Leader != 1 {
		t.Fatalf("after the check %v p0 %+v, want [0 0] and p0 kept on 1", got, h.part(0))
	}
}
