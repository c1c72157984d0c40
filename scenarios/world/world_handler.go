package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// A server reads and handles the requests of each client connection (a
// producer's, or another server's: world_server.go) as Kafka's
// SocketServer does (Kafka 3.9
// core/src/main/scala/kafka/network/SocketServer.scala):
//
//   - a request that arrived sits in the connection's receive buffer; it
//     arrives even while the server process is paused (the kernel buffers
//     it) and is read once the process runs;
//   - one request per connection is read at a time: the connection is
//     muted until the response is sent or skipped
//     (processCompletedReceives / processNewResponses);
//   - a request that has been read is handled to the end, even if its
//     connection breaks meanwhile; only its response is lost
//     (KafkaRequestHandler.run never checks the connection;
//     sendResponse drops a response for a closed channel);
//   - after a close, buffered requests are still read and handled one by
//     one until the first response that has to be sent fails, which closes
//     the channel and discards the rest (SocketServerTest
//     remoteCloseWithBufferedReceives / ...FailedSend).
//
// Handling takes broker.processing.time plus a uniform draw below
// broker.processing.spread (both 0 by default: handled in the instant it is
// read). A stalled server (the "stall" fault) keeps receiving but reads
// nothing until the stall ends.

// srvConn is one client connection's receive side at a server.
type srvConn struct {
	node simnet.NodeID
	conn simnet.Conn
	// queue holds the requests that arrived and were not read yet.
	queue []pendingReq
	// cur is the request being handled (busy), if any.
	cur  pendingReq
	busy bool
	// waiting: the request being handled waits for another server's
	// answer; the connection stays muted until its response is sent.
	waiting bool
	// failed: the response to the request being handled could not be
	// sent, the connection being gone (set by the reply, world_server.go).
	failed bool
}

// pendingReq is a request in a server's receive buffer.
type pendingReq struct {
	wr  wire
	id  uint64
	tok simnet.Token
}

// srvConnOf returns the receive side of connection c at node n, creating
// it when create is set (else nil when there is none).
func (w *World) srvConnOf(n simnet.NodeID, c simnet.Conn, create bool) *srvConn {
	for _, sc := range w.srvConns {
		if sc.conn == c && sc.node == n {
			return sc
		}
	}
	if !create {
		return nil
	}
	var sc *srvConn
	if k := len(w.srvFree); k > 0 {
		// A dropped receive side, reused with its buffer's storage.
		sc, w.srvFree = w.srvFree[k-1], w.srvFree[:k-1]
		*sc = srvConn{node: n, conn: c, queue: sc.queue[:0]}
	} else {
		sc = &srvConn{node: n, conn: c}
	}
	w.srvConns = append(w.srvConns, sc)
	return sc
}

// dropSrvConn forgets sc.
func (w *World) dropSrvConn(sc *srvConn) {
	for i, x := range w.srvConns {
		if x == sc {
			w.srvConns = append(w.srvConns[:i], w.srvConns[i+1:]...)
			clear(sc.queue[:cap(sc.queue)]) // no stale wires kept alive
			w.srvFree = append(w.srvFree, sc)
			return
		}
	}
}

// receive puts a request that arrived at server n into its connection's
// receive buffer, and reads it at once if the server can.
func (w *World) receive(now sim.Time, n simnet.NodeID, wr wire, id uint64, tok simnet.Token) {
	sc := w.srvConnOf(n, tok.Conn, true)
	sc.queue = append(sc.queue, pendingReq{wr: wr, id: id, tok: tok})
	if st := &w.nodes[n].fault; st.paused || st.stalled {
		why := "paused"
		if !st.paused {
			why = "stalled"
		}
		w.emit(model.Obs{Kind: model.ObsHold, At: now, Node: int32(n), Peer: -1,
			Text: string(Event{kind: evDeliver, node: int32(n), msg: id}.AppendDescription(nil)), Fate: why})
		return
	}
	w.readNext(now, sc)
}

// readNext reads and handles sc's buffered requests one at a time, as
// long as the server runs and no request is being handled.
func (w *World) readNext(now sim.Time, sc *srvConn) {
	n := sc.node
	for !sc.busy && len(sc.queue) > 0 {
		if st := &w.nodes[n].fault; st.paused || st.stalled || st.crashed {
			return
		}
		// Take the first request and move the others up, so that the
		// buffer keeps its storage (a few requests at most: those in
		// flight on the connection).
		req := sc.queue[0]
		k := copy(sc.queue, sc.queue[1:])
		sc.queue[k] = pendingReq{}
		sc.queue = sc.queue[:k]
		sc.busy, sc.cur = true, req
		o := w.slot(model.ObsDelivered, now, int32(n), int32(req.wr.client))
		o.Msg, o.MsgID = req.wr.m, req.id
		w.fire(o)
		if d := w.handlingTime(n); d > 0 {
			w.schedule(now+d, Event{kind: evHandled, node: int32(n), gen: w.nodes[n].inc, tok: simnet.Token{Conn: sc.conn}})
			return
		}
		w.handle(now, sc)
	}
	if !sc.busy && len(sc.queue) == 0 {
		w.dropSrvConn(sc)
	}
}

