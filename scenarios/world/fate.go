package world

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// A message's fate is decided here, in one pipeline of stages, and
// nowhere else: only this file calls the network's Send, SendLost and
// Arrive. send and deliver run the stages and carry the decision out:
// they emit the observations, keep the wire, and hand what arrived to
// its node, and schedule the disconnect notices of the connections the
// network broke (world_net.go delivers them). The stages' own code is
// below send and deliver, in pipeline order.
//
// At send, in order:
//
//  1. the probe, an observer: an explorer's choice point (probe.go); it
//     changes nothing;
//  2. the plan's drop rules: a planned loss (faults.Drop);
//  3. the network: the connection's state, partitions, latency, random
//     loss, a datagram's duplicate (simnet.Network.Send);
//  4. the World's mode (mode.go), chosen once when the World is built:
//     in a run, the plan's late rules (lateDelivery), then its delay
//     rules and tcp's order behind a delayed message, then its
//     duplicate rules (scheduleDelivery), then the event loop; in a
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
	w.scheduleDelivery(now, s.At, Event{kind: evDeliver, node: int32(to), msg: id, tok: s.Tok}, &wp, from, to)
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
func (w *World) planDrop(now sim.Time, dir simnet.Direction, reqNo int64, c simnet.Conn) bool {
	return w.takeRule(now, w.drops, dir, reqNo, c)
}

