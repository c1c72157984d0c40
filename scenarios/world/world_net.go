package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// The network's disconnect notices: a connection the network broke (a
// loss, a crash, a cut) reaches its client as a notice, and the mode
// learns that connections went down. Messages themselves go through the
// fate pipeline (fate.go).

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
// mode learns it (fate.go).
func (w *World) connsDown(now sim.Time) { w.mode.connsDown(w, now) }

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