// handled ends the handling of the request being handled on the
// connection of ev (after its handling time).
func (w *World) handled(now sim.Time, ev Event) {
	if ev.gen != w.nodes[ev.node].inc {
		return // handling by a crashed incarnation
	}
	sc := w.srvConnOf(simnet.NodeID(ev.node), ev.tok.Conn, false)
	if sc == nil || !sc.busy || sc.waiting {
		return
	}
	w.handle(now, sc)
	w.readNext(now, sc)
}

// handle hands the request being handled to the server node and carries
// out its effects. The connection stays muted until the response is sent
// (SocketServer's processNewResponses unmutes it): a request that waits
// for another server's answer (a produce waiting for its verification)
// keeps it muted across events.
func (w *World) handle(now sim.Time, sc *srvConn) {
	req := &sc.cur
	wr := &req.wr
	sc.failed = false
	h := w.pushRoute(route{client: wr.client, inst: wr.inst, dest: wr.dest, conn: req.tok.Conn, reqNo: wr.reqNo, inc: wr.inc, sc: sc, cons: wr.cons})
	w.serverOuts(now, sc.node, w.nodes[sc.node].srv.Step(now, model.Peer{Node: int32(wr.client), ReqNo: wr.reqNo, Handle: h}, wr.m))
	if pr, ok := wr.m.(*model.ProduceRequest); ok && pr.Acks == 0 {
		w.dropRoute(h) // acks=0: no response
	}
	if _, waiting := w.routes.Get(h); waiting {
		sc.waiting = true
		return
	}
	w.doneHandling(now, sc, sc.failed)
}

// doneHandling unmutes sc after its request's response was sent or
// skipped. A response that could not be sent (the connection is gone)
// closes the channel: the requests still buffered are discarded
// (SocketServerTest remoteCloseWithBufferedReceivesFailedSend).
func (w *World) doneHandling(now sim.Time, sc *srvConn, failed bool) {
	sc.busy, sc.cur = false, pendingReq{}
	if !failed {
		return
	}
	for _, q := range sc.queue {
		w.emit(model.Obs{Kind: model.ObsLost, At: now, Node: int32(sc.node), Peer: int32(q.wr.client), Msg: q.wr.m, Fate: "channel-closed", MsgID: q.id, Flag: true})
	}
	sc.queue = sc.queue[:0]
}

// handlingTime draws server n's time to handle one request.
func (w *World) handlingTime(n simnet.NodeID) sim.Time {
	bc := &w.cfg.Broker
	d := bc.ProcessingTime
	if bc.ProcessingSpread > 0 {
		nd := &w.nodes[n]
		if nd.handlerRand == nil {
			nd.handlerRand = w.rands.New(w.seed, streamOf("handler/"+nd.name))
		}
		d += sim.Time(nd.handlerRand.Int64N(int64(bc.ProcessingSpread))).Duration()
	}
	return sim.Time(d)
}

// kickReads resumes reading at server n (after a pause or a stall), in
// the order its connections first received a request.
func (w *World) kickReads(now sim.Time, n simnet.NodeID) {
	for _, sc := range append([]*srvConn(nil), w.srvConns...) {
		if sc.node == n {
			w.readNext(now, sc)
		}
	}
}

// dropReads loses what crashed server n had buffered or was handling.
func (w *World) dropReads(now sim.Time, n simnet.NodeID) {
	kept := w.srvConns[:0]
	for _, sc := range w.srvConns {
		if sc.node != n {
			kept = append(kept, sc)
			continue
		}
		for _, q := range sc.queue {
			w.emit(model.Obs{Kind: model.ObsLost, At: now, Node: int32(n), Peer: int32(q.wr.client), Msg: q.wr.m, Fate: "crashed", MsgID: q.id, Flag: true})
		}
	}
	clear(w.srvConns[len(kept):])
	w.srvConns = kept
}

// buffered returns the requests server n has received and not read yet.
func (w *World) buffered(n simnet.NodeID) int64 {
	var k int64
	for _, sc := range w.srvConns {
		if sc.node == n {
			k += int64(len(sc.queue))
		}
	}
	return k
}
