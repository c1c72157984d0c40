package world

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// nodeState is a process's fault state.
type nodeState struct {
	// paused: the process handles nothing until pauseUntil (or the plan's
	// end); its events wait in held.
	paused     bool
	pauseUntil sim.Time
	// crashed: the process is down until a restart. Deliveries to it are
	// lost; an application's sends wait in held.
	crashed bool
	// held are events that arrived while the process was paused or
	// crashed, in their original (time, seq) order.
	held []Event
	// driftPPM makes the process's timers run slow (+) or fast (-), and
	// its clock with them: clockOff is how far its clock was ahead of the
	// simulated time at clockAt, when the drift last changed.
	driftPPM int32
	clockOff sim.Time
	clockAt  sim.Time
	// inbox holds server-to-server messages that reached the process
	// while it was crashed, for its restart (a scripted world only:
	// world_server.go).
	inbox []internalMsg
	// stalled: a server's request handlers stop until stallUntil (or the
	// plan's end); requests keep arriving and its timers keep running.
	stalled    bool
	stallUntil sim.Time
	stopped    bool // crashed by a controlled shutdown: restarts clean
}

// dropRule is an armed "drop request|response N client>server" action
// (or a delay's, a duplicate's); act is its plan action, whose line
// prints when the rule fires (report only: the state hash leaves it out).
type dropRule struct {
	dir            simnet.Direction
	n              int64
	client, server simnet.NodeID
	used           bool
	act            int32
}

// initFaults sets up the fault state and the run's fault plan: the plan
// text when given (a replay), else the scenario's plan function, else the
// generic generator, drawn from the stream "faults". It schedules every
// action as an evFault.
func (w *World) initFaults(planText string, planFile PlanSource) error {
	w.reqCount = zeroed(w.reqCount, len(w.names)*len(w.names))
	w.resend = w.cfg.Fault.ProducerResend
	// The run's plan is made from lists in storage the World keeps from
	// run to run: the plan may hold slices of them (a cut's sides), and
	// it is the run's alone (a Result holds its text).
	if k := 4 * len(w.nodes); cap(w.nodesBuf) < k {
		w.nodesBuf = make([]string, k)
	}
	nodes := w.faultNodes(w.nodesBuf)
	tm := w.timing()
	if planText != "" || planFile.PlanFile() != "" {
		p, err := faults.Parse(planText)
		if err != nil {
			return planErr(planFile, err)
		}
		w.plan = p
	} else {
		rng := w.rngFor("faults")
		if w.setup.Plan != nil {
			w.plan = w.setup.Plan(rng, w.vals, nodes)
		} else {
			kinds := w.cfg.Fault.Kinds
			window := w.cfg.Fault.Window
			if window == 0 {
				window = tm.LastSend + w.pcfg.RequestTimeout
			}
			w.plan = faults.Generate(rng, faults.GenOptions{
				Faults: w.cfg.Fault.Count, Kinds: kinds, Window: window,
				End: tm.DefaultEnd(), MaxDuration: w.cfg.Fault.MaxDuration, Nodes: nodes,
			})
		}
	}
	if w.plan.End == 0 {
		w.plan.End = tm.DefaultEnd()
		for _, a := range w.plan.Actions {
			w.plan.End = max(w.plan.End, a.At)
		}
	}
	if err := w.plan.Check(nodes); err != nil {
		return planErr(planFile, err)
	}
	if err := w.plan.CheckLimit(tm); err != nil {
		return planErr(planFile, err)
	}
	w.planEnd = sim.Time(w.plan.End)
	w.prearm() // fate.go
	for i := range w.plan.Actions {
		w.schedule(sim.Time(w.plan.Actions[i].At), Event{kind: evFault, n: uint64(i)})
	}
	// The instances start after the plan's actions of the same time: a
	// drop or reject armed at 0s is in place for the first request.
	for _, s := range w.starts {
		w.schedule(s.at, s.ev)
	}
	w.starts = w.starts[:0]
	return nil
}

