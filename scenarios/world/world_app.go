package world

import (
	"cmp"
	"math"
	"slices"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/sim"
)

// Applications and their producer instances: the application side of the
// world, which hands records to the producer state machine and carries out
// its effects.

// addApp adds an application with one producer instance that starts at t.
func (w *World) addApp(start sim.Time) *app {
	ac := &w.cfg.App
	a := w.spare.app()
	*a = app{id: int32(len(w.apps)), handBack: w.eosFetch(nil), records: ac.Records, interval: ac.SendInterval, idleAfter: ac.IdleAfter, idle: ac.Idle,
		resolved: a.resolved[:0], abandoned: a.abandoned[:0], instances: a.instances[:0]}
	w.apps = append(w.apps, a)
	for i := 0; i == 0 || ac.GroupApp() && i < ac.Instances; i++ {
		w.addInstance(a, start) // world_group.go: a group application's run at once
	}
	return a
}

// addInstance adds a producer instance of a, starting at t.
func (w *World) addInstance(a *app, start sim.Time) *instance {
	in := w.spare.instance()
	*in = instance{app: a, index: len(a.instances), name: InstanceName(len(w.instances)), unresolved: in.unresolved, conns: in.conns[:0]}
	a.instances = append(a.instances, in)
	w.instances = append(w.instances, in)
	// Instances take the first node ids, in order. Their starts are
	// scheduled once the fault plan is (initFaults), so that plan actions
	// at the same time, such as the drops a realized plan arms at 0s, come
	// first.
	w.starts = append(w.starts, timedEvent{at: start, ev: Event{kind: evStart, node: int32(len(w.instances) - 1)}})
	return in
}

// current returns the instance the app runs on: its newest started one;
// in an exactly-once app whose newest instance stopped on a fatal error
// (fenced by an older instance whose InitProducerId reached the
// coordinator last, and so got the newer epoch), the newest older one
// that holds a producer id and no fatal error, whose process goes on
// with its consume-transform-produce loop.
func (a *app) current() *instance {
	var newest *instance
	for i := len(a.instances) - 1; i >= 0; i-- {
		switch in := a.instances[i]; {
		case !in.started:
		case newest == nil:
			if newest = in; !a.handBack || in.prod.Fatal() == model.ErrNone {
				return in
			}
		case in.active && in.prod.Fatal() == model.ErrNone:
			return in
		}
	}
	return newest
}

// start starts producer instance in.
func (w *World) start(now sim.Time, in *instance) {
	in.started = true
	w.emit(model.Obs{Kind: model.ObsStart, At: now, Node: int32(in.node), Peer: -1, App: in.app.id})
	if !in.pcfg.EnableIdempotence {
		w.activate(now, in)
	}
	w.apply(now, in, in.prod.Start(now))
	if w.groupApp {
		return // its consumer joins the group after initTransactions (activate)
	}
	if in.index == 0 {
		if w.eosFetch(in) {
			// A consume-transform-produce loop reads its input only
			// after initTransactions, from the committed position
			// (activate, resumeInput).
			return
		}
		if !w.readInput(now, in, nil) { // world_input.go
			w.schedule(now, Event{kind: evAppSend, app: in.app.id})
		}
	} else {
		w.takeover(now, in)
	}
}

func (w *World) appSend(now sim.Time, a *app) {
	if a.next >= a.records {
		return
	}
	in := a.current()
	w.sendNew(now, in, int32(a.next%int64(len(w.topo.Leaders))))
	if a.next == a.records {
		// The application's stream ends: commit what is open.
		w.apply(now, in, in.prod.Flush(now))
	}
	if a.next < a.records {
		d := a.interval
		if a.idleAfter > 0 && a.next == a.idleAfter {
			d += a.idle
			w.emit(model.Obs{Kind: model.ObsAppIdle, At: now, Node: int32(in.node), Peer: -1, App: a.id, Dur: sim.Time(a.idle)})
		}
		w.loop.After(d, Event{kind: evAppSend, app: a.id, n: a.chain})
	}
}

// sendNew hands the application's next record, for partition part, to
// instance in.
func (w *World) sendNew(now sim.Time, in *instance, part int32) model.Record {
	a := in.app
	id := model.RecordID{App: a.id, N: a.next}
	rec := model.Record{ID: id, Digest: model.Digest(id, 0), Partition: part, SentAt: now}
	a.next++
	in.unresolved.PutStandard(rec)
	again := id.N < a.high
	if in.cons != nil { // an input topic (world_input.go)
		again = a.handed.Has(id.N)
		a.handed.Set(id.N)
	}
	if again {
		// An exactly-once application that resumed at its committed
		// position processes this input record again: the same record,
		// not a new one.
		return w.resendRecord(now, in, rec, true)
	}
	a.high = max(a.high, a.next)
	o := w.slot(model.ObsAppSend, now, int32(in.node), -1)
	o.App, o.Record = a.id, rec
	w.fire(o)
	w.apply(now, in, in.prod.SendAt(now, w.clock(now, in.node), rec))
	return rec
}

