package world

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// A message's fate is decided here, in one pipeline of stages, and
// nowhere else: only this file calls the network's Send, SendLost and
// Arrive. send and deliver run the stages and carry the decision out:
// they emit the observations, keep the wire, and hand what arrived to
// its node. The disconnect notices a broken connection sends are in
// world_net.go.
//
// At send, in order:
//
//  1. the probe, an observer: an explorer's choice point (probe.go); it
//     changes nothing;
//  2. the plan's drop rules: a planned loss (faults.Drop);
//  3. the network: the connection's state, partitions, latency, random
//     loss, a datagram's duplicate (simnet.Network.Send);
//  4. the World's mode (mode.go), chosen once when the World is built:
//     in a run, the plan's late rules (world_late.go), then its delay
//     rules and tcp's order behind a delayed message, then its
//     duplicate rules (world_delay.go), then the event loop; in a
//     scripted world, the script, which holds every message until it
//     acts (script.go).
//
// At arrival, in order: a request to a crashed server is lost; the
// network's arrival check (a cut link, a broken connection); a late
// request is read whatever happened to its connection; a response to an
// earlier incarnation of its client is lost.

// route is a run's last stage: the plan's late, delay and duplicate
// rules, then the event loop. Its receiver is a pointer, so that the
// interface call reaches it without a wrapper copying the arguments
// again.
func (*runMode) route(w *World, now sim.Time, s simnet.Sent, wp wire, id uint64, from, to simnet.NodeID) wire {
	w.scheduleDelivery(now, s.At, Event{kind: evDeliver, node: int32(to), msg: id, tok: s.Tok}, &wp, from, to) // world_delay.go
	if s.DupAt >= 0 {
		wp.refs++
		w.schedule(s.DupAt, Event{kind: evDeliver, node: int32(to), msg: id, tok: s.Tok})
	}
	return wp
}

// connsDown does nothing in a run: a message on a dead connection is
// lost when it arrives (deliver).
func (*runMode) connsDown(*World, sim.Time) {}

// route is a scripted world's last stage: the script, not the network's
// draws and the loop, decides when messages arrive (script.go).
func (r *scriptMode) route(_ *World, _ sim.Time, s simnet.Sent, wp wire, id uint64, _, to simnet.NodeID) wire {
	r.st.hold(id, to, s.Tok)
	return wp
}

// connsDown loses now the held messages whose connection died: the
// script holds its messages in flight, so they cannot wait for their
// arrival to be lost.
func (r *scriptMode) connsDown(_ *World, now sim.Time) { r.st.loseDead(now) }

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

// send puts message wr.m on connection c in direction dir and schedules
// its arrival; wr names the connection's ends, the request's number and
// the client's incarnation. It returns the message's fate at send time.
func (w *World) send(now sim.Time, wr wire, c simnet.Conn, dir simnet.Direction) simnet.Fate {
	m, reqNo := wr.m, wr.reqNo
	// Stage 1: the probe, an observer. An explorer chooses among client
	// messages only: server links are no choice points yet.
	if w.probe.p != nil && wr.inst != nil {
		w.probeSend(now, m, c, dir, reqNo) // probe.go
	}
	// Stages 2 and 3: the plan's drop rules, then the network.
	var s simnet.Sent
	if w.planDrop(dir, reqNo, c) {
		s = w.nw.SendLost(now, c, dir)
	} else {
		s = w.nw.Send(now, c, dir)
	}
	w.takeNotices(now)
	from, to := wr.client, wr.server
	if dir == simnet.Response {
		from, to = to, from
	}
	o := w.slot(model.ObsSent, now, int32(from), int32(to))
	o.Msg, o.N, o.ConnGen = m, reqNo, c.Gen
	o.Flag, o.Forced, o.Dur, o.Until = dir == simnet.Response, s.Forced, sim.Time(s.Held), s.At
	o.Random = s.Fate == simnet.Lost && !s.Forced
	if s.Fate != simnet.Delivered {
		o.Fate = s.Fate.String()
		w.fire(o)
		return s.Fate
	}
	w.nextMsg++
	id := w.nextMsg
	o.MsgID = id
	w.fire(o)
	if s.DupAt >= 0 {
		w.emit(model.Obs{Kind: model.ObsDup, At: now, Node: int32(from), Peer: int32(to), Msg: m, Until: s.DupAt})
	}
	// The wire is kept by value until its last delivery (no allocation
	// per message); it is stored once every rule has marked it.
	wp := wr
	wp.refs = 1
	// Stage 4: the mode's routing.
	wp = w.mode.route(w, now, s, wp, id, from, to)
	w.msgs.Put(id, wp)
	return s.Fate
}

