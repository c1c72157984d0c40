package world

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// Messages between producer instances and servers, and between servers,
// travel through the simulated network: send asks the fate pipeline
// (fate.go) for each message's fate and carries it out; deliver hands an
// arriving message to its node.

// send puts message wr.m on connection c in direction dir and schedules
// its arrival; wr names the connection's ends, the request's number and
// the client's incarnation. It returns the message's fate at send time.
func (w *World) send(now sim.Time, wr wire, c simnet.Conn, dir simnet.Direction) simnet.Fate {
	m, reqNo := wr.m, wr.reqNo
	s := w.sendFate(now, &wr, c, dir) // fate.go
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
	wp = w.router.route(w, now, s, wp, id, from, to) // fate.go
	w.msgs.Put(id, wp)
	return s.Fate
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

// deliver hands an arriving message to its node.
func (w *World) deliver(now sim.Time, ev Event) {
	to := simnet.NodeID(ev.node)
	if w.arrivalCrashed(ev) { // fate.go
		w.loseDelivery(now, ev, whyCrashed)
		return
	}
	wr := w.takeWire(ev)
	f, why := w.arriveFate(now, ev, &wr) // fate.go
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

// takeNotices schedules the disconnect notices of connections the network
// just broke.
func (w *World) takeNotices(now sim.Time) {
	w.connsDown(now)
	for _, nt := range w.nw.TakeNotices(now) {
		nd := &w.nodes[nt.Conn.Client]
		dest := w.destOf(nt.Conn.Server)
		w.schedule(nt.At, Event{kind: evDisconnect, node: int32(nt.Conn.Client), n: uint64(dest + 1), gen: nd.inc, tok: simnet.Token{Conn: nt.Conn}})
	}
}

// connsDown is called when connections may have closed or broken: the
// router learns it (fate.go).
func (w *World) connsDown(now sim.Time) { w.router.connsDown(w, now) }

// disconnected delivers a disconnect notice, unless the client has since
// moved to another connection or incarnation. A server client learns it
// as a [model.Disconnected] message, and its next message to that server
// opens a new connection (world_server.go).
func (w *World) disconnected(now sim.Time, ev Event) {
	nd := &w.nodes[ev.node]
	if nd.kind != kindProducer {
		to := ev.tok.Conn.Server
		if ev.gen != nd.inc || nd.out[to] != ev.tok.Conn {
			return
		}
		nd.out[to] = simnet.Conn{}
		w.emit(model.Obs{Kind: model.ObsDisconnected, At: now, Node: ev.node, Peer: int32(to), ConnGen: ev.tok.Conn.Gen})
		w.serverOuts(now, simnet.NodeID(ev.node), nd.srv.Step(now, model.Peer{Node: int32(to)}, &model.Disconnected{Dest: w.destOf(to)}))
		return
	}
	in := nd.inst
	dest := int32(ev.n) - 1
	if ev.gen != w.nodes[ev.node].inc || in.conns[w.connIdx(dest)] != ev.tok.Conn {
		return
	}
	w.emit(model.Obs{Kind: model.ObsDisconnected, At: now, Node: ev.node, Peer: int32(ev.tok.Conn.Server), ConnGen: ev.tok.Conn.Gen})
	w.apply(now, in, in.prod.Disconnected(now, dest))
}