// faultNodes returns the world's nodes as fault plans name them:
// producer instances (clients; a scripted world's free slots left out),
// servers, and among them the brokers. The four lists share buf's
// storage when it has room for them, else a new array.
func (w *World) faultNodes(buf []string) faults.Nodes {
	n := len(w.nodes)
	if cap(buf) < 4*n {
		buf = make([]string, 4*n)
	}
	buf = buf[:4*n]
	clear(buf)
	nodes := faults.Nodes{Clients: buf[:0:n], Servers: buf[n : n : 2*n], Brokers: buf[2*n : 2*n : 3*n], Controllers: buf[3*n : 3*n : 4*n],
		Partitions: int32(len(w.topo.Leaders))}
	for i := range w.nodes {
		nd := &w.nodes[i]
		switch nd.kind {
		case kindProducer:
			if nd.inst != nil {
				nodes.Clients = append(nodes.Clients, nd.name)
			}
		case kindBroker:
			nodes.Servers = append(nodes.Servers, nd.name)
			nodes.Brokers = append(nodes.Brokers, nd.name)
		case kindController:
			nodes.Servers = append(nodes.Servers, nd.name)
			nodes.Controllers = append(nodes.Controllers, nd.name)
		default: // a registered kind; the consumer and the admin (model.Starters) are no servers
			if _, client := nd.srv.(model.Starter); !client {
				nodes.Servers = append(nodes.Servers, nd.name)
			} else if d, _ := w.kindDest(simnet.NodeID(i)); d == model.DestAdmin {
				nodes.Admins = append(nodes.Admins, nd.name)
			}
		}
	}
	nodes.Partitions = int32(len(w.topo.Leaders))
	if w.groupApp {
		nodes.Members = nodes.Clients // world_member.go
	}
	return nodes
}

// timing is what the run's fault phase and time limit depend on.
func (w *World) timing() faults.Timing {
	t := faults.Timing{FaultEnd: w.cfg.Fault.End, DeliveryTimeout: w.pcfg.DeliveryTimeout, RequestTimeout: w.pcfg.RequestTimeout}
	for _, a := range w.apps {
		t.LastSend = max(t.LastSend, time.Duration(a.records)*a.interval)
	}
	return t
}

// planErr names where a plan with an error came from: the scenario file's
// line for a plan embedded in one, else the -plan-file, else "fault plan".
func planErr(src PlanSource, err error) error {
	if src.Embedded {
		msg := faults.FileLines(err.Error(), src.Line)
		var line int
		if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
			_, reason, _ := strings.Cut(msg, ": ")
			return fmt.Errorf("%s:%d: plan: %s", src.File, line, reason)
		}
		return fmt.Errorf("%s:%d: plan: %s", src.File, src.Line, msg)
	}
	if src.File != "" {
		return fmt.Errorf("-plan-file %s: %v", src.File, err)
	}
	return fmt.Errorf("fault plan: %v", err)
}

// nodeOf returns the id of a node named in the (checked) plan.
func (w *World) nodeOf(name string) simnet.NodeID {
	i := slices.Index(w.names, name)
	if i < 0 {
		panic("scenarios: unknown node " + name)
	}
	return simnet.NodeID(i)
}

// target returns the node an event is for, or -1 for world events.
func (w *World) target(ev Event) simnet.NodeID {
	switch ev.kind {
	case evDeliver:
		if ev.tok.Dir == simnet.Request {
			// A request arrives at a paused server too, into its receive
			// buffer; deliver handles a crashed one (world_handler.go).
			return -1
		}
		return simnet.NodeID(ev.node)
	case evStart, evWake, evDisconnect, evHandled, evAppResume, evAppPoll:
		return simnet.NodeID(ev.node)
	case evAppSend:
		if in := w.apps[ev.app].current(); in != nil {
			return in.node
		}
	}
	return -1
}