// takeRule reports whether an unused rule of rules matches the message,
// uses it up and prints its plan line.
func (w *World) takeRule(now sim.Time, rules []dropRule, dir simnet.Direction, reqNo int64, c simnet.Conn) bool {
	for i := range rules {
		r := &rules[i]
		if !r.used && r.dir == dir && r.n == reqNo && r.client == c.Client && r.server == c.Server {
			r.used = true
			w.ruleFired(now, r.act)
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
	if w.planDrop(now, dir, reqNo, c) {
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
	if wr.cons {
		w.consOuts(now, wr.inst, wr.inst.cons.Step(now, model.Peer{Node: int32(peer), ReqNo: wr.reqNo}, wr.m)) // world_input.go
		return
	}
	switch wr.m.(type) {
	case *model.TxnResponse, *model.ProduceResponse, *model.InitProducerIDResponse, *model.MetadataResponse, *model.FindCoordinatorResponse:
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

// The disconnect notices of connections the network broke, at a send or
// an arrival: the mode learns that connections went down, and each
// client gets a notice (world_net.go delivers it).

// takeNotices schedules the disconnect notices of connections the network
// just broke.
func (w *World) takeNotices(now sim.Time) {
	w.mode.connsDown(w, now)
	for _, nt := range w.nw.TakeNotices(now) {
		nd := &w.nodes[nt.Conn.Client]
		dest := w.destOf(nt.Conn.Server)
		w.schedule(nt.At, Event{kind: evDisconnect, node: int32(nt.Conn.Client), n: uint64(dest + 1), gen: nd.inc, tok: simnet.Token{Conn: nt.Conn}})
	}
}

// The plan's message faults beyond drops and rejects: "delay" holds a
// message back until a message on another connection has arrived
// (faults.Delay), "duplicate" delivers one twice in datagram mode
// (faults.Duplicate). Both are armed by request number on a link, like a
// drop, and fire once. They are what an explorer (internal/explore)
// injects for "delay it past the next message on another connection" and
// "duplicate it".

// msgFaults is the world's state for delay and duplicate rules.
type msgFaults struct {
	delays, dups []dropRule
	// held are the delayed messages, in the order they were sent: each
	// waits for an arrival on another link at or after its own arrival
	// time (at). On a tcp connection the messages sent behind a delayed
	// one in the same direction are held behind it (behind = true).
	held []heldMsg
	// lates are the armed late rules, lateConns the connections whose
	// later messages wait behind a late one (lateDelivery, below).
	lates     []lateRule
	lateConns []lateConn
	// prearmed marks the plan's 0s actions whose rules were armed before
	// the run's setup events (initFaults): their evFault only prints.
	prearmed []bool
}

// heldMsg is a delivery the world holds back.
type heldMsg struct {
	ev Event
	at sim.Time
	// behind: held only to keep a tcp connection in order.
	behind bool
}

// ArmDelay arms a delay rule ([faults.Delay]).
func (t actuator) ArmDelay(dir simnet.Direction, n int64, client, server string) {
	if t.w.prearmed(t.i) {
		return
	}
	t.w.mf.delays = append(t.w.mf.delays, dropRule{dir: dir, n: n, client: t.w.nodeOf(client), server: t.w.nodeOf(server), act: int32(t.i)})
}

// ArmDuplicate arms a duplicate rule ([faults.Duplicate]).
func (t actuator) ArmDuplicate(dir simnet.Direction, n int64, client, server string) {
	if t.w.prearmed(t.i) {
		return
	}
	t.w.mf.dups = append(t.w.mf.dups, dropRule{dir: dir, n: n, client: t.w.nodeOf(client), server: t.w.nodeOf(server), act: int32(t.i)})
}

// scheduleDelivery schedules a message's arrival event at its arrival time
// at, unless a delay rule or an earlier delayed message on the same tcp
// connection holds it back; a duplicate rule adds a copy right after it
// (datagram mode). wr is the message's wire.
func (w *World) scheduleDelivery(now, at sim.Time, ev Event, wr *wire, from, to simnet.NodeID) {
	mf := &w.mf
	c, dir := ev.tok.Conn, ev.tok.Dir
	at = w.lateDelivery(now, at, c, dir, wr, from, to)
	hold := w.takeRule(now, mf.delays, dir, wr.reqNo, c)
	behind := false
	if !hold && w.nw.Mode() == simnet.TCP {
		for _, h := range mf.held {
			if h.ev.tok.Conn == c && h.ev.tok.Dir == dir {
				hold, behind = true, true
				break
			}
		}
	}
	if hold {
		mf.held = append(mf.held, heldMsg{ev: ev, at: at, behind: behind})
		if !behind {
			w.note(now, from, "delays "+string(wr.m.AppendDescription(nil))+" -> "+w.names[to]+" until a message on another connection arrives (plan: "+dir.String()+" "+strconv.FormatInt(wr.reqNo, 10)+")")
		}
	} else {
		w.schedule(at, ev)
	}
	if w.takeRule(now, mf.dups, dir, wr.reqNo, c) {
		if w.nw.Mode() != simnet.Datagram {
			w.note(now, from, "duplicate of "+string(wr.m.AppendDescription(nil))+" ignored: tcp never duplicates")
			return
		}
		w.emit(model.Obs{Kind: model.ObsDup, At: now, Node: int32(from), Peer: int32(to), Msg: wr.m, Until: at})
		wr.refs++
		if hold {
			mf.held = append(mf.held, heldMsg{ev: ev, at: at, behind: true})
		} else {
			w.schedule(at, ev)
		}
	}
}

// releaseDelayed is called after a message arrived (ev, an evDeliver):
// the delayed messages of other links that were due by now arrive right
// after it, each with the messages held behind it.
func (w *World) releaseDelayed(now sim.Time, ev Event) {
	mf := &w.mf
	if len(mf.held) == 0 {
		return
	}
	c := ev.tok.Conn
	var release []simnet.Token
	for _, h := range mf.held {
		hc := h.ev.tok.Conn
		if !h.behind && h.at <= now && (hc.Client != c.Client || hc.Server != c.Server) {
			release = append(release, h.ev.tok)
		}
	}
	for _, tok := range release {
		w.releaseConn(now, tok.Conn, tok.Dir)
	}
}

// releaseConn schedules the held messages of connection c in direction
// dir, in order, each at its arrival time or now, whichever is later.
func (w *World) releaseConn(now sim.Time, c simnet.Conn, dir simnet.Direction) {
	mf := &w.mf
	kept := mf.held[:0]
	for _, h := range mf.held {
		if h.ev.tok.Conn == c && h.ev.tok.Dir == dir {
			w.schedule(max(now, h.at), h.ev)
			continue
		}
		kept = append(kept, h)
	}
	clear(mf.held[len(kept):])
	mf.held = kept
}

// releaseAllDelayed schedules every held message at the plan's end, when
// every fault source stops, and forgets the delay and duplicate rules.
func (w *World) releaseAllDelayed(at sim.Time) {
	mf := &w.mf
	for _, h := range mf.held {
		w.schedule(max(at, h.at), h.ev)
	}
	mf.held = nil
	mf.delays, mf.dups = nil, nil
	for i := range mf.lates {
		mf.lates[i].used = true // a late action after the plan's end does nothing
	}
}

// prearmed reports whether plan action i's rules were armed at setup.
func (w *World) prearmed(i int) bool { return i < len(w.mf.prearmed) && w.mf.prearmed[i] }

// prearm arms the rules of the plan's 0s actions (drops, rejects, delays,
// duplicates) before the run's setup events, so that they can hit a
// message sent at setup (a producer's first InitProducerId at 0s). The
// actions' evFault events still run (and count) at 0s but print nothing
// (a rule's line prints when it fires) and arm nothing twice.
func (w *World) prearm() {
	w.mf.prearmed = make([]bool, len(w.plan.Actions))
	for i := range w.plan.Actions {
		if w.plan.Actions[i].At == 0 {
			w.plan.Actions[i].Apply(armer{actuator{w: w, i: i}})
			w.mf.prearmed[i] = true
		}
	}
}

// armer is the world as a [faults.Target] that only arms rules: every
// other kind of action is ignored.
type armer struct{ actuator }

func (armer) Pause(string, time.Duration)    {}
func (armer) Stall(string, time.Duration)    {}
func (armer) Crash(string)                   {}
func (armer) Shutdown(string, time.Duration) {}
func (armer) Restart(string, bool)           {}
func (armer) Cut(string, string)             {}
func (armer) Heal(string, string)            {}
func (armer) SetDrift(string, int32)         {}

// The plan's "late" action (faults.Late): a request reaches its server a
// given time after the network would deliver it, and the server handles
// it even if its client closed the connection or a partition cut the
// link meanwhile (a retransmitted TCP segment on a server socket that
// never saw the close). The requests sent behind it on the connection
// wait behind it.

// lateRule is an armed late action.
type lateRule struct {
	typ            string // request type, "" for any
	n              int64
	client, server simnet.NodeID
	d              sim.Time
	// seen counts the link's requests of typ so far (typ != "").
	seen int64
	used bool
	act  int32 // its plan action (report only, as dropRule's)
}

// lateConn is a connection whose deliveries in one direction wait behind
// a late message until until.
type lateConn struct {
	conn  simnet.Conn
	dir   simnet.Direction
	until sim.Time
}

// ArmLate arms a late rule ([faults.Late]).
func (t actuator) ArmLate(typ string, n int64, client, server string, d time.Duration) {
	if t.w.prearmed(t.i) {
		return
	}
	t.w.mf.lates = append(t.w.mf.lates, lateRule{typ: typ, n: n, client: t.w.nodeOf(client), server: t.w.nodeOf(server), d: sim.Time(d), act: int32(t.i)})
}

// requestType is a request's type name as plan lines and scripts name it:
// its description up to '#' ("EndTxn", "Produce").
func requestType(m model.Message) string {
	d := m.AppendDescription(nil)
	if i := bytes.IndexAny(d, "# "); i >= 0 {
		d = d[:i]
	}
	return string(d)
}

// lateDelivery returns the arrival time of a message sent at now that the
// network would deliver at at: later when a late rule holds it or a late
// message holds its connection. A held request is marked late.
func (w *World) lateDelivery(now, at sim.Time, c simnet.Conn, dir simnet.Direction, wr *wire, from, to simnet.NodeID) sim.Time {
	mf := &w.mf
	for _, lc := range mf.lateConns {
		if lc.conn == c && lc.dir == dir && lc.until > at {
			at = lc.until
		}
	}
	if dir != simnet.Request || len(mf.lates) == 0 {
		return at
	}
	typ := ""
	for i := range mf.lates {
		r := &mf.lates[i]
		if r.used || r.client != c.Client || r.server != c.Server {
			continue
		}
		hit := r.typ == "" && r.n == wr.reqNo
		if r.typ != "" {
			if typ == "" {
				typ = requestType(wr.m)
			}
			if typ == r.typ {
				r.seen++
				hit = r.seen == r.n
			}
		}
		if !hit {
			continue
		}
		r.used = true
		w.ruleFired(now, r.act)
		wr.late = true
		at += r.d
		mf.lateConns = append(mf.lateConns, lateConn{conn: c, dir: dir, until: at})
		w.note(now, from, "holds "+string(wr.m.AppendDescription(nil))+" -> "+w.names[to]+" "+
			time.Duration(r.d).String()+" late: it arrives at "+at.String()+" whatever happens to its connection (plan: late)")
	}
	return at
}
