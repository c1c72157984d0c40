package world

import (
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// A message's fate is decided here, in one pipeline of stages, and
// nowhere else: only this file calls the network's Send, SendLost and
// Arrive. The World's send and deliver (world_net.go) carry the decision
// out: they emit the observations, keep the wire, and hand what arrived
// to its node.
//
// At send, in order:
//
//  1. the probe, an observer: an explorer's choice point (probe.go); it
//     changes nothing;
//  2. the plan's drop rules: a planned loss (faults.Drop);
//  3. the network: the connection's state, partitions, latency, random
//     loss, a datagram's duplicate (simnet.Network.Send);
//  4. the router, chosen once when the World is built: in a run, the
//     plan's late rules (world_late.go), then its delay rules and tcp's
//     order behind a delayed message, then its duplicate rules
//     (world_delay.go), then the event loop; in a scripted world, the
//     script, which holds every message until it acts (script.go).
//
// At arrival, in order: a request to a crashed server is lost; the
// network's arrival check (a cut link, a broken connection); a late
// request is read whatever happened to its connection; a response to an
// earlier incarnation of its client is lost.

// router is the send pipeline's last stage: it places a message that
// left its sender (the network's fate Delivered) where it will arrive.
// It takes and returns values, not pointers, so that nothing a message
// carries escapes to the heap through the interface call.
type router interface {
	// route places message id, whose network send is s and whose wire
	// is wp, from node from to node to, and returns the wire as the
	// plan's rules marked it (its deliveries counted, a late request).
	route(w *World, now sim.Time, s simnet.Sent, wp wire, id uint64, from, to simnet.NodeID) wire
	// connsDown is told that connections may have closed or broken.
	connsDown(w *World, now sim.Time)
}

// loopRouter is a run's router: the plan's late, delay and duplicate
// rules, then the event loop.
type loopRouter struct{}

func (loopRouter) route(w *World, now sim.Time, s simnet.Sent, wp wire, id uint64, from, to simnet.NodeID) wire {
	w.scheduleDelivery(now, s.At, Event{kind: evDeliver, node: int32(to), msg: id, tok: s.Tok}, &wp, from, to) // world_delay.go
	if s.DupAt >= 0 {
		wp.refs++
		w.schedule(s.DupAt, Event{kind: evDeliver, node: int32(to), msg: id, tok: s.Tok})
	}
	return wp
}

// connsDown does nothing in a run: a message on a dead connection is
// lost when it arrives (arriveFate).
func (loopRouter) connsDown(*World, sim.Time) {}

// scriptRouter is a scripted world's router: the script, not the
// network's draws and the loop, decides when messages arrive (script.go).
type scriptRouter struct{ st *script }

func (r scriptRouter) route(_ *World, _ sim.Time, s simnet.Sent, wp wire, id uint64, _, to simnet.NodeID) wire {
	r.st.hold(id, to, s.Tok)
	return wp
}

// connsDown loses now the held messages whose connection died: the
// script holds its messages in flight, so they cannot wait for their
// arrival to be lost.
func (r scriptRouter) connsDown(_ *World, now sim.Time) { r.st.loseDead(now) }

// sendFate runs a message's send stages up to the network (1-3 above)
// and returns the network's verdict. wr is the message's wire on
// connection c, in direction dir.
func (w *World) sendFate(now sim.Time, wr *wire, c simnet.Conn, dir simnet.Direction) simnet.Sent {
	if w.probe.p != nil && wr.inst != nil {
		// An explorer chooses among client messages only: server links
		// are no choice points yet.
		w.probeSend(now, wr.m, c, dir, wr.reqNo) // probe.go
	}
	if w.planDrop(dir, wr.reqNo, c) {
		return w.nw.SendLost(now, c, dir)
	}
	return w.nw.Send(now, c, dir)
}

// planDrop reports whether an armed drop rule takes this message, and
// uses the rule up.
func (w *World) planDrop(dir simnet.Direction, reqNo int64, c simnet.Conn) bool {
	return takeRule(w.drops, dir, reqNo, c)
}

// takeRule reports whether an unused rule of rules matches the message,
// and uses it up.
func takeRule(rules []dropRule, dir simnet.Direction, reqNo int64, c simnet.Conn) bool {
	for i := range rules {
		r := &rules[i]
		if !r.used && r.dir == dir && r.n == reqNo && r.client == c.Client && r.server == c.Server {
			r.used = true
			return true
		}
	}
	return false
}

// Why a message did not arrive, besides the network's fates.
const (
	whyCrashed = "crashed"
	whyStale   = "stale-incarnation"
)

// arrivalCrashed is the first arrival stage: a request to a crashed
// server is lost (and in tcp mode breaks its connection: loseDelivery).
func (w *World) arrivalCrashed(ev Event) bool {
	return ev.tok.Dir == simnet.Request && w.nodes[ev.node].fault.crashed
}

// arriveFate runs a message's other arrival stages and returns its fate
// and, when it did not arrive, why. wr is its wire.
func (w *World) arriveFate(now sim.Time, ev Event, wr *wire) (simnet.Fate, string) {
	f := w.nw.Arrive(ev.tok)
	if wr.late && f != simnet.Delivered {
		// The server never saw the close or the cut: it reads the request
		// (faults.Late).
		f = simnet.Delivered
	}
	w.takeNotices(now)
	why := f.String()
	if f == simnet.Delivered && ev.tok.Dir == simnet.Response && wr.inc != w.nodes[wr.client].inc {
		f, why = simnet.Lost, whyStale
	}
	return f, why
}