// gate holds or drops an event for a paused or crashed node and reports
// whether it did.
func (w *World) gate(now sim.Time, n simnet.NodeID, ev Event) bool {
	st := &w.nodes[n].fault
	switch {
	case st.crashed:
		switch ev.kind {
		case evAppSend, evStart, evAppResume:
			w.hold(now, n, ev, "crashed")
		case evDeliver:
			w.loseDelivery(now, ev, "crashed")
		}
		// Wake-ups and notices of the dead incarnation vanish.
		return true
	case st.paused:
		w.hold(now, n, ev, "paused")
		return true
	case st.stalled && ev.kind == evHandled:
		// The handlers are stopped; the process's timers run on.
		w.hold(now, n, ev, "stalled")
		return true
	}
	return false
}

func (w *World) hold(now sim.Time, n simnet.NodeID, ev Event, why string) {
	w.nodes[n].fault.held = append(w.nodes[n].fault.held, ev)
	w.emit(model.Obs{Kind: model.ObsHold, At: now, Node: int32(n), Peer: -1, Text: string(ev.AppendDescription(nil)), Fate: why})
}

// drifted returns when a timer the process at n set for at fires: late
// or early by the node's drift, counted from now.
func (w *World) drifted(now sim.Time, n simnet.NodeID, at sim.Time) sim.Time {
	ppm := int64(w.nodes[n].fault.driftPPM)
	if ppm == 0 || at <= now {
		return at
	}
	d := int64(at - now)
	return now + sim.Time(d+d/1_000_000*ppm+d%1_000_000*ppm/1_000_000)
}

// clock returns what process n's clock reads at now: the simulated time
// plus the offset its drift has built up. A drift of ppm stretches every
// local duration d to d+d*ppm/1e6 of simulated time (drifted), so R of
// simulated time is R*1e6/(1e6+ppm) on the clock. This is the hook through
// which a drifting producer stamps its records' CreateTime
// ([client.Producer.SendAt]); nothing else reads a process's clock.
func (w *World) clock(now sim.Time, n simnet.NodeID) sim.Time {
	st := &w.nodes[n].fault
	return now + st.clockOff + driftGain(now-st.clockAt, st.driftPPM)
}

// setDrift changes process n's drift at now, keeping the offset its clock
// built up so far.
func (w *World) setDrift(now sim.Time, n simnet.NodeID, ppm int32) {
	st := &w.nodes[n].fault
	st.clockOff += driftGain(now-st.clockAt, st.driftPPM)
	st.clockAt = now
	st.driftPPM = ppm
}

// driftGain is how far a clock drifting by ppm gets ahead (negative:
// behind) of the simulated time in r: r*1e6/(1e6+ppm) - r, in integers
// (ppm > -1e6, so the divisor is positive).
func driftGain(r sim.Time, ppm int32) sim.Time {
	if ppm == 0 || r <= 0 {
		return 0
	}
	den := int64(1_000_000) + int64(ppm)
	q, rem := int64(r)/den, int64(r)%den
	return sim.Time(q*1_000_000+rem*1_000_000/den) - r
}

// fault carries out plan action i.
func (w *World) fault(now sim.Time, i int) {
	a := &w.plan.Actions[i]
	if !faults.IsRule(a.Action) { // a rule's line prints when it fires (ruleFired)
		w.ruleFired(now, int32(i))
	}
	a.Apply(actuator{w: w, now: now, i: i})
}

// ruleFired prints plan action i's line: a node fault when it runs, a
// message rule when it fires.
func (w *World) ruleFired(now sim.Time, i int32) {
	w.emit(model.Obs{Kind: model.ObsFault, At: now, Node: -1, Peer: -1, N: int64(i), Text: string(w.plan.Actions[i].AppendTo(nil))})
}