// deliver hands an arriving message to its node.
func (w *World) deliver(now sim.Time, ev Event) {
	to := simnet.NodeID(ev.node)
	if ev.tok.Dir == simnet.Request && w.nodes[to].fault.crashed {
		// A request to a crashed server is lost (and in tcp mode breaks
		// its connection).
		w.loseDelivery(now, ev, whyCrashed)
		return
	}
	wr := w.takeWire(ev)
	// The network's arrival check: a cut link, a broken connection.
	f := w.nw.Arrive(ev.tok)
	if wr.late && f != simnet.Delivered {
		// The server never saw the close or the cut: it reads the request
		// (faults.Late).
		f = simnet.Delivered
	}
	w.takeNotices(now)
	why := f.String()
	if f == simnet.Delivered && ev.tok.Dir == simnet.Response && wr.inc != w.nodes[wr.client].inc {
		// A response to an earlier incarnation of its client.
		f, why = simnet.Lost, whyStale
	}
	peer := wr.client
	if ev.tok.Dir == simnet.Response {
		peer = wr.server
	}
	if f != simnet.Delivered {
		o := w.slot(model.ObsLost, now, int32(to), int32(peer))
		o.Msg, o.Fate, o.MsgID = wr.m, why, ev.msg
		w.fire(o)
		return
	}
	if ev.tok.Dir == simnet.Request {
		// Into the server's receive buffer (world_handler.go).
		w.receive(now, to, wr, ev.msg, ev.tok)
		return
	}
	o := w.slot(model.ObsDelivered, now, int32(to), int32(peer))
	o.Msg, o.MsgID = wr.m, ev.msg
	w.fire(o)
	if wr.inst == nil {
		// A server's answer from another server (world_server.go).
		w.serverOuts(now, to, w.nodes[to].srv.Step(now, model.Peer{Node: int32(peer), ReqNo: wr.reqNo}, wr.m))
		return
	}
	switch wr.m.(type) {
	case *model.TxnResponse, *model.ProduceResponse, *model.InitProducerIDResponse, *model.MetadataResponse:
		w.apply(now, wr.inst, wr.inst.prod.Receive(now, wr.dest, wr.m))
	default:
		panic(fmt.Sprintf("scenarios: cannot deliver %T to a producer", wr.m))
	}
}

// takeWire returns the wire of a delivery event, releasing it after its
// last scheduled delivery.
func (w *World) takeWire(ev Event) wire {
	wr, ok := w.msgs.Get(ev.msg)
	if !ok {
		return wire{} // not on the wire (never met: every delivery has its message)
	}
	wr.refs--
	if wr.refs == 0 {
		w.msgs.Del(ev.msg)
	} else {
		w.msgs.Set(ev.msg, wr)
	}
	return wr
}

// loseDelivery drops a delivery to a crashed node. In TCP mode the
// connection breaks (a refused or reset connection).
func (w *World) loseDelivery(now sim.Time, ev Event, why string) {
	wr := w.takeWire(ev)
	peer := wr.client
	if ev.tok.Dir == simnet.Response {
		peer = wr.server
	}
	w.emit(model.Obs{Kind: model.ObsLost, At: now, Node: ev.node, Peer: int32(peer), Msg: wr.m, Fate: why, MsgID: ev.msg, Flag: true})
	w.nw.Break(ev.tok.Conn)
	w.takeNotices(now)
}
