package world

import (
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

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
	// later messages wait behind a late one (world_late.go).
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
	t.w.mf.delays = append(t.w.mf.delays, dropRule{dir: dir, n: n, client: t.w.nodeOf(client), server: t.w.nodeOf(server)})
}

// ArmDuplicate arms a duplicate rule ([faults.Duplicate]).
func (t actuator) ArmDuplicate(dir simnet.Direction, n int64, client, server string) {
	if t.w.prearmed(t.i) {
		return
	}
	t.w.mf.dups = append(t.w.mf.dups, dropRule{dir: dir, n: n, client: t.w.nodeOf(client), server: t.w.nodeOf(server)})
}

// scheduleDelivery schedules a message's arrival event at its arrival time
// at, unless a delay rule or an earlier delayed message on the same tcp
// connection holds it back; a duplicate rule adds a copy right after it
// (datagram mode). wr is the message's wire.
func (w *World) scheduleDelivery(now, at sim.Time, ev Event, wr *wire, from, to simnet.NodeID) {
	mf := &w.mf
	c, dir := ev.tok.Conn, ev.tok.Dir
	at = w.lateDelivery(now, at, c, dir, wr, from, to) // world_late.go
	hold := takeRule(mf.delays, dir, wr.reqNo, c)
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
	if takeRule(mf.dups, dir, wr.reqNo, c) {
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
// actions' evFault events still print their lines in plan order; their
// rules are not armed twice.
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

func (armer) Pause(string, time.Duration) {}
func (armer) Stall(string, time.Duration) {}
func (armer) Crash(string)                {}
func (armer) Restart(string, bool)        {}
func (armer) Cut(string, string)          {}
func (armer) Heal(string, string)         {}
func (armer) SetDrift(string, int32)      {}