// resendRecord hands rec to in again (a takeover or restart resend, an
// exactly-once rewind); withPart: the trace line names the partition.
// The hand-over takes the application's next resend number
// ([model.Record.Resend]), which in's unresolved copy of the record, if it
// holds one, takes too; it returns the record as handed over.
func (w *World) resendRecord(now sim.Time, in *instance, rec model.Record, withPart bool) model.Record {
	a := in.app
	if a.resends == math.MaxUint32 {
		panic("world: an application handed records over again 2^32-1 times")
	}
	a.resends++
	rec.Resend = a.resends
	if in.unresolved.Has(rec.ID.N) {
		in.unresolved.Put(rec)
	}
	w.emit(model.Obs{Kind: model.ObsAppResend, At: now, Node: int32(in.node), Peer: -1, App: in.app.id, Record: rec, Flag: withPart})
	w.apply(now, in, in.prod.SendAt(now, w.clock(now, in.node), rec))
	return rec
}

// takeover starts a later instance of an application: it takes over the
// app's stream of sends. At least once (app.mode), it first sends again the
// records its older instances have not resolved (an at-least-once
// application failing over to a new process). Exactly once, it resumes
// from the committed input position once it has its producer id
// (resumeInput). In a scripted world the script decides (Script.Replay).
func (w *World) takeover(now sim.Time, in *instance) {
	a := in.app
	a.chain++
	w.emit(model.Obs{Kind: model.ObsTakeover, At: now, Node: int32(in.node), Peer: -1, App: a.id})
	switch {
	case !w.mode.drivesApps():
	case w.cfg.App.Mode == params.AppExactlyOnce:
		if in.active {
			w.resumeInput(now, in)
		}
		return
	default:
		if w.readInput(now, in, nil) { // from the committed offsets
			return
		}
		var recs []model.Record
		for _, old := range a.instances[:in.index] {
			old.unresolved.Each(func(r model.Record) { recs = append(recs, r) })
		}
		slices.SortFunc(recs, func(a, b model.Record) int { return cmp.Compare(a.ID.N, b.ID.N) }) // numbers are unique
		for _, rec := range recs {
			if in.unresolved.Has(rec.ID.N) {
				continue
			}
			in.unresolved.Put(rec)
			w.resendRecord(now, in, rec, false)
		}
	}
	if a.next < a.records {
		w.schedule(now, Event{kind: evAppSend, app: a.id, n: a.chain})
	}
}

// resumeInput has an exactly-once instance's application fetch its
// committed input position from the group coordinator (its consumer's
// OffsetFetch with require_stable, delivered at once) and resume sending
// there; records a committed transaction holds are not sent again. While a
// transaction holds a pending commit for the group (an older instance's,
// until the coordinator aborts it), the fetch is retried after
// retry.backoff.ms.
func (w *World) resumeInput(now sim.Time, in *instance) {
	in.resuming = in.cons != nil
	g := w.destNode(model.DestGroupCoordinator)
	if w.nodes[g].fault.crashed || w.nodes[g].fault.paused {
		w.schedule(now.Add(in.pcfg.RetryBackoff), Event{kind: evAppResume, node: int32(in.node)})
		return
	}
	h := w.pushRoute(route{client: in.node, app: in})
	w.serverOuts(now, g, w.nodes[g].srv.Step(now, model.Peer{Node: int32(in.node), Handle: h}, &model.OffsetFetchRequest{GroupID: model.GroupOf(in.app.id)}))
}

// offsetFetched resumes in's application at the committed position.
func (w *World) offsetFetched(now sim.Time, in *instance, r *model.OffsetFetchResponse) {
	a := in.app
	if r.Err != model.ErrNone {
		w.schedule(now.Add(in.pcfg.RetryBackoff), Event{kind: evAppResume, node: int32(in.node)})
		return
	}
	if in != a.current() {
		return // a newer instance took over meanwhile
	}
	a.next = max(r.Offset, 0)
	// The input restarts here: sends scheduled by an earlier resume stop.
	a.chain++
	w.emit(model.Obs{Kind: model.ObsAppResume, At: now, Node: int32(in.node), Peer: -1, App: a.id, N: a.next})
	if in.cons != nil && w.readInput(now, in, w.input.Positions(a.next)) { // its consumer seeks there
		return
	}
	if a.next < a.records {
		w.schedule(now, Event{kind: evAppSend, app: a.id, n: a.chain})
	}
}

// activate marks in as its app's live instance; older ones become zombies.
func (w *World) activate(now sim.Time, in *instance) {
	if in.active {
		return
	}
	in.active = true
	w.emit(model.Obs{Kind: model.ObsActive, At: now, Node: int32(in.node), Peer: -1, App: in.app.id})
	if w.eosFetch(in) && in.started {
		// initTransactions is done: the older instances are fenced and
		// their open transaction aborted; read the committed position.
		w.resumeInput(now, in)
	} else if w.groupApp && in.started {
		w.consOuts(now, in, in.cons.StartAt(now, nil)) // subscribe, then poll
	}
}

