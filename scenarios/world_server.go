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
	// failed, when set, is told whether the reply could not be sent, the
	// connection being gone.
	failed *bool
	// sc is the connection the request was read from; it reads its next
	// request once this reply is sent (R49).
	sc *srvConn
	// app is the exactly-once instance whose application asked (an
	// OffsetFetch, answered at once), or nil.
	app *instance
}

// pushRoute records a reply route for a request a server is handed and
// returns its handle. The route lives until the server replies (a request
// that waits for another server's answer keeps it across events) or the
// caller drops it (dropRoute).
func (w *World) pushRoute(r route) uint64 {
	if w.routes == nil {
		w.routes = make(map[uint64]*route, 8)
	}
	w.nextRoute++
	h := w.nextRoute
	w.routes[h] = &r
	return h
}

// dropRoute forgets route h (a request that gets no reply).
func (w *World) dropRoute(h uint64) { delete(w.routes, h) }

// serverOuts carries out the effects of server node n.
func (w *World) serverOuts(now sim.Time, n simnet.NodeID, outs []model.Out) {
	outs = w.pushOuts(outs)
	defer w.popOuts()
	for i := range outs {
		o := &outs[i]
		if w.replOut(now, n, o) { // world_repl.go
			continue
		}
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
			if r == nil {
				panic("scenarios: a reply with no route")
			}
			delete(w.routes, o.Peer.Handle)
			if r.app != nil {
				w.offsetFetched(now, r.app, o.Msg.(*model.OffsetFetchResponse))
				continue
			}
			if r.server >= 0 {
				w.stepServer(now, r.server, n, o.Msg, 0)
				continue
			}
			if w.send(now, r.inst, r.dest, o.Msg, r.conn, simnet.Response, r.reqNo, r.inc) == simnet.ConnBroken && r.failed != nil {
				*r.failed = true
			}
			if r.sc != nil && r.sc.waiting {
				// The answer of a request that waited for another
				// server: the connection reads on.
				r.sc.waiting = false
				w.doneHandling(now, r.sc, r.failed != nil && *r.failed)
				w.readNext(now, r.sc)
			}
		case model.OutSend:
			to := w.destNode(o.Dest)
			w.stepServer(now, to, n, o.Msg, w.pushRoute(route{server: n}))
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
		w.nodes[to].fault.inbox = append(w.nodes[to].fault.inbox, internalMsg{from: from, m: m, handle: handle})
		return
	}
	w.serverOuts(now, to, w.nodes[to].srv.Step(now, model.Peer{Node: int32(from), Handle: handle}, m))
}

// internalMsg is a server-to-server message waiting for its recipient's
// restart.
type internalMsg struct {
	from   simnet.NodeID
	m      model.Message
	handle uint64
}
