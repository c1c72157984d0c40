package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// instance is one producer instance (a process) of an application.
type instance struct {
	node  simnet.NodeID
	name  string
	app   *app
	index int // position among the app's instances
	prod  *model.Producer
	// conns holds the instance's connection per destination: index 0 is
	// the coordinator, 1+i broker i.
	conns   []simnet.Conn
	started bool
	// activeAt is when the instance got its producer id (or started,
	// without idempotence); later instances make earlier ones zombies.
	activeAt sim.Time
	active   bool
	// inc is the incarnation: it grows at every crash, so that wake-ups
	// and responses meant for an earlier incarnation are dropped.
	inc uint32
	// unresolved holds the records sent through this instance whose
	// outcome is unknown, by message number.
	unresolved map[int64]model.Record
}

// app is one application: a stream of records with stable ids, sent
// through its current producer instance.
type app struct {
	id        int32
	records   int64 // records to send
	next      int64 // next message number
	interval  time.Duration
	instances []*instance
	// chain numbers the app's stream of send events; a takeover starts a
	// new chain, and events of older chains are ignored.
	chain uint64
	// idleAfter and idle: after sending idleAfter records the application
	// pauses its sends for idle (0: never).
	idleAfter int64
	idle      time.Duration
}

// wire is a message on the network.
type wire struct {
	m    model.Message
	inst *instance // the producer end
	dest int32     // the server end, as a producer destination
	refs int       // scheduled deliveries (2 for a duplicated datagram)
	// inc is the producer's incarnation when it sent the request.
	inc uint32
	// reqNo numbers the request on its link (1-based, per run); a
	// response carries its request's number.
	reqNo int64
}

// World wires producers, brokers, the coordinator and the network to the
// event loop, dispatches events and feeds the checker. It is built from a
// [Scenario] and a seed by [Run].
type World struct {
	sc   *Scenario
	vals *Values
	seed uint64

	loop  sim.Loop[Event]
	trace *sim.Trace
	nw    *simnet.Network
	names []string

	pcfg      model.ProducerConfig
	cfgNotes  []string
	apps      []*app
	instances []*instance
	broker    *model.Broker
	brokerID  simnet.NodeID
	coordID   simnet.NodeID
	coord     *model.Coordinator
	// lastTxnCheck is the last transaction-timeout check boundary run.
	lastTxnCheck sim.Time
	bs           brokerSide

	msgs    map[uint64]*wire
	nextMsg uint64
	chk     *model.Checker

	errors       map[string]int64
	netStats     NetStats
	fenced       int64
	zombieWrites int64
	// zombieAttempts counts produce batches that reached the broker from
	// an instance after a newer one of its app became active;
	// zombieRejected those of them the broker rejected for a stale epoch.
	zombieAttempts int64
	zombieRejected int64
	latencies      []time.Duration

	// Faults (faults.go).
	plan    simnet.Plan
	planEnd sim.Time
	nodes   []nodeState // indexed by NodeID
	// reqCount[client*len(names)+server] counts the requests sent on
	// that link.
	reqCount  []int64
	drops     []dropRule
	ended     bool
	resend    bool
	abandoned int64

	// Realized plans and the event log (realize.go, explainlog.go).
	ex explainState
}

// Nodes' random streams are derived from these names.
func streamOf(name string) uint64 { return sim.StreamID(name) }

