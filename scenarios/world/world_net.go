package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// The network's disconnect notices reach their clients here: a connection
// the network broke (a loss, a crash, a cut) reaches its client as a
// notice, which the fate pipeline schedules (fate.go, takeNotices).

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
	if in.cons != nil && ev.gen == nd.inc && in.cconns[w.connIdx(dest)] == ev.tok.Conn {
		in.cconns[w.connIdx(dest)] = simnet.Conn{} // the consumer's (world_input.go)
		w.emit(model.Obs{Kind: model.ObsDisconnected, At: now, Node: ev.node, Peer: int32(ev.tok.Conn.Server), ConnGen: ev.tok.Conn.Gen})
		w.consOuts(now, in, in.cons.Step(now, model.Peer{Node: int32(ev.tok.Conn.Server)}, &model.Disconnected{Dest: dest}))
		return
	}
	if ev.gen != w.nodes[ev.node].inc || in.conns[w.connIdx(dest)] != ev.tok.Conn {
		return
	}
	w.emit(model.Obs{Kind: model.ObsDisconnected, At: now, Node: ev.node, Peer: int32(ev.tok.Conn.Server), ConnGen: ev.tok.Conn.Gen})
	w.apply(now, in, in.prod.Disconnected(now, dest))
}
