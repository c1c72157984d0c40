package world

import (
	"time"

	"github.com/idemsim/idemsim/faults"
)

// The faults of a group application's member (faults.SlowPoll,
// faults.MuteHeartbeat): faultNodes lists the instances as Members, and
// the actuator hands each fault to the instance's consumer.

// member returns the instance node names and whether its consumer can
// take a member fault now: not crashed, not paused, started.
func (t actuator) member(node, verb string) (*instance, bool) {
	w, n := t.w, t.w.nodeOf(node)
	in := w.nodes[n].inst
	if st := &w.nodes[n].fault; st.crashed || st.paused || in == nil || in.cons == nil || !in.started {
		w.note(t.now, n, "is crashed, paused or not started: "+verb+" ignored")
		return nil, false
	}
	return in, true
}

// SlowPoll: the consumer's next poll comes d from now (or at the plan's
// end); the application sends records only from its polls, so its sends
// and the commits they lead to wait too (model/consumer Process).
func (t actuator) SlowPoll(node string, d time.Duration) {
	if in, ok := t.member(node, "slow-poll"); ok {
		t.w.consOuts(t.now, in, in.cons.Process(t.now, min(d, time.Duration(t.w.planEnd-t.now))))
	}
}

// MuteHeartbeat: the consumer's heartbeat thread sends nothing until
// now+d (or the plan's end).
func (t actuator) MuteHeartbeat(node string, d time.Duration) {
	if in, ok := t.member(node, "mute-heartbeat"); ok {
		in.cons.MuteHeartbeat(min(t.now.Add(d), t.w.planEnd))
	}
}

var _ faults.MemberTarget = actuator{}