// newWorld builds the world for one run.
func newWorld(sc *Scenario, vals *Values, seed uint64, pcfg model.ProducerConfig, notes []string) (*World, error) {
	w := &World{sc: sc, vals: vals, seed: seed, pcfg: pcfg, cfgNotes: notes,
		trace: sim.NewTrace(), msgs: make(map[uint64]*wire), errors: make(map[string]int64)}
	if err := sc.build(w); err != nil {
		return nil, err
	}
	// Name the nodes: producer instances, then the broker and coordinator.
	for _, in := range w.instances {
		in.node = simnet.NodeID(len(w.names))
		w.names = append(w.names, in.name)
	}
	w.brokerID = simnet.NodeID(len(w.names))
	w.names = append(w.names, "b1")
	w.coordID = simnet.NodeID(len(w.names))
	w.names = append(w.names, "c1")

	ncfg, err := netConfig(vals)
	if err != nil {
		return nil, err
	}
	if err := ncfg.CheckNodes(w.names); err != nil {
		return nil, err
	}
	w.nw = simnet.New(ncfg, sim.NewRand(seed, streamOf("net")), w.names)
	parts := int(vals.Int("partitions"))
	w.broker = model.NewBroker(parts, model.PartitionConfig{
		Window:                  int(vals.Int("broker.window")),
		NoDedup:                 !vals.Bool("broker.dedup"),
		NoEpochCheck:            !vals.Bool("broker.epoch.check"),
		NoPartitionVerification: !vals.Bool("transaction.partition.verification.enable"),
		EmptyPartitionCheck:     vals.Bool("broker.empty.partition.check"),
		Seq:                     model.SeqSpace{Bits: uint8(vals.Int("sequence.bits"))},
		ProducerIDExpiration:    vals.Millis("producer.id.expiration.ms"),
	})
	w.coord = model.NewCoordinator(model.CoordinatorConfig{NextPID: model.ProducerID(vals.Int("coordinator.next.pid")), EpochBits: uint8(vals.Int("epoch.bits")),
		BugNoRotate: vals.Bool("coordinator.bug.no_rotate"), BugNoBumpOnTimeout: vals.Bool("coordinator.bug.no_bump_on_timeout")})
	w.initBrokerSide()
	w.chk = model.NewCheckerWith(model.CheckerConfig{Seq: pcfg.Seq, MaxEpoch: w.coord.Config().MaxEpoch()})
	leaders := make([]int32, parts)
	for _, in := range w.instances {
		in.prod = model.NewProducer(pcfg, in.app.id, leaders, sim.NewRand(seed, streamOf("producer/"+in.name)))
		in.conns = make([]simnet.Conn, 2)
	}
	return w, nil
}

// netConfig returns the network configuration Resolve decoded, validated.
func netConfig(v *Values) (simnet.Config, error) {
	c := v.Config().Net
	return c, c.Validate()
}

// addApp adds an application with one producer instance that starts at t.
func (w *World) addApp(start sim.Time) *app {
	a := &app{id: int32(len(w.apps)), records: w.vals.Int("records"), interval: w.vals.Millis("send.interval.ms"),
		idleAfter: w.vals.Int("app.idle.after"), idle: w.vals.Millis("app.idle.ms")}
	w.apps = append(w.apps, a)
	w.addInstance(a, start)
	return a
}

// addInstance adds a producer instance of a, starting at t.
func (w *World) addInstance(a *app, start sim.Time) *instance {
	in := &instance{app: a, index: len(a.instances), name: "p" + strconv.Itoa(len(w.instances)+1), unresolved: make(map[int64]model.Record)}
	a.instances = append(a.instances, in)
	w.instances = append(w.instances, in)
	w.loop.At(start, Event{kind: evStart, node: int32(len(w.instances) - 1)})
	return in
}

// current returns the app's newest started instance.
func (a *app) current() *instance {
	for i := len(a.instances) - 1; i >= 0; i-- {
		if a.instances[i].started {
			return a.instances[i]
		}
	}
	return nil
}

