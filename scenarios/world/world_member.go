package world

import "time"

// SlowPoll and MuteHeartbeat carry out a group member's faults (faultNodes
// lists the instances as Members; model/consumer); the plan's end cuts them
// short, and a crashed or unstarted member's consumer ignores them.
func (t actuator) SlowPoll(node string, d time.Duration) {
	if in := t.w.nodes[t.w.nodeOf(node)].inst; in != nil && in.cons != nil {
		t.w.consOuts(t.now, in, in.cons.Process(t.now, min(d, time.Duration(t.w.planEnd-t.now))))
	}
}
func (t actuator) MuteHeartbeat(node string, d time.Duration) {
	if in := t.w.nodes[t.w.nodeOf(node)].inst; in != nil && in.cons != nil {
		in.cons.MuteHeartbeat(min(t.now.Add(d), t.w.planEnd))
	}
}
