package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// Servers (brokers, the coordinator) are model state machines. The world
// carries out their effects: replies go back over the network where the
// request came from, timers become background wake-ups, and observations
// join the stream.
//
// Messages between servers (markers, verifications and their answers)
// travel the network as a producer's do. The world is each server's
// NetworkClient: a server's first message to another opens a connection
// (the server is its client end), and so does the first one after the
// connection broke (a disconnect notice, model.Disconnected) or the
// server closed it (OutClose, on a request timeout). The requests wait in
// the receiving server's receive buffer like a producer's
// (world_handler.go); its answer goes back on the same connection. A
// loss, a partition or a crash of either end breaks the connection; the
// sender learns of the break one latency later (a reset, never across a
// partition) or by its own request timeout, and retries (model). Their
// loss probability is net.server_loss, not the clients' rates.
//
// A scripted world (script.go) keeps the former shortcut: server messages
// are delivered at once, without a trace line, a crashed recipient gets
// them at its restart (its script decides only about client messages).

// route is where a server's reply to a request goes: back over the
// network to the requesting client (a producer instance or a server), or,
// in a scripted world, at once to another server.
type route struct {
	// client is the requesting node; inst its producer instance, nil for
	// a server.
	client simnet.NodeID
	inst   *instance
	dest   int32
	conn   simnet.Conn
	reqNo  int64
	inc    uint32
	// instant: a scripted world's server-to-server request, answered at
	// once (stepServer).
	instant bool
	// sc is the connection the request was read from; it reads its next
	// request once this reply is sent (Kafka's SocketServer mutes a
	// connection until its response is sent).
	sc *srvConn
	// cons: the request is the instance's consumer's.
	cons bool
	// app is the exactly-once instance whose application asked (an
	// OffsetFetch, answered at once), or nil.
	app *instance
}

// pushRoute records a reply route for a request a server is handed and
// returns its handle. The route lives until the server replies (a request
// that waits for another server's answer keeps it across events) or the
// caller drops it (dropRoute).
func (w *World) pushRoute(r route) uint64 {
	w.nextRoute++
	h := w.nextRoute
	w.routes.Put(h, r)
	return h
}

// dropRoute forgets route h (a request that gets no reply).
func (w *World) dropRoute(h uint64) { w.routes.Del(h) }

// serverOuts carries out the effects of server node n.
func (w *World) serverOuts(now sim.Time, n simnet.NodeID, outs []model.Out) {
	if p := w.probe.parts; p != nil { // the state hash's marks (statehash.go)
		p.Dirty(int(n))
	}
	if len(outs) == 0 {
		return
	}
	// No defer for the release: a run that panics is dropped, World and
	// nodes (a Runner's next run rebuilds both).
	if h := w.nodes[n].holder; h != nil && h.HoldEffects(outs) {
		// Carried out in place: a call into the server meanwhile
		// writes to other buffers (model/hold.go).
		w.serverEffects(now, n, outs)
		h.ReleaseEffects()
		return
	}
	outs = w.effs.Push(outs)
	w.serverEffects(now, n, outs)
	w.effs.Pop()
}

// serverEffects carries out server node n's effects outs, held or copied.
func (w *World) serverEffects(now sim.Time, n simnet.NodeID, outs []model.Out) {
	for i := range outs {
		o := &outs[i]
		if w.repl.out(w, now, n, o) { // world_repl.go
			continue
		}
		switch o.Kind {
		case model.OutObserve:
			// o.Obs is held or this call's copy (pushOuts): complete
			// it there.
			ob := o.Obs
			ob.At, ob.Node = now, int32(n)
			if ob.Kind != model.ObsVerdict && ob.Kind != model.ObsEpoch && ob.Kind != model.ObsTxnOp && ob.Kind != model.ObsOffsets {
				ob.Peer = -1
			}
			w.fire(ob)
		case model.OutReply:
			r, ok := w.routes.Get(o.Peer.Handle)
			if !ok {
				panic("scenarios: a reply with no route")
			}
			w.routes.Del(o.Peer.Handle)
			if r.app != nil {
				w.offsetFetched(now, r.app, o.Msg.(*model.OffsetFetchResponse))
				continue
			}
			if r.instant {
				w.stepServer(now, r.client, n, o.Msg, 0)
				continue
			}
			wr := wire{m: o.Msg, client: r.client, server: n, inst: r.inst, dest: r.dest, inc: r.inc, reqNo: r.reqNo, cons: r.cons}
			if w.send(now, wr, r.conn, simnet.Response) == simnet.ConnBroken && r.sc != nil {
				r.sc.failed = true
			}
			if r.sc != nil && r.sc.waiting {
				// The answer of a request that waited for another
				// server: the connection reads on.
				r.sc.waiting = false
				w.doneHandling(now, r.sc, r.sc.failed)
				w.readNext(now, r.sc)
			}
		case model.OutSend:
			to := w.destNode(o.Dest)
			w.mode.serverSend(w, now, n, to, o.Dest, o.Msg) // mode.go
		case model.OutClose:
			if c := w.nodes[n].out[w.destNode(o.Dest)]; c.Gen != 0 {
				w.nw.Close(c)
				w.nodes[n].out[c.Server] = simnet.Conn{}
				w.mode.connsDown(w, now)
			}
		case model.OutWake:
			// Housekeeping wake-ups are background events; one that
			// stands for owed work (markers still to write) keeps the
			// run alive.
			w.schedule(w.drifted(now, n, o.At), Event{kind: evWake, node: int32(n), n: o.Timer, gen: w.nodes[n].inc, bg: !o.Owed})
		}
	}
}

// serverSend sends request m from server n to server to (destination
// dest) on n's connection to it, opening one if n has none.
func (w *World) serverSend(now sim.Time, n, to simnet.NodeID, dest int32, m model.Message) {
	nd := &w.nodes[n]
	c := nd.out[to]
	if c.Gen == 0 {
		c = w.nw.Connect(n, to)
		nd.out[to] = c
	}
	link := int(n)*len(w.names) + int(to)
	w.reqCount[link]++
	w.send(now, wire{m: m, client: n, server: to, dest: dest, inc: nd.inc, reqNo: w.reqCount[link]}, c, simnet.Request)
}

// closeServerConns closes crashed server n's connections to other
// servers, and breaks theirs to it (their clients get notices).
func (w *World) closeServerConns(n simnet.NodeID) {
	nd := &w.nodes[n]
	for i, c := range nd.out {
		if c.Gen != 0 {
			w.nw.Close(c)
			nd.out[i] = simnet.Conn{}
		}
	}
	for i := range w.nodes {
		if o := w.nodes[i].out; o != nil && o[n].Gen != 0 {
			w.nw.Break(o[n])
		}
	}
}

// stepServer is a scripted world's delivery of message m from server from
// to server to: at once, with the given reply handle. A message to a
// crashed server waits for its restart and is then delivered with a route
// back to its sender; a paused server handles it at once.
func (w *World) stepServer(now sim.Time, to, from simnet.NodeID, m model.Message, handle uint64) {
	if w.nodes[to].fault.crashed {
		w.nodes[to].fault.inbox = append(w.nodes[to].fault.inbox, internalMsg{from: from, m: m, handle: handle})
		return
	}
	w.serverOuts(now, to, w.nodes[to].srv.Step(now, model.Peer{Node: int32(from), Handle: handle}, m))
}

// internalMsg is a scripted world's server-to-server message waiting for
// its recipient's restart.
type internalMsg struct {
	from   simnet.NodeID
	m      model.Message
	handle uint64
}