// Handle dispatches one event ([sim.Handler]).
func (w *World) Handle(now sim.Time, seq uint64, ev Event) {
	if n := w.target(ev); n >= 0 && w.gate(now, n, ev) {
		return
	}
	switch ev.kind {
	case evStart:
		in := w.instances[ev.node]
		in.started = true
		w.line(now, in.name, "start instance of app "+strconv.Itoa(int(in.app.id)))
		w.noteNode(now, in.name, "starts")
		if !w.pcfg.EnableIdempotence {
			w.activate(now, in)
		}
		w.apply(now, in, in.prod.Start(now))
		if in.index == 0 {
			w.loop.At(now, Event{kind: evAppSend, app: in.app.id})
		} else {
			w.takeover(now, in)
		}
	case evAppSend:
		if a := w.apps[ev.app]; ev.n == a.chain {
			w.appSend(now, a)
		}
	case evWake:
		in := w.instances[ev.node]
		if ev.gen != in.inc {
			return // a timer of a crashed incarnation
		}
		w.apply(now, in, in.prod.Wake(now, ev.n))
	case evDeliver:
		w.deliver(now, ev)
	case evFault:
		w.fault(now, int(ev.n))
	case evMetaFlap:
		w.line(now, "b1", "metadata flap: the topic briefly looks deleted")
		for _, in := range w.instances {
			if in.started && !w.nodes[in.node].crashed {
				w.apply(now, in, in.prod.MetadataFlap(now))
			}
		}
	case evResume:
		w.endPause(now, simnet.NodeID(ev.node))
	case evDisconnect:
		w.disconnected(now, ev)
	default:
		panic(fmt.Sprintf("scenarios: unknown event kind %d", ev.kind))
	}
}

func (w *World) appSend(now sim.Time, a *app) {
	if a.next >= a.records {
		return
	}
	in := a.current()
	id := model.RecordID{App: a.id, N: a.next}
	parts := int64(len(w.broker.Partitions()))
	rec := model.Record{ID: id, Digest: model.Digest(id, 0), Partition: int32(a.next % parts), SentAt: now}
	a.next++
	in.unresolved[id.N] = rec
	w.chk.OnSend()
	b := w.trace.Begin(now)
	b = append(b, in.name...)
	b = append(b, " app-send "...)
	b = id.AppendID(b)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(rec.Partition), 10)
	w.trace.Commit(b)
	w.noteApp(now, in, id)
	w.apply(now, in, in.prod.Send(now, rec))
	if a.next == a.records {
		// The application's stream ends: commit what is open.
		w.apply(now, in, in.prod.Flush(now))
	}
	if a.next < a.records {
		d := a.interval
		if a.idleAfter > 0 && a.next == a.idleAfter {
			d += a.idle
			w.line(now, in.name, "app goes idle for "+a.idle.String())
		}
		w.loop.After(d, Event{kind: evAppSend, app: a.id, n: a.chain})
	}
}

// destNode maps a producer destination to a network node.
func (w *World) destNode(dest int32) simnet.NodeID {
	if dest == model.DestCoordinator {
		return w.coordID
	}
	return w.brokerID
}

// apply carries out a producer's effects.
func (w *World) apply(now sim.Time, in *instance, outs []model.Out) {
	for i := range outs {
		o := &outs[i]
		switch o.Kind {
		case model.OutConnect:
			in.conns[o.Dest+1] = w.nw.Connect(in.node, w.destNode(o.Dest))
		case model.OutClose:
			w.nw.Close(in.conns[o.Dest+1])
		case model.OutSend:
			c := in.conns[o.Dest+1]
			link := int(c.Client)*len(w.names) + int(c.Server)
			w.reqCount[link]++
			w.send(now, in, o.Dest, o.Msg, c, simnet.Request, w.reqCount[link], in.inc)
		case model.OutWake:
			w.loop.At(w.drifted(now, in.node, o.At), Event{kind: evWake, node: int32(in.node), n: o.Timer, gen: in.inc})
		case model.OutResult:
			w.outcome(now, in, o.Result)
		case model.OutNote:
			w.line(now, in.name, o.Note)
			switch o.NoteKind {
			case model.NotePID:
				w.activate(now, in)
			case model.NoteFatal:
				w.errors[in.prod.Fatal().String()+"(fatal)"]++
			}
		}
	}
}

// activate marks in as its app's live instance; older ones become zombies.
func (w *World) activate(now sim.Time, in *instance) {
	if !in.active {
		in.active = true
		in.activeAt = now
	}
}