// actuator is the world as the [faults.Target] of plan action i, carried
// out at now.
type actuator struct {
	w   *World
	now sim.Time
	i   int
}

// Pause holds the node's events until now+d (or the plan's end); a pause
// of a crashed node is ignored.
// Stall stops server node's request handlers until now+d (or the plan's
// end): requests keep arriving into its receive buffers and its timers
// keep running, but nothing is read or finished until the stall ends.
func (t actuator) Stall(node string, d time.Duration) {
	w, n := t.w, t.w.nodeOf(node)
	st := &w.nodes[n].fault
	if st.crashed {
		w.note(t.now, n, "is crashed: stall ignored")
		return
	}
	until := min(t.now.Add(d), w.planEnd)
	st.stalled = true
	st.stallUntil = max(st.stallUntil, until)
	w.schedule(until, Event{kind: evUnstall, node: int32(n), n: uint64(t.i)})
}

func (t actuator) Pause(node string, d time.Duration) {
	w, n := t.w, t.w.nodeOf(node)
	st := &w.nodes[n].fault
	if st.crashed {
		w.note(t.now, n, "is crashed: pause ignored")
		return
	}
	until := min(t.now.Add(d), w.planEnd)
	st.paused = true
	st.pauseUntil = max(st.pauseUntil, until)
	w.schedule(until, Event{kind: evResume, node: int32(n), n: uint64(t.i)})
}

func (t actuator) Crash(node string)               { t.w.crash(t.now, t.w.nodeOf(node)) }
func (t actuator) Restart(node string, clean bool) { t.w.restart(t.now, t.w.nodeOf(node), clean) }
func (t actuator) Cut(from, to string)             { t.w.nw.Cut(t.w.nodeOf(from), t.w.nodeOf(to)) }
func (t actuator) Heal(from, to string)            { t.w.nw.Heal(t.w.nodeOf(from), t.w.nodeOf(to)) }
func (t actuator) Shutdown(node string, d time.Duration) {
	if w, n := t.w, t.w.nodeOf(node); w.nodes[n].fault.crashed || w.nodes[n].fault.paused {
		w.note(t.now, n, "is crashed or paused: shutdown ignored")
	} else {
		w.serverOuts(t.now, n, w.nodes[n].broker.BeginShutdown(t.now, d))
	}
}

func (t actuator) ArmDrop(dir simnet.Direction, n int64, client, server string) {
	if t.w.prearmed(t.i) {
		return
	}
	t.w.drops = append(t.w.drops, dropRule{dir: dir, n: n, client: t.w.nodeOf(client), server: t.w.nodeOf(server), act: int32(t.i)})
}

func (t actuator) SetDrift(node string, ppm int32) {
	t.w.setDrift(t.now, t.w.nodeOf(node), ppm)
}

// ArmReject arms the rule at the broker; the plan's check has made sure
// server is a broker and code one of [faults.RejectErrors].
func (t actuator) ArmReject(n int64, client, server, code string, part int32) {
	if t.w.prearmed(t.i) {
		return
	}
	c, _ := model.ParseErrCode(code)
	t.w.nodes[t.w.nodeOf(server)].broker.ArmReject(broker.RejectRule{N: n, Client: int32(t.w.nodeOf(client)), Err: c, Part: part,
		Action: int32(t.i), Line: string(t.w.plan.Actions[t.i].AppendTo(nil))})
}

// DeleteRecords hands the request to the broker (model/broker/logstart.go).
func (t actuator) DeleteRecords(server string, part int32, before int64) {
	if n := t.w.nodeOf(server); !t.w.nodes[n].fault.crashed {
		t.w.serverOuts(t.now, n, t.w.nodes[n].broker.DeleteRecords(t.now, part, before))
	}
}

var _ faults.Target = actuator{}

// endPause ends a pause whose time is up (a longer pause may have
// extended it).
func (w *World) endPause(now sim.Time, n simnet.NodeID) {
	if st := &w.nodes[n].fault; st.paused && now >= st.pauseUntil {
		w.resume(now, n)
	}
}

