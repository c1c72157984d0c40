package scenarios

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// Servers (brokers, the coordinator) are model state machines. The world
// carries out their effects: replies go back where the request came from,
// messages between servers are delivered at once (in the same instant,
// without a trace line; Kafka sends them over the inter-broker network),
// timers become background wake-ups, and observations join the stream.

// route is where a server's reply to a request goes: back over the
// network to a producer instance, or at once to another server.
type route struct {
	inst  *instance
	dest  int32
	conn  simnet.Conn
	reqNo int64
	inc   uint32
	// server is the requesting server's node id, or -1 for a producer.
	server simnet.NodeID
	// failed: the reply could not be sent, the connection being gone.
	failed bool
}

// pushRoute records a reply route for the request being handled and
// returns its handle.
func (w *World) pushRoute(r route) uint64 {
	w.routes = append(w.routes, r)
	return uint64(len(w.routes) - 1)
}

func (w *World) popRoute() { w.routes = w.routes[:len(w.routes)-1] }

// serverOuts carries out the effects of server node n.
func (w *World) serverOuts(now sim.Time, n simnet.NodeID, outs []model.Out) {
	outs = w.pushOuts(outs)
	defer w.popOuts()
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case model.OutObserve:
			ob := o.Obs
			ob.At, ob.Node = now, int32(n)
			if ob.Kind != model.ObsVerdict && ob.Kind != model.ObsEpoch && ob.Kind != model.ObsTxnOp {
				ob.Peer = -1
			}
			w.emit(ob)
		case model.OutReply:
			r := w.routes[o.Peer.Handle]
			if r.server >= 0 {
				w.stepServer(now, r.server, n, o.Msg, 0)
				continue
			}
			if w.send(now, r.inst, r.dest, o.Msg, r.conn, simnet.Response, r.reqNo, r.inc) == simnet.ConnBroken {
				w.routes[o.Peer.Handle].failed = true
			}
		case model.OutSend:
			to := w.destNode(o.Dest)
			h := w.pushRoute(route{server: n})
			w.stepServer(now, to, n, o.Msg, h)
			w.popRoute()
		case model.OutWake:
			w.schedule(w.drifted(now, n, o.At), Event{kind: evWake, node: int32(n), n: o.Timer, gen: w.nodes[n].inc, bg: true})
		}
	}
}

// stepServer delivers message m from server from to server to at once,
// with the given reply handle. A message to a crashed server waits for its
// restart (Kafka's inter-broker senders retry until the broker is back),
// and is then delivered with a route back to its sender; a paused server
// handles it at once (a simplification until inter-broker messages travel
// the network).
func (w *World) stepServer(now sim.Time, to, from simnet.NodeID, m model.Message, handle uint64) {
	if w.nodes[to].fault.crashed {
		w.nodes[to].fault.inbox = append(w.nodes[to].fault.inbox, internalMsg{from: from, m: m})
		return
	}
	w.serverOuts(now, to, w.nodes[to].srv.Step(now, model.Peer{Node: int32(from), Handle: handle}, m))
}

// internalMsg is a server-to-server message waiting for its recipient's
// restart.
type internalMsg struct {
	from simnet.NodeID
	m    model.Message
}
