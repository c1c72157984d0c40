package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/world/internal/hashwalk"
	"github.com/idemsim/idemsim/sim"
)

// A Probe watches a run's choice points: the places where an explorer
// (internal/explore, docs/explore.md) may inject one fault. It is set in
// [Spec.Probe] and called synchronously from the run; it must not keep a
// *ChoicePoint past the call.
//
// There are two kinds of choice point, in run order:
//
//   - [ChoiceTime]: before the first event at each new simulated time of
//     the fault phase (t > 0 and before the plan's end). A plan action at
//     that time ("t crash b1", "t pause p1 10s") runs before that event,
//     so a fault injected here replays from a plan file. The world is
//     between events, and [ChoicePoint.StateHash] fingerprints it.
//   - [ChoiceSend]: a producer instance or a server puts a message on the
//     network. "0s drop|delay|duplicate request|response N CLIENT>SERVER"
//     and "0s reject N CLIENT>SERVER ..." name it by its request number on
//     its link.
//
// A run whose plan differs from another's only after a choice point
// reaches that choice point in the same state, with the same index.
type Probe interface {
	Choice(cp *ChoicePoint)
}

// ChoiceKind is the kind of a choice point.
type ChoiceKind uint8

const (
	// ChoiceTime is the start of a new simulated time.
	ChoiceTime ChoiceKind = iota
	// ChoiceSend is a message put on the network.
	ChoiceSend
)

// ChoicePoint describes one choice point to a [Probe].
type ChoicePoint struct {
	Kind ChoiceKind
	// Index counts the run's choice points from 0.
	Index int
	// At is the simulated time.
	At sim.Time
	// Events is the number of events the run has handled before this
	// point (at a ChoiceTime point, before the event about to run).
	Events int64

	// ChoiceSend: the message's direction, its request's number on its
	// link and the link's ends (Client, a producer instance; Server).
	Dir            simnet.Direction
	ReqNo          int64
	Client, Server string
	// Produce: a produce request to a broker, which a reject can hit.
	Produce bool
	// Live: the network would carry the message (its connection is up
	// and its link not cut), so dropping, delaying or duplicating it
	// changes the run.
	Live bool

	// ChoiceTime: the nodes that run now (started producer instances,
	// brokers, coordinators; none paused or crashed), which a crash or a
	// pause can hit, in node-table order; UpRole holds each one's role.
	// A consumer is not among them: a fault plan cannot name it.
	Up     []string
	UpRole []Role

	w   *World
	ev  Event
	seq uint64 // ev's scheduling sequence number
}

// StateHash returns the fingerprint of the world's state at a ChoiceTime
// point ([StateHash]); it is only valid during the Probe's call.
func (cp *ChoicePoint) StateHash() StateHash {
	if cp.Kind != ChoiceTime {
		panic("scenarios: StateHash at a send: the world is between two effects of one event")
	}
	return cp.w.stateHash(cp.At, cp.ev)
}

// CheckStateHash hashes the state again from scratch and reports a
// difference from [ChoicePoint.StateHash], which walks only the parts of
// the state marked as changed, or a pointer two parts of the hash reach
// (a test's: call it after StateHash, at a ChoiceTime point).
func (cp *ChoicePoint) CheckStateHash(kept StateHash) error {
	return cp.w.checkStateHash(cp.At, cp.ev, kept)
}

// Role is what a node is, for the faults that only some roles take (a
// stall hits a server, a clean restart differs from an unclean one for
// a broker).
type Role uint8

// The roles.
const (
	RoleProducer    Role = iota // a producer instance
	RoleBroker                  // a broker
	RoleCoordinator             // the transaction coordinator, or a registered server kind's node (the group coordinator)
	RoleController              // the KRaft controller of a replicated run
)

// roleOf returns kind's role.
func roleOf(k nodeKind) Role {
	switch k {
	case kindBroker:
		return RoleBroker
	case kindCoordinator:
		return RoleCoordinator
	case kindController:
		return RoleController
	case kindRegistered:
		return RoleCoordinator
	}
	return RoleProducer
}

// probeState is the world's side of a Probe.
type probeState struct {
	p      Probe
	lastAt sim.Time
	n      int
	cp     ChoicePoint
	cache  *hashwalk.Cache
	// parts are the state hash's parts (statehash.go), made at the first
	// hash.
	parts *hashwalk.Parts
}

// faultPhase reports whether a fault injected at now could still act:
// before the plan's end.
func (w *World) faultPhase(now sim.Time) bool { return !w.ended && now < w.planEnd }

// probeTime calls the probe at the first event of a new time.
func (w *World) probeTime(now sim.Time, seq uint64, ev Event) {
	ps := &w.probe
	ps.lastAt = now
	if !w.faultPhase(now) {
		return
	}
	cp := &ps.cp
	*cp = ChoicePoint{Kind: ChoiceTime, Index: ps.n, At: now, Events: w.loop.Events() - 1, Up: cp.Up[:0], UpRole: cp.UpRole[:0], w: w, ev: ev, seq: seq}
	ps.n++
	for i := range w.nodes {
		nd := &w.nodes[i]
		if nd.fault.crashed || nd.fault.paused || nd.kind == kindProducer && (nd.inst == nil || !nd.inst.started) {
			continue
		}
		if _, client := nd.srv.(model.Starter); nd.kind == kindRegistered && client {
			continue // the consumer: a fault plan cannot name it (faultNodes)
		}
		cp.Up = append(cp.Up, nd.name)
		cp.UpRole = append(cp.UpRole, roleOf(nd.kind))
	}
	ps.p.Choice(cp)
}

// probeSend calls the probe for a message about to go on the network.
func (w *World) probeSend(now sim.Time, m model.Message, c simnet.Conn, dir simnet.Direction, reqNo int64) {
	ps := &w.probe
	if !w.faultPhase(now) {
		return
	}
	from, to := c.Client, c.Server
	if dir == simnet.Response {
		from, to = to, from
	}
	live := !w.nw.Blocked(from, to) && (w.nw.Mode() != simnet.TCP || w.nw.Alive(c))
	_, produce := m.(*model.ProduceRequest)
	cp := &ps.cp
	*cp = ChoicePoint{Kind: ChoiceSend, Index: ps.n, At: now, Events: w.loop.Events(), Dir: dir, ReqNo: reqNo,
		Client: w.names[c.Client], Server: w.names[c.Server], Produce: produce && dir == simnet.Request && w.nodes[c.Server].kind == kindBroker,
		Live: live, Up: cp.Up[:0], UpRole: cp.UpRole[:0], w: w}
	ps.n++
	ps.p.Choice(cp)
}