// isZombie reports whether a newer instance of in's app was active.
func (w *World) isZombie(in *instance) bool {
	for _, o := range in.app.instances[in.index+1:] {
		if o.active {
			return true
		}
	}
	return false
}

func (w *World) outcome(now sim.Time, in *instance, o model.Outcome) {
	delete(in.unresolved, o.ID.N)
	w.chk.OnOutcome(o)
	w.noteOutcome(now, in, o)
	b := w.trace.Begin(now)
	b = append(b, in.name...)
	if o.Err == model.ErrNone {
		b = append(b, " ack "...)
		b = o.ID.AppendID(b)
		b = append(b, " off="...)
		b = strconv.AppendInt(b, o.Offset, 10)
		w.latencies = append(w.latencies, now.Sub(o.SentAt))
	} else {
		b = append(b, " fail "...)
		b = o.ID.AppendID(b)
		b = append(b, ' ')
		b = append(b, o.Err.String()...)
		if o.Err == model.ErrDeliveryTimeout {
			w.errors[o.Err.String()]++
		}
	}
	w.trace.Commit(b)
}

// send puts m on the network from its sender and schedules its arrival.
func (w *World) send(now sim.Time, in *instance, dest int32, m model.Message, c simnet.Conn, dir simnet.Direction, reqNo int64, inc uint32) {
	var s simnet.Sent
	if w.planDrop(dir, reqNo, c) {
		s = w.nw.SendLost(now, c, dir)
	} else {
		s = w.nw.Send(now, c, dir)
	}
	w.takeNotices(now)
	w.netStats.count(dir, s.Fate)
	w.noteSend(now, in, dest, m, c, dir, reqNo, s)
	from, to := in.name, w.names[w.destNode(dest)]
	if dir == simnet.Response {
		from, to = to, from
	}
	b := w.trace.Begin(now)
	b = append(b, from...)
	b = append(b, " send "...)
	b = m.AppendDescription(b)
	b = append(b, " -> "...)
	b = append(b, to...)
	if s.Fate != simnet.Delivered {
		b = append(b, " DROPPED "...)
		b = append(b, s.Fate.String()...)
		if s.Forced {
			b = append(b, " (plan: "...)
			b = append(b, dir.String()...)
			b = append(b, ' ')
			b = strconv.AppendInt(b, reqNo, 10)
			b = append(b, ' ')
			b = w.nw.AppendConn(b, c)
			b = append(b, ')')
		}
	} else if s.Held > 0 {
		b = append(b, " reorder+"...)
		b = append(b, s.Held.String()...)
	}
	w.trace.Commit(b)
	if s.Fate != simnet.Delivered {
		return
	}
	if s.DupAt >= 0 {
		b := w.trace.Begin(now)
		b = append(b, from...)
		b = append(b, " dup "...)
		b = m.AppendDescription(b)
		b = append(b, " -> "...)
		b = append(b, to...)
		b = append(b, " at="...)
		b = s.DupAt.AppendTo(b)
		w.trace.Commit(b)
	}
	w.nextMsg++
	id := w.nextMsg
	wr := &wire{m: m, inst: in, dest: dest, refs: 1, inc: inc, reqNo: reqNo}
	w.msgs[id] = wr
	target := int32(w.destNode(dest))
	if dir == simnet.Response {
		target = int32(in.node)
	}
	w.loop.At(s.At, Event{kind: evDeliver, node: target, msg: id, tok: s.Tok})
	if s.DupAt >= 0 {
		wr.refs++
		w.loop.At(s.DupAt, Event{kind: evDeliver, node: target, msg: id, tok: s.Tok})
	}
}