// resume ends n's pause: its held events run now, in their original order.
func (w *World) resume(now sim.Time, n simnet.NodeID) {
	st := &w.nodes[n].fault
	st.paused = false
	w.emit(model.Obs{Kind: model.ObsResume, At: now, Node: int32(n), Peer: -1, N: int64(len(st.held)) + w.buffered(n)})
	w.replay(now, n)
	if w.isServer(n) {
		w.kickReads(now, n)
	}
}

// endStall ends a stall whose time is up (a longer stall may have
// extended it).
func (w *World) endStall(now sim.Time, n simnet.NodeID) {
	if st := &w.nodes[n].fault; st.stalled && now >= st.stallUntil {
		w.unstall(now, n)
	}
}

// unstall restarts n's request handlers: handling that was due runs now,
// then the buffered requests are read.
func (w *World) unstall(now sim.Time, n simnet.NodeID) {
	st := &w.nodes[n].fault
	st.stalled = false
	w.emit(model.Obs{Kind: model.ObsResume, At: now, Node: int32(n), Peer: -1, N: int64(len(st.held)) + w.buffered(n)})
	w.replay(now, n)
	w.kickReads(now, n)
}

// replay schedules n's held events now, in their original order.
func (w *World) replay(now sim.Time, n simnet.NodeID) {
	st := &w.nodes[n].fault
	for _, ev := range st.held {
		w.schedule(now, ev)
	}
	st.held = st.held[:0]
}

// crash stops the process at n: its volatile state is gone. A producer
// instance's records in flight are abandoned (or kept for a resend with
// fault.producer.resend); a server's connections break.
func (w *World) crash(now sim.Time, n simnet.NodeID) {
	nd := &w.nodes[n]
	st := &nd.fault
	if st.crashed {
		w.note(now, n, "is crashed already")
		return
	}
	st.crashed, st.paused = true, false
	defer w.hostCrashed(now, n) // the coordinator goes down with its host (world_txnhost.go)
	// Held deliveries are lost; held sends of the application wait for
	// the restart.
	kept := st.held[:0]
	for _, ev := range st.held {
		switch ev.kind {
		case evAppSend, evStart, evAppResume:
			kept = append(kept, ev)
		case evDeliver:
			w.loseDelivery(now, ev, "crashed")
		}
	}
	st.held = kept
	st.stalled = false
	if nd.kind != kindProducer {
		w.dropReads(now, n)
	}
	nd.inc++
	if in := nd.inst; in != nil {
		for _, c := range in.conns {
			if c.Gen != 0 {
				w.nw.Close(c)
			}
		}
		w.crashInput(in) // world_input.go
		w.mode.connsDown(w, now)
		var abandoned int64
		if !w.resend && in.unresolved.Len() > 0 {
			abandoned = int64(in.unresolved.Len())
			in.unresolved.Each(func(rec model.Record) { in.app.abandoned.Set(rec.ID.N) })
			in.unresolved.Clear()
		}
		w.emit(model.Obs{Kind: model.ObsCrash, At: now, Node: int32(n), Peer: -1, N: abandoned})
		return
	}
	nd.srv.Crash()
	w.emit(model.Obs{Kind: model.ObsCrash, At: now, Node: int32(n), Peer: -1})
	for _, in := range w.instances {
		for _, c := range in.conns {
			if c.Gen != 0 && c.Server == n {
				w.nw.Break(c)
			}
		}
	}
	w.closeServerConns(n) // world_server.go
	w.takeNotices(now)
}