// apply carries out a producer's effects.
func (w *World) apply(now sim.Time, in *instance, outs []model.Out) {
	if p := w.probe.parts; p != nil { // the state hash's marks (statehash.go)
		p.Dirty(int(in.node))
	}
	if len(outs) == 0 {
		return
	}
	if len(outs) > model.OutsKeptMax {
		// A burst (a backlog expiring): the producer never reuses so
		// large a slice, and carries no observations in it.
		w.applyOuts(now, in, outs)
		return
	}
	// No defer for the release: a run that panics is dropped, World
	// and nodes (a Runner's next run rebuilds both).
	if in.prod.HoldEffects(outs) {
		// Carried out in place: a call into the producer meanwhile
		// writes to other buffers (model/hold.go).
		w.applyOuts(now, in, outs)
		in.prod.ReleaseEffects()
		return
	}
	outs = w.effs.Push(outs)
	w.applyOuts(now, in, outs)
	w.effs.Pop()
}

// applyOuts carries out a producer's effects from a slice the producer
// will not write again while they are carried out.
func (w *World) applyOuts(now sim.Time, in *instance, outs []model.Out) {
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case model.OutConnect:
			if k := w.connIdx(o.Dest); in.cons != nil && w.groupApp && in.cconns[k].Gen != 0 && w.nw.Alive(in.cconns[k]) {
				in.conns[k] = in.cconns[k] // world_group.go: the instance's one connection
			} else {
				in.conns[k] = w.nw.Connect(in.node, w.destNode(o.Dest))
			}
		case model.OutClose:
			w.nw.Close(in.conns[w.connIdx(o.Dest)])
			w.mode.connsDown(w, now)
		case model.OutSend:
			c := in.conns[w.connIdx(o.Dest)]
			link := int(c.Client)*len(w.names) + int(c.Server)
			w.reqCount[link]++
			w.send(now, wire{m: o.Msg, client: in.node, server: c.Server, inst: in, dest: o.Dest, inc: w.nodes[in.node].inc, reqNo: w.reqCount[link]}, c, simnet.Request)
		case model.OutWake:
			w.schedule(w.drifted(now, in.node, o.At), Event{kind: evWake, node: int32(in.node), n: o.Timer, gen: w.nodes[in.node].inc})
		case model.OutResult:
			// A record acknowledged inside a transaction stays in the
			// instance's hands until the transaction ends: at least
			// once, a takeover sends it again if it is still open.
			if o.Result.Err != model.ErrNone || !in.prod.InTransaction(o.Result.ID) {
				in.unresolved.Delete(o.Result.ID.N)
				in.awaiting = slices.DeleteFunc(in.awaiting, func(n int64) bool { return n == o.Result.ID.N })
			}
			in.app.resolved.Set(o.Result.ID.N)
			ob := w.slot(model.ObsOutcome, now, int32(in.node), -1)
			ob.App, ob.Outcome = in.app.id, *o.Result
			w.fire(ob)
		case model.OutTxnResult:
			for _, id := range o.Txn.Records {
				in.unresolved.Delete(id.N)
			}
			// o.Txn.Dropped stay unresolved: the application sends them
			// again after it rewinds (below), or they are pending.
			verb := "aborted"
			switch {
			case o.Txn.Committed:
				verb = "committed"
			case o.Txn.Failed:
				verb = "failed"
			}
			w.emit(model.Obs{Kind: model.ObsTxnOutcome, At: now, Node: int32(in.node), Peer: -1, App: in.app.id,
				Flag: o.Txn.Committed, Err: o.Txn.Err, Text: verb, N: int64(len(o.Txn.Records)), IDs: o.Txn.Records, Txn: o.Txn.Txn})
			w.inputTxn(now, in, o.Txn) // world_input.go
			if w.groupApp {
				w.groupTxnEnd(now, in, o.Txn) // world_group.go
			}
			if !o.Txn.Committed && !o.Txn.Failed && w.eosFetch(in) && in == in.app.current() {
				// A consume-transform-produce loop seeks its consumer back
				// to the committed offsets after abortTransaction: the input
				// stops until the group coordinator says where, and the
				// aborted records are consumed and sent again.
				in.app.chain++
				w.resumeInput(now, in)
			}
		case model.OutNote:
			ob := model.Obs{Kind: model.ObsNote, At: now, Node: int32(in.node), Peer: -1, App: in.app.id, Text: o.Note, NoteKind: o.NoteKind}
			if o.Batch != nil {
				ob.Batch = *o.Batch // a NoteExpired: its text is model.ExpiredNote's
			}
			if o.NoteKind == model.NoteFatal {
				ob.Err = in.prod.Fatal()
			}
			w.emit(ob)
			if o.NoteKind == model.NotePID {
				w.activate(now, in)
			}
			if o.NoteKind == model.NoteFatal && in.app.handBack && w.eosFetch(in) {
				if c := in.app.current(); c.index < in.index && c.active {
					// The older instance's loop goes on: it polls from
					// the committed position (current).
					w.schedule(now, Event{kind: evAppResume, node: int32(c.node)})
				}
			}
		}
	}
	if in.cons != nil {
		w.inputAcked(now, in) // world_input.go
	}
}
