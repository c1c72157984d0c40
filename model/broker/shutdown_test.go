package broker

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestControlledShutdown: a leader asked to stop has the controller move
// its leadership and take it out of the ISR; meanwhile it answers
// produces NOT_LEADER_OR_FOLLOWER, the new leader's acks=all completes
// without it, and it may stop only once the other brokers have
// heartbeated the new metadata offset (their heartbeats at 2000 ms), not
// at its own first heartbeat.
func TestControlledShutdown(t *testing.T) {
	w := newBWorld(t, 3, LeaderConfig{})
	w.runUntil(ms(100))
	w.outs(0, w.brokers[0].BeginShutdown(w.now, 0))
	if !w.brokers[0].ShuttingDown() {
		t.Fatal("broker 0 is not shutting down")
	}
	w.runUntil(ms(200))
	st, _ := w.ctl.Partition(0)
	if st.Leader == 0 || slices.Contains(st.ISR, 0) || st.LeaderEpoch != 1 {
		t.Fatalf("after the shutdown request: %+v, want a new leader at epoch 1 and broker 0 out of the ISR", st)
	}
	if w.stops[0] >= 0 {
		t.Fatalf("broker 0 stopped at %v, before the others applied the change", w.stops[0])
	}
	w.produce(0, 1, 0)
	w.produce(st.Leader, -1, 0)
	w.runUntil(ms(1500))
	if r := w.reply(0); r.Partitions[0].Err != model.ErrNotLeaderOrFollower {
		t.Fatalf("the stopping broker answered %v, want NOT_LEADER_OR_FOLLOWER", r.Partitions[0].Err)
	}
	if r := w.reply(1); r.Partitions[0].Err != model.ErrNone {
		t.Fatalf("the new leader answered %v, want NONE", r.Partitions[0].Err)
	}
	w.runUntil(ms(6000))
	if w.stops[0] < ms(2000) || w.stops[0] > ms(4100) {
		t.Fatalf("broker 0 stopped at %v, want after the others' heartbeats at 2000 ms and by the next round", w.stops[0])
	}
	if !w.ctl.Fenced(0) || w.stops[1] >= 0 || w.stops[2] >= 0 {
		t.Fatalf("fenced(0)=%v stops=%v, want broker 0 fenced and only it stopped", w.ctl.Fenced(0), w.stops)
	}
}

// TestControlledShutdownFollower: a broker that leads nothing may stop at
// its first heartbeat's answer.
func TestControlledShutdownFollower(t *testing.T) {
	w := newBWorld(t, 3, LeaderConfig{})
	w.runUntil(ms(100))
	w.outs(2, w.brokers[2].BeginShutdown(w.now, 0))
	w.runUntil(ms(110))
	if w.stops[2] != ms(102) {
		t.Fatalf("broker 2 stopped at %v, want 102ms (one round trip)", w.stops[2])
	}
	if st, _ := w.ctl.Partition(0); st.Leader != 0 || slices.Contains(st.ISR, 2) {
		t.Fatalf("partition %+v, want leader 0 and broker 2 out of the ISR", st)
	}
}