// restart starts a crashed process again from what it persists: a broker
// keeps its partitions' logs (and, clean, its snapshot); the coordinator's
// state stands for its transaction log and is kept; a producer instance
// starts from nothing, and with fault.producer.resend its application
// sends its unresolved records again.
func (w *World) restart(now sim.Time, n simnet.NodeID, clean bool) {
	nd := &w.nodes[n]
	st := &nd.fault
	if !st.crashed {
		w.note(now, n, "is not crashed: restart ignored")
		return
	}
	st.crashed, st.stopped = false, false
	defer w.hostRestarted(now, n) // a coordinator that went down with n comes back
	w.emit(model.Obs{Kind: model.ObsRestart, At: now, Node: int32(n), Peer: -1, Flag: clean})
	if nd.kind != kindProducer {
		w.serverOuts(now, n, nd.srv.Restart(now, clean))
		inbox := st.inbox
		st.inbox = nil
		for _, m := range inbox {
			w.stepServer(now, n, m.from, m.m, m.handle)
		}
	} else {
		in := nd.inst
		resume := w.restartInput(in) // world_restart.go
		// The new incarnation's producer is made in the crashed one's
		// memory: Reset makes it exactly what NewProducer would, and,
		// without Reclaim, lets go of what the old one handed out (its
		// requests may still be on the wire). Nothing reaches the old
		// incarnation any more: its messages and timers carry its
		// incarnation number and are dropped.
		in.prod.Reset(in.pcfg, in.app.id, w.topo.Leaders,
			w.rands.New(w.seed, streamOf("producer/"+in.name+"/"+strconv.FormatUint(uint64(nd.inc), 10))))
		clear(in.conns)
		if in.started {
			w.apply(now, in, in.prod.Start(now))
		}
		if resume {
			if in.started && !w.eosFetch(in) && !w.groupApp && in == in.app.current() {
				w.readInput(now, in, nil) // at least once: from the committed offsets
			}
			w.replay(now, n)
			return
		}
		recs := make([]model.Record, 0, in.unresolved.Len())
		in.unresolved.Each(func(rec model.Record) { recs = append(recs, rec) })
		for _, rec := range recs { // in message-number order
			w.resendRecord(now, in, rec, true)
		}
	}
	w.replay(now, n)
}

// shutdownEvent stops broker ev.node at the end of its controlled
// shutdown, as a crash, or restarts it clean.
func (w *World) shutdownEvent(now sim.Time, ev Event) {
	switch n, nd := simnet.NodeID(ev.node), &w.nodes[ev.node]; {
	case nd.inc != ev.gen: // the incarnation that asked is gone
	case ev.n > 0 && !nd.fault.crashed:
		w.crash(now, n)
		nd.fault.stopped = true
		w.schedule(sim.Time(ev.n-1), Event{kind: evShutdown, node: ev.node, gen: nd.inc})
	case ev.n == 0 && nd.fault.stopped:
		w.restart(now, n, true)
	}
}

// faulty reports whether any process is paused or crashed, or a message
// is delayed (fate.go).
func (w *World) faulty() bool {
	if len(w.mf.held) > 0 {
		return true
	}
	for i := range w.nodes {
		if st := &w.nodes[i].fault; st.paused || st.crashed || st.stalled {
			return true
		}
	}
	return false
}

// endFaults ends the fault phase at the plan's end: random faults stop,
// partitions heal, armed drops and drifts are cleared, crashed processes
// restart and paused ones resume.
func (w *World) endFaults(at sim.Time) {
	w.ended = true
	w.probe.touchAll() // statehash.go
	w.emit(model.Obs{Kind: model.ObsPlanEnd, At: at, Node: -1, Peer: -1})
	w.nw.Quiet()
	w.drops = nil
	w.releaseAllDelayed(at) // fate.go
	for i := range w.nodes {
		n := simnet.NodeID(i)
		st := &w.nodes[i].fault
		w.setDrift(at, n, 0)
		if st.crashed {
			w.restart(at, n, st.stopped)
		}
		if st.paused {
			w.resume(at, n)
		}
		if st.stalled {
			w.unstall(at, n)
		}
	}
}
