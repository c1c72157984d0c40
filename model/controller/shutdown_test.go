package controller

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

func (h *ctlHarness) shutdownBeat(now sim.Time, b int32, offset int64) *model.BrokerHeartbeatResponse {
	h.t.Helper()
	r := reply(h.t, h.outs(h.c.Step(now, model.Peer{Node: b}, &model.BrokerHeartbeatRequest{BrokerID: b, MetadataOffset: offset, WantShutDown: true})))
	return r.Msg.(*model.BrokerHeartbeatResponse)
}

// TestControllerControlledShutdown: a leader in controlled shutdown
// leaves every ISR and its partitions elect other leaders
// (generateLeaderAndIsrUpdates); a partition whose ISR is the broker
// alone keeps it, leaderless; the broker is published as shutting down,
// is not elected or re-added, and may stop only once every active broker
// reported the change's offset; then it is fenced. A heartbeat without
// WantShutDown (a restart) makes it active again.
func TestControllerControlledShutdown(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 3,
		model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}, Leader: 0},
		model.PartitionState{Partition: 1, Replicas: []int32{0, 1}, ISR: []int32{0}, Leader: 0},
		model.PartitionState{Partition: 2, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1})
	if r := h.shutdownBeat(ms(100), 0, 1); r.ShouldShutDown {
		t.Fatal("a leader may stop at once")
	}
	if st := h.part(0); st.Leader != 1 || st.LeaderEpoch != 1 || !slices.Equal(st.ISR, []int32{1, 2}) {
		t.Fatalf("p0 %+v, want leader 1 epoch 1 isr [1 2]", st)
	}
	if st := h.part(1); st.Leader != -1 || !slices.Equal(st.ISR, []int32{0}) {
		t.Fatalf("p1 %+v, want no leader and the ISR kept", st)
	}
	last := h.meta[len(h.meta)-1]
	if !slices.Equal(last.ShuttingDown, []int32{0}) || len(last.Fenced) != 0 {
		t.Fatalf("publication %+v, want broker 0 shutting down, none fenced", last)
	}
	off := last.Offset
	// Not active: an AlterPartition adding it is refused.
	outs := h.c.Step(ms(150), model.Peer{Node: 1}, &model.AlterPartitionRequest{BrokerID: 1, Partition: 0, LeaderEpoch: 1, PartitionEpoch: h.part(0).PartitionEpoch, NewISR: []int32{1, 2, 0}})
	if r := reply(t, outs).Msg.(*model.AlterPartitionResponse); r.Err != model.ErrIneligibleReplica {
		t.Fatalf("AlterPartition adding the stopping broker: %v, want INELIGIBLE_REPLICA", r.Err)
	}
	h.outs(h.c.Step(ms(200), model.Peer{Node: 1}, &model.BrokerHeartbeatRequest{BrokerID: 1, MetadataOffset: off}))
	if r := h.shutdownBeat(ms(250), 0, off); r.ShouldShutDown {
		t.Fatal("may stop before broker 2 reported the change")
	}
	h.outs(h.c.Step(ms(300), model.Peer{Node: 2}, &model.BrokerHeartbeatRequest{BrokerID: 2, MetadataOffset: off}))
	if r := h.shutdownBeat(ms(350), 0, off); !r.ShouldShutDown || !r.Fenced || !h.c.Fenced(0) {
		t.Fatalf("answer %+v fenced=%v, want shouldShutDown and fenced", r, h.c.Fenced(0))
	}
	// Restarted: unfenced, and the leaderless p1 elects it again.
	h.beat(ms(5000), 0)
	if h.c.Fenced(0) || h.part(1).Leader != 0 {
		t.Fatalf("after the restart: fenced=%v p1 %+v", h.c.Fenced(0), h.part(1))
	}
	if last := h.meta[len(h.meta)-1]; len(last.ShuttingDown) != 0 {
		t.Fatalf("publication %+v still lists a broker shutting down", last)
	}
}
