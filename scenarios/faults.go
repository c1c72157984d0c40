package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/model"
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
	// driftPPM makes the process's timers run slow (+) or fast (-).
	driftPPM int32
}

// dropRule is an armed "drop request|response N client>server" action.
type dropRule struct {
	dir            simnet.Direction
	n              int64
	client, server simnet.NodeID
	used           bool
}

// initFaults sets up the fault state and the run's fault plan: the plan
// text when given (a replay), else the scenario's plan function, else the
// generic generator, drawn from the stream "faults". It schedules every
// action as an evFault.
func (w *World) initFaults(planText string, planFile PlanSource) error {
	w.nodes = make([]nodeState, len(w.names))
	w.reqCount = make([]int64, len(w.names)*len(w.names))
	w.resend = w.vals.Bool("fault.producer.resend")
	nodes := simnet.Nodes{Servers: []string{w.names[w.brokerID], w.names[w.coordID]}}
	for _, in := range w.instances {
		nodes.Clients = append(nodes.Clients, in.name)
	}
	var last time.Duration
	for _, a := range w.apps {
		last = max(last, time.Duration(a.records)*a.interval)
	}
	if planText != "" || planFile.PlanFile() != "" {
		p, err := simnet.ParsePlan(planText)
		if err != nil {
			return planErr(planFile, err)
		}
		w.plan = p
	} else {
		rng := w.rngFor("faults")
		if w.sc.plan != nil {
			w.plan = w.sc.plan(rng, w.vals, nodes)
		} else {
			kinds, err := simnet.ParseFaultKinds(w.vals.Get("fault.kinds"))
			if err != nil {
				return err
			}
			window := w.vals.Duration("fault.window")
			if window == 0 {
				window = last + w.pcfg.RequestTimeout
			}
			w.plan = simnet.GeneratePlan(rng, simnet.GenOptions{
				Faults: int(w.vals.Int("fault.count")), Kinds: kinds, Window: window,
				End: w.defaultPlanEnd(last), MaxDuration: w.vals.Duration("fault.max_duration"), Nodes: nodes,
			})
		}
	}
	if w.plan.End == 0 {
		w.plan.End = w.defaultPlanEnd(last)
		for _, a := range w.plan.Actions {
			w.plan.End = max(w.plan.End, a.At)
		}
	}
	if err := w.plan.Check(w.names); err != nil {
		return planErr(planFile, err)
	}
	if err := w.checkRejects(); err != nil {
		return planErr(planFile, err)
	}
	for i := range w.plan.Actions {
		a := &w.plan.Actions[i]
		if a.Kind == simnet.Drop && (!slices.Contains(nodes.Clients, a.From) || !slices.Contains(nodes.Servers, a.To)) {
			return planErr(planFile, fmt.Errorf("line %d: drop link %s>%s must go from a producer (%v) to a server (%v)", a.Line, a.From, a.To, nodes.Clients, nodes.Servers))
		}
	}
	w.planEnd = sim.Time(w.plan.End)
	for i := range w.plan.Actions {
		w.loop.At(sim.Time(w.plan.Actions[i].At), Event{kind: evFault, n: uint64(i)})
	}
	return nil
}

// defaultPlanEnd is fault.end, or when 0 the last send plus
// delivery.timeout.ms: long enough for faults to reach every record.
func (w *World) defaultPlanEnd(last time.Duration) time.Duration {
	if e := w.vals.Duration("fault.end"); e > 0 {
		return e
	}
	return last + w.pcfg.DeliveryTimeout
}

