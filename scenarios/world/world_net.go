package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// Messages between producer instances and servers, and between servers,
// travel through the simulated network: send asks the fate pipeline
// (fate.go) for each message's fate and carries it out; deliver hands an
// arriving message to its node.

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