// deliver hands an arriving message to its node.
func (w *World) deliver(now sim.Time, ev Event) {
	wr := w.msgs[ev.msg]
	wr.refs--
	if wr.refs == 0 {
		delete(w.msgs, ev.msg)
	}
	to := w.names[ev.node]
	f := w.nw.Arrive(ev.tok)
	w.takeNotices(now)
	why := f.String()
	if f == simnet.Delivered && ev.tok.Dir == simnet.Response && wr.inc != wr.inst.inc {
		f, why = simnet.Lost, "stale-incarnation"
	}
	w.noteArrive(now, ev.msg, f == simnet.Delivered, why)
	if f != simnet.Delivered {
		w.netStats.Dropped++
		b := w.trace.Begin(now)
		b = append(b, to...)
		b = append(b, " lost-on-wire "...)
		b = wr.m.AppendDescription(b)
		b = append(b, ' ')
		b = append(b, why...)
		w.trace.Commit(b)
		return
	}
	b := w.trace.Begin(now)
	b = append(b, to...)
	b = append(b, " recv "...)
	b = wr.m.AppendDescription(b)
	w.trace.Commit(b)
	if ev.node == int32(w.brokerID) || ev.node == int32(w.coordID) {
		w.txnTimeouts(now)
	}
	switch m := wr.m.(type) {
	case *model.AddPartitionsToTxnRequest, *model.EndTxnRequestMsg:
		w.coordinatorRequest(now, wr, m, ev.tok.Conn)
	case *model.TxnResponse:
		if m.Err != model.ErrNone {
			w.errors[m.Err.String()]++
		}
		w.apply(now, wr.inst, wr.inst.prod.Receive(now, wr.dest, m))
	case *model.ProduceRequest:
		w.handleProduce(now, wr, m, ev.tok.Conn)
	case *model.InitProducerIDRequest:
		w.send(now, wr.inst, wr.dest, w.initProducerID(now, m), ev.tok.Conn, simnet.Response, wr.reqNo, wr.inc)
	case *model.ProduceResponse:
		for _, p := range m.Partitions {
			if p.Err != model.ErrNone {
				w.errors[p.Err.String()]++
			}
		}
		w.apply(now, wr.inst, wr.inst.prod.Receive(now, wr.dest, m))
	case *model.InitProducerIDResponse:
		if m.Err != model.ErrNone {
			w.errors[m.Err.String()]++
		}
		w.apply(now, wr.inst, wr.inst.prod.Receive(now, wr.dest, m))
	default:
		panic(fmt.Sprintf("scenarios: cannot deliver %T", m))
	}
}

func (w *World) handleProduce(now sim.Time, wr *wire, req *model.ProduceRequest, c simnet.Conn) {
	w.expireCheck(now)
	w.handling(wr, req, c)
	resp, results := w.produce(now, req)
	zombie := w.isZombie(wr.inst)
	for i, r := range results {
		bt := &req.Batches[i]
		b := w.trace.Begin(now)
		b = append(b, "b1 "...)
		b = appendVerdict(b, bt, &r)
		if r.Err != model.ErrNone && r.Reason != "" {
			b = append(b, " ("...)
			b = append(b, r.Reason...)
			b = append(b, ')')
		}
		w.trace.Commit(b)
		w.noteBatch(now, bt, r)
		stale := r.Err == model.ErrInvalidProducerEpoch || r.Err == model.ErrProducerFenced
		if stale {
			w.fenced++
		}
		if zombie {
			w.zombieAttempts++
			if stale {
				w.zombieRejected++
			}
		}
		if r.Duplicate {
			w.chk.OnDuplicate(now, bt, w.broker.Partition(bt.Partition).EntryAt(r.FirstOffset))
		}
		if r.Err == model.ErrNone && !r.Duplicate {
			log := w.broker.Partition(bt.Partition).Log()
			w.chk.OnAppend(now, &log[len(log)-1])
			if zombie {
				w.zombieWrites += int64(len(bt.Records))
			}
		}
	}
	if resp != nil {
		w.send(now, wr.inst, wr.dest, resp, c, simnet.Response, wr.reqNo, wr.inc)
	}
}

// line commits a free-form trace line for node.
func (w *World) line(now sim.Time, node, text string) {
	b := w.trace.Begin(now)
	b = append(b, node...)
	b = append(b, ' ')
	b = append(b, text...)
	w.trace.Commit(b)
}