// planErr names where a plan with an error came from: the scenario file's
// line for a plan embedded in one, else the -plan-file, else "fault plan".
func planErr(src PlanSource, err error) error {
	if src.Embedded {
		var line int
		msg := err.Error()
		if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
			_, reason, _ := strings.Cut(msg, ": ")
			return fmt.Errorf("%s:%d: plan: %s", src.File, src.Line+line-1, reason)
		}
		return fmt.Errorf("%s:%d: plan: %v", src.File, src.Line, err)
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

// instanceOf returns the producer instance at node n, or nil.
func (w *World) instanceOf(n simnet.NodeID) *instance {
	if int(n) < len(w.instances) {
		return w.instances[n]
	}
	return nil
}

// target returns the node an event is for, or -1 for world events.
func (w *World) target(ev Event) simnet.NodeID {
	switch ev.kind {
	case evStart, evWake, evDeliver, evDisconnect:
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
	st := &w.nodes[n]
	switch {
	case st.crashed:
		switch ev.kind {
		case evAppSend, evStart:
			w.hold(now, n, ev, "crashed")
		case evDeliver:
			w.loseDelivery(now, ev, "crashed")
		}
		// Wake-ups and notices of the dead incarnation vanish.
		return true
	case st.paused:
		w.hold(now, n, ev, "paused")
		return true
	}
	return false
}

func (w *World) hold(now sim.Time, n simnet.NodeID, ev Event, why string) {
	w.nodes[n].held = append(w.nodes[n].held, ev)
	b := w.trace.Begin(now)
	b = append(b, w.names[n]...)
	b = append(b, " holds "...)
	b = ev.AppendDescription(b)
	b = append(b, " ("...)
	b = append(b, why...)
	b = append(b, ')')
	w.trace.Commit(b)
}

// loseDelivery drops a delivery to a crashed node. In TCP mode the
// connection breaks (a refused or reset connection).
func (w *World) loseDelivery(now sim.Time, ev Event, why string) {
	wr := w.msgs[ev.msg]
	wr.refs--
	if wr.refs == 0 {
		delete(w.msgs, ev.msg)
	}
	b := w.trace.Begin(now)
	b = append(b, w.names[ev.node]...)
	b = append(b, " lost-on-wire "...)
	b = wr.m.AppendDescription(b)
	b = append(b, ' ')
	b = append(b, why...)
	w.trace.Commit(b)
	w.nw.Break(ev.tok.Conn)
	w.takeNotices(now)
}

// takeNotices schedules the disconnect notices of connections the network
// just broke.
func (w *World) takeNotices(now sim.Time) {
	for _, nt := range w.nw.TakeNotices(now) {
		in := w.instanceOf(nt.Conn.Client)
		if in == nil {
			continue
		}
		dest := int32(0)
		if nt.Conn.Server == w.coordID {
			dest = model.DestCoordinator
		}
		w.loop.At(nt.At, Event{kind: evDisconnect, node: int32(in.node), n: uint64(dest + 1), gen: in.inc, tok: simnet.Token{Conn: nt.Conn}})
	}
}

// disconnected delivers a disconnect notice, unless the instance has since
// moved to another connection or incarnation.
func (w *World) disconnected(now sim.Time, ev Event) {
	in := w.instances[ev.node]
	dest := int32(ev.n) - 1
	if ev.gen != in.inc || in.conns[dest+1] != ev.tok.Conn {
		return
	}
	b := w.trace.Begin(now)
	b = append(b, in.name...)
	b = append(b, " disconnected "...)
	b = w.nw.AppendConn(b, ev.tok.Conn)
	w.trace.Commit(b)
	w.apply(now, in, in.prod.Disconnected(now, dest))
}

// planDrop reports whether an armed drop rule takes this message, and
// uses the rule up.
func (w *World) planDrop(dir simnet.Direction, reqNo int64, c simnet.Conn) bool {
	for i := range w.drops {
		r := &w.drops[i]
		if !r.used && r.dir == dir && r.n == reqNo && r.client == c.Client && r.server == c.Server {
			r.used = true
			return true
		}
	}
	return false
}

// drifted returns when a timer the process at n set for at fires: late
// or early by the node's drift, counted from now.
func (w *World) drifted(now sim.Time, n simnet.NodeID, at sim.Time) sim.Time {
	ppm := int64(w.nodes[n].driftPPM)
	if ppm == 0 || at <= now {
		return at
	}
	d := int64(at - now)
	return now + sim.Time(d+d/1_000_000*ppm+d%1_000_000*ppm/1_000_000)
}

// fault carries out plan action i.
func (w *World) fault(now sim.Time, i int) {
	a := &w.plan.Actions[i]
	b := w.trace.Begin(now)
	b = append(b, "fault "...)
	b = a.AppendTo(b)
	w.trace.Commit(b)
	w.noteFault(now, a)
	switch a.Kind {
	case simnet.Pause:
		n := w.nodeOf(a.Node)
		st := &w.nodes[n]
		if st.crashed {
			w.line(now, a.Node, "is crashed: pause ignored")
			return
		}
		until := min(now.Add(a.For), w.planEnd)
		st.paused = true
		st.pauseUntil = max(st.pauseUntil, until)
		w.loop.At(until, Event{kind: evResume, node: int32(n), n: uint64(i)})
	case simnet.Crash:
		w.crash(now, w.nodeOf(a.Node))
	case simnet.Restart:
		w.restart(now, w.nodeOf(a.Node), a.Clean)
	case simnet.Partition, simnet.PartitionOneWay, simnet.Heal, simnet.HealOneWay:
		both := a.Kind == simnet.Partition || a.Kind == simnet.Heal
		cut := a.Kind == simnet.Partition || a.Kind == simnet.PartitionOneWay
		for _, x := range a.A {
			for _, y := range a.B {
				p, q := w.nodeOf(x), w.nodeOf(y)
				if cut {
					w.nw.Cut(p, q)
				} else {
					w.nw.Heal(p, q)
				}
				if both && cut {
					w.nw.Cut(q, p)
				} else if both {
					w.nw.Heal(q, p)
				}
			}
		}
	case simnet.Drop:
		w.drops = append(w.drops, dropRule{dir: a.Dir, n: a.N, client: w.nodeOf(a.From), server: w.nodeOf(a.To)})
	case simnet.Drift:
		w.nodes[w.nodeOf(a.Node)].driftPPM = a.PPM
	case simnet.Reject:
		w.armReject(a)
	default:
		panic(fmt.Sprintf("scenarios: unknown fault kind %d", a.Kind))
	}
}

// endPause ends a pause whose time is up (a longer pause may have
// extended it).
func (w *World) endPause(now sim.Time, n simnet.NodeID) {
	if st := &w.nodes[n]; st.paused && now >= st.pauseUntil {
		w.resume(now, n)
	}
}

// resume ends n's pause: its held events run now, in their original order.
func (w *World) resume(now sim.Time, n simnet.NodeID) {
	st := &w.nodes[n]
	st.paused = false
	w.line(now, w.names[n], "resumes with "+strconv.Itoa(len(st.held))+" held events")
	w.noteNode(now, w.names[n], "resumes")
	w.replay(now, n)
}

// replay schedules n's held events now, in their original order.
func (w *World) replay(now sim.Time, n simnet.NodeID) {
	st := &w.nodes[n]
	for _, ev := range st.held {
		w.loop.At(now, ev)
	}
	st.held = st.held[:0]
}

// crash stops the process at n: its volatile state is gone. A producer
// instance's records in flight are abandoned (or kept for a resend with
// fault.producer.resend); a server's connections break.
func (w *World) crash(now sim.Time, n simnet.NodeID) {
	st := &w.nodes[n]
	if st.crashed {
		w.line(now, w.names[n], "is crashed already")
		return
	}
	st.crashed, st.paused = true, false
	// Held deliveries are lost; held sends of the application wait for
	// the restart.
	kept := st.held[:0]
	for _, ev := range st.held {
		switch ev.kind {
		case evAppSend, evStart:
			kept = append(kept, ev)
		case evDeliver:
			w.loseDelivery(now, ev, "crashed")
		}
	}
	st.held = kept
	if in := w.instanceOf(n); in != nil {
		in.inc++
		for _, c := range in.conns {
			if c.Gen != 0 {
				w.nw.Close(c)
			}
		}
		if !w.resend && len(in.unresolved) > 0 {
			w.abandoned += int64(len(in.unresolved))
			w.line(now, in.name, "crash abandons "+strconv.Itoa(len(in.unresolved))+" unresolved records")
			clear(in.unresolved)
		}
		return
	}
	for _, in := range w.instances {
		for _, c := range in.conns {
			if c.Gen != 0 && c.Server == n {
				w.nw.Break(c)
			}
		}
	}
	w.takeNotices(now)
}

// restart starts a crashed process again from what it persists: a broker
// keeps its partitions' logs (and, clean, its snapshot); the coordinator's
// state stands for its transaction log and is kept; a producer instance
// starts from nothing, and with fault.producer.resend its application
// sends its unresolved records again.
func (w *World) restart(now sim.Time, n simnet.NodeID, clean bool) {
	st := &w.nodes[n]
	if !st.crashed {
		w.line(now, w.names[n], "is not crashed: restart ignored")
		return
	}
	st.crashed = false
	w.line(now, w.names[n], "restarts")
	w.noteNode(now, w.names[n], "restarts")
	switch {
	case n == w.brokerID:
		for _, p := range w.broker.Partitions() {
			p.Restart(now, clean)
			if w.vals.Get("broker.restart.rebuild") == "none" {
				p.DropState()
			}
			w.chk.OnStateCheck(now, p.ID, p.StateDiff(now))
		}
	case n == w.coordID:
	default:
		in := w.instances[n]
		leaders := make([]int32, len(w.broker.Partitions()))
		in.prod = model.NewProducer(w.pcfg, in.app.id, leaders,
			sim.NewRand(w.seed, streamOf("producer/"+in.name+"/"+strconv.FormatUint(uint64(in.inc), 10))))
		clear(in.conns)
		if in.started {
			w.apply(now, in, in.prod.Start(now))
		}
		ids := make([]int64, 0, len(in.unresolved))
		for k := range in.unresolved {
			ids = append(ids, k)
		}
		slices.Sort(ids)
		for _, k := range ids {
			rec := in.unresolved[k]
			b := w.trace.Begin(now)
			b = append(b, in.name...)
			b = append(b, " app-resend "...)
			b = rec.ID.AppendID(b)
			b = append(b, " p"...)
			b = strconv.AppendInt(b, int64(rec.Partition), 10)
			w.trace.Commit(b)
			w.apply(now, in, in.prod.Send(now, rec))
		}
	}
	w.replay(now, n)
}

// faulty reports whether any process is paused or crashed.
func (w *World) faulty() bool {
	for i := range w.nodes {
		if w.nodes[i].paused || w.nodes[i].crashed {
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
	w.line(at, "fault", "plan end: faults off, network healed")
	w.noteNode(at, "fault", "plan end")
	w.nw.Quiet()
	w.drops = nil
	for i := range w.nodes {
		n := simnet.NodeID(i)
		st := &w.nodes[i]
		st.driftPPM = 0
		if st.crashed {
			w.restart(at, n, false)
		}
		if st.paused {
			w.resume(at, n)
		}
	}
}
