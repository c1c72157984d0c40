package controller

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// TestControllerShiftTimes: after ShiftTimes(d), with its timers moved d
// too (as the world moves them), the controller fences each silent
// broker broker.session.timeout.ms after its own last heartbeat moved d
// later: brokers 0 and 1 (last heard at 2000 ms) at 11001 ms + d, broker
// 2 (4000 ms) only at 13001 ms + d. Quiet holds while every broker is
// unfenced and every partition led with a full ISR, and not after a
// fencing.
func TestControllerShiftTimes(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 3, model.PartitionState{Partition: 0, Replicas: []int32{0, 1, 2}, ISR: []int32{0, 1, 2}, Leader: 0})
	h.beat(ms(2000), 0, 1)
	h.beat(ms(4000), 2)
	if !h.c.Quiet() {
		t.Fatal("not quiet with every broker alive and a full ISR")
	}
	const d = time.Hour
	h.c.ShiftTimes(d)
	for tok, at := range h.wakes {
		h.wakes[tok] = at.Add(d)
	}
	h.advance(ms(11000).Add(d))
	if h.c.Fenced(0) || h.c.Fenced(1) || h.c.Fenced(2) {
		t.Fatal("a broker fenced at its shifted last contact + 9000 ms")
	}
	h.advance(ms(11001).Add(d))
	if !h.c.Fenced(0) || !h.c.Fenced(1) || h.c.Fenced(2) {
		t.Fatalf("at 11001 ms + d fenced %v %v %v, want brokers 0 and 1 only", h.c.Fenced(0), h.c.Fenced(1), h.c.Fenced(2))
	}
	if h.c.Quiet() {
		t.Fatal("quiet with a broker fenced")
	}
	h.advance(ms(13001).Add(d))
	if !h.c.Fenced(2) {
		t.Fatal("broker 2 not fenced 9000 ms after its shifted last contact")
	}
}

func TestControllerPartitionsOffset(t *testing.T) {
	h := newCtl(t, ControllerConfig{}, 2, model.PartitionState{Partition: 1, Replicas: []int32{1, 0}, ISR: []int32{1, 0}, Leader: 1},
		model.PartitionState{Partition: 0, Replicas: []int32{0, 1}, ISR: []int32{0, 1}, Leader: 0})
	ps := h.c.Partitions()
	if len(ps) != 2 || ps[0].Partition != 0 || ps[1].Partition != 1 {
		t.Fatalf("Partitions = %+v, want partitions 0 and 1 in order", ps)
	}
	if h.c.Offset() != int64(len(h.meta)) || h.c.Offset() == 0 {
		t.Fatalf("Offset = %d after %d publications", h.c.Offset(), len(h.meta))
	}
}