// pending returns the records the application sent whose outcome is
// unknown.
func (w *World) pending() int64 {
	var n int64
	for _, in := range w.instances {
		if w.nodes[in.node].crashed {
			n += int64(len(in.unresolved)) // waiting to be sent again
			continue
		}
		n += int64(in.prod.Pending())
	}
	return n
}

var _ sim.Handler[Event] = (*World)(nil)

// rngFor is kept for scenario builders that need their own stream.
func (w *World) rngFor(name string) *rand.Rand { return sim.NewRand(w.seed, streamOf(name)) }

// NetStats counts what happened to messages on the network.
type NetStats struct {
	// RequestsSent and ResponsesSent count messages put on the wire.
	RequestsSent  int64 `json:"requests_sent"`
	ResponsesSent int64 `json:"responses_sent"`
	// RequestsLost and ResponsesLost count loss draws that came up lost.
	RequestsLost  int64 `json:"requests_lost"`
	ResponsesLost int64 `json:"responses_lost"`
	// Dropped counts messages dropped for a broken connection or a
	// partition, at send or on the wire.
	Dropped int64 `json:"dropped"`
}

func (n *NetStats) count(dir simnet.Direction, f simnet.Fate) {
	if dir == simnet.Request {
		n.RequestsSent++
		if f == simnet.Lost {
			n.RequestsLost++
		}
	} else {
		n.ResponsesSent++
		if f == simnet.Lost {
			n.ResponsesLost++
		}
	}
	if f == simnet.ConnBroken || f == simnet.Partitioned {
		n.Dropped++
	}
}

// initProducerID runs an InitProducerId on the coordinator. Markers of a
// fenced transaction are written to the partitions at once: idemsim does
// not model the WriteTxnMarkers round-trip.
func (w *World) initProducerID(now sim.Time, m *model.InitProducerIDRequest) *model.InitProducerIDResponse {
	call := model.InitProducerIDCall{ProducerID: m.ExpectedPID, ProducerEpoch: m.ExpectedEpoch, TransactionTimeout: m.TransactionTimeout}
	if m.TransactionalID != "" {
		id := m.TransactionalID
		call.TransactionalID = &id
	}
	res := w.coord.InitProducerID(now, call)
	b := w.trace.Begin(now)
	b = append(b, "c1 init-producer-id "...)
	b = append(b, res.Err.String()...)
	if res.Err == model.ErrNone {
		b = append(b, " pid="...)
		b = strconv.AppendInt(b, int64(res.ProducerID), 10)
		b = append(b, " e="...)
		b = strconv.AppendInt(b, int64(res.Epoch), 10)
	}
	if res.Reason != "" {
		b = append(b, " ("...)
		b = append(b, res.Reason...)
		b = append(b, ')')
	}
	w.trace.Commit(b)
	if res.Err == model.ErrNone {
		w.chk.OnEpochAssigned(now, res.ProducerID, res.Epoch)
	}
	w.writeMarkers(now, m.TransactionalID, res.Markers)
	return &model.InitProducerIDResponse{CorrelationID: m.CorrelationID, Err: res.Err, PID: res.ProducerID, Epoch: res.Epoch}
}

// appendVerdict appends the broker's verdict on a batch: "append <batch>
// off=F..L", "duplicate <batch> off=F..L" or "reject <batch> ERROR".
func appendVerdict(b []byte, bt *model.Batch, r *model.AppendResult) []byte {
	switch {
	case r.Duplicate:
		b = append(b, "duplicate "...)
	case r.Err == model.ErrNone:
		b = append(b, "append "...)
	default:
		b = append(b, "reject "...)
	}
	b = bt.AppendDescription(b)
	if r.Err != model.ErrNone {
		b = append(b, ' ')
		return append(b, r.Err.String()...)
	}
	b = append(b, " off="...)
	b = strconv.AppendInt(b, r.FirstOffset, 10)
	b = append(b, ".."...)
	return strconv.AppendInt(b, r.LastOffset, 10)
}
