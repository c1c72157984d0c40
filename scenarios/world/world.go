package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/client"
	"github.com/idemsim/idemsim/model/consumer"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/model/storage"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/trace"
	"github.com/idemsim/idemsim/scenarios/world/internal/input"
	"github.com/idemsim/idemsim/scenarios/world/internal/outbuf"
	"github.com/idemsim/idemsim/scenarios/world/internal/store"
	"github.com/idemsim/idemsim/scenarios/world/internal/tally"
	"github.com/idemsim/idemsim/sim"
)

// nodeKind is the kind of a world node.
type nodeKind uint8

const (
	kindProducer nodeKind = iota
	kindBroker
	kindCoordinator
	// kindRegistered: a registered server kind's node (serverkind.go).
	kindRegistered
	// kindController: the KRaft controller of a replicated run
	// (world_repl.go).
	kindController
)

// node is one process of the world: a producer instance or a server. Its
// protocol lives in model; the world only wires it to the loop and the
// network.
type node struct {
	kind nodeKind
	name string
	// inst is the producer instance (kindProducer).
	inst *instance
	// srv is the server state machine (kindBroker, kindCoordinator);
	// broker is srv as a broker.
	srv    model.Server
	broker *broker.Broker
	// holder is srv as an [model.EffectHolder], or nil.
	holder model.EffectHolder
	// fault is the process's fault state (faults.go).
	fault nodeState
	// inc is the incarnation: it grows at every crash, so that timers and
	// responses meant for an earlier incarnation are dropped.
	inc uint32
	// handlerRand draws a server's request-handling times
	// (broker.processing.spread), made on first use.
	handlerRand *rand.Rand
	// out holds a server's connections to other servers, by their node
	// id (a zero Conn: none open; world_server.go).
	out []simnet.Conn
}

// instance is one producer instance (a process) of an application.
type instance struct {
	node  simnet.NodeID
	name  string
	app   *app
	index int // position among the app's instances
	prod  *client.Producer
	// pcfg is the instance's producer configuration: the run's, or in a
	// scripted world the one its script gave it.
	pcfg client.ProducerConfig
	// conns holds the instance's connection per destination: index 0 is
	// the coordinator, 1+i broker i.
	conns   []simnet.Conn
	started bool
	// active: the instance got its producer id (or started, without
	// idempotence); later instances make earlier ones zombies.
	active bool
	// unresolved holds the records sent through this instance whose
	// outcome is unknown, by message number.
	unresolved store.RecordSet
	// restarted: an exactly-once instance restarted after a crash; its
	// application resumes from the committed input position
	// (world_restart.go).
	restarted bool
	// cons reads the input topic (world_input.go; nil: synthetic), on
	// cconns; resuming: waiting for the committed position, polls are
	// dropped; awaiting: the last poll's records without an outcome.
	cons     *consumer.Consumer
	cconns   []simnet.Conn
	resuming bool
	awaiting []int64
	// revokeWait: onPartitionsRevoked waits for the transaction (world_group.go).
	revokeWait bool
}

// app is one application: a stream of records with stable ids, sent
// through its current producer instance.
type app struct {
	id      int32
	records int64 // records to send
	next    int64 // next message number
	// resolved holds the message numbers that got an outcome at some
	// instance; abandoned those a crash abandoned.
	resolved, abandoned store.Bitset
	// high is one past the highest message number ever sent: an
	// exactly-once application that resumes at its committed position
	// sends records below it again.
	high int64

	handed store.Bitset // numbers handed over (an input topic)
	// resends counts the records the application handed over again: the
	// last [model.Record.Resend] it gave.
	resends   uint32
	interval  time.Duration
	instances []*instance
	// chain numbers the app's stream of send events; a takeover starts a
	// new chain, and events of older chains are ignored.
	chain uint64
	// idleAfter and idle: after sending idleAfter records the application
	// pauses its sends for idle (0: never).
	idleAfter int64
	idle      time.Duration
	// handBack: an exactly-once app goes back to an older instance when
	// its newest stops on a fatal error (current).
	handBack bool
}

// wire is a message on the network between the client end of a
// connection (a producer instance, or a server talking to another server)
// and its server end.
type wire struct {
	m model.Message
	// client and server are the connection's ends; inst is the client's
	// producer instance, nil when the client is a server.
	client, server simnet.NodeID
	inst           *instance
	// dest is the server end as the client's destination index.
	dest int32
	refs int // scheduled deliveries (2 for a duplicated datagram)
	// inc is the client's incarnation when it sent the request.
	inc uint32
	// reqNo numbers the request on its link (1-based, per run); a
	// response carries its request's number.
	reqNo int64
	// cons: a request of the instance's consumer, or its answer.
	cons bool
	// late: a late rule ([faults.Late]) holds the request; it reaches its
	// server whatever happened to its connection or link meanwhile.
	late bool
}

// World wires producers, brokers, the coordinator and the network to the
// event loop. Nodes are pure state machines (model); the World hands each
// event to one node, carries out what the node returns, and emits every
// observation into one stream that the trace, the counters, the checkers
// and the spec's readers read. It is built from a [Setup] by a [Runner],
// or in scripted mode, where a test script decides about messages and
// time, by [NewScript].
type World struct {
	// setup is the run's setup: the scenario's build and plan functions
	// and the run's options.
	setup *Setup
	vals  *params.Values
	// cfg is the run's typed configuration, decoded once by Resolve.
	cfg      *params.Config
	groupApp bool // a group application (world_group.go)
	seed     uint64

	loop sim.Loop[Event]
	nw   *simnet.Network
	topo Topology

	input input.Layout // the input topic (world_input.go); Parts 0: none
	// nodes is the node table, indexed by node id: producer instances,
	// then brokers b1.., then the coordinator.
	nodes []node
	names []string
	// brokerNode maps a broker index to its node id; coordNode is the
	// coordinator's.
	brokerNode []simnet.NodeID
	coordNode  simnet.NodeID
	coord      *coordinator.Coordinator
	// kindNode is each registered server kind's node id (serverkind.go),
	// -1 when the world has none.
	kindNode [maxServerKinds]simnet.NodeID
	// dests maps a server's node id to its destination index.
	dests []int32
	// connRows is the storage of the servers' connection rows (node.out).
	connRows []simnet.Conn
	// rands are the run's random streams, in the generators of the
	// previous run's (runner.go).
	rands sim.Rands
	// spare are the previous run's nodes, reset for this run as it
	// builds its own (runner.go).
	spare spares

	pcfg      client.ProducerConfig
	cfgNotes  []string
	apps      []*app
	instances []*instance
	// starts are the instances' start events, scheduled after the fault
	// plan's actions (initFaults).
	starts []timedEvent

	// resultMem is a recycled Result for this run's (Runner.Recycle).
	resultMem *Result
	// textBuf is scratch for texts made once a run (planText); nodesBuf
	// the storage of the node lists fault plans are made from
	// (faultNodes).
	textBuf []byte
	// finalLog and finalRecs hold the final logs' entries and records
	// while their observations are read (finalLogs): scratch.
	finalLog  []model.LogEntry
	finalRecs []model.Record
	nodesBuf  []string
	// spareMem is the storage of the spares' lists, two stores used in
	// turn (spareNodes).
	spareMem  [2]spareLists
	spareNext int

	// msgs are the messages on the wire, by id (fate.go).
	msgs    store.IDTable[wire]
	nextMsg uint64
	// routes are the reply routes of the requests servers are handling,
	// by handle (world_server.go).
	routes    store.IDTable[route]
	nextRoute uint64
	// srvConns are the receive sides of client connections at servers
	// with requests buffered or being handled, in order of creation
	// (world_handler.go).
	srvConns []*srvConn
	// srvFree are dropped receive sides kept for reuse (storage only:
	// nothing refers to them).
	srvFree []*srvConn
	// effs holds per-depth copies of a node's effects and what they
	// point to (internal/outbuf).
	effs outbuf.Stack

	// The observation stream and its readers: the trace, the counters,
	// the checkers and the coordinator's bumps, called directly, then
	// obs, the others (the realized plan, the spec's readers, a
	// script's), in order; cur is the observation being read.
	obs   []model.Observer
	bumps *tally.CoordBumps // internal/tally
	cur   model.Obs
	trace *trace.Writer
	stats *stats
	chk   *check.Suite

	// Faults (faults.go).
	plan    faults.Plan
	planEnd sim.Time
	// reqCount[client*len(names)+server] counts the requests sent on
	// that link.
	reqCount []int64
	drops    []dropRule
	ended    bool
	resend   bool

	// limit is the run's horizon once the run starts (0 before): events
	// past it are not scheduled, and beyond counts the foreground ones
	// dropped. maxState bounds the run's state (Spec.MaxState); overState
	// is set when the run exceeded it and was stopped.
	limit     sim.Time
	beyond    int64
	maxState  int64
	overState bool

	// realized records the realized plan (realize.go); readers are the
	// spec's readers (reader.go), made for this run.
	realized *realizer
	readers  []Reader

	// mf holds the plan's delay and duplicate rules and the delayed
	// messages (fate.go).
	mf msgFaults
	// probe is an explorer's view of the run's choice points (probe.go).
	probe probeState

	// script is set in a scripted world (script.go): a test script, not
	// the network's draws and the loop, decides when messages arrive.
	script *script
	// mode is how the World runs (mode.go), chosen once when it is
	// built: a run, or a script.
	mode mode

	// repl is the replication wiring (world_repl.go), chosen once when
	// the World is built: noReplication when replication.factor is 1.
	repl replication
	// txnHost is the transaction coordinator's host broker in a
	// replicated run (world_txnhost.go).
	txnHost txnHosting
}

// timedEvent is an event with its time, not yet scheduled.
type timedEvent struct {
	at sim.Time
	ev Event
}

// Nodes' random streams are derived from these names.
func streamOf(name string) uint64 { return sim.StreamID(name) }

// newWorld builds the world for one run, in the memory of old (a finished
// run's World, or nil: runner.go).
func newWorld(old *World, s *Setup) (*World, error) {
	vals, seed, pcfg, notes := s.Resolved.Values, s.Seed, s.Resolved.Producer, s.Resolved.Notes
	cfg := vals.Config()
	topo, err := NewTopology(cfg.Brokers, cfg.Partitions)
	if err != nil {
		return nil, err
	}
	w := old.recycle() // runner.go
	w.setup, w.vals, w.cfg, w.seed, w.pcfg, w.cfgNotes, w.topo = s, vals, cfg, seed, pcfg, notes, topo
	w.mode = &theRunMode
	w.groupApp = cfg.App.GroupApp() // world_group.go
	if err := s.Build(Builder{w}); err != nil {
		return nil, err
	}
	leaders := topo.Leaders
	if cfg.App.TopicInput() { // the input topic (world_input.go)
		w.input = input.Layout{Base: int32(len(leaders)), Parts: int32(cfg.App.InputPartitions), Apps: int32(len(w.apps)), Records: cfg.App.Records, Aborted: cfg.App.InputAborted, Seq: model.SeqSpace{Bits: uint8(cfg.SequenceBits)}}
		leaders = w.input.Leaders(leaders, topo.Brokers)
	}
	// The node table: producer instances, then brokers, then the
	// coordinator.
	for _, in := range w.instances {
		in.node = simnet.NodeID(len(w.nodes))
		w.nodes = append(w.nodes, node{kind: kindProducer, name: in.name, inst: in})
	}
	bc := &cfg.Broker
	pc := storage.PartitionConfig{
		Window:                  bc.Window,
		NoDedup:                 !bc.Dedup,
		NoEpochCheck:            !bc.EpochCheck,
		NoPartitionVerification: !bc.PartitionVerification,
		EmptyPartitionCheck:     bc.EmptyPartitionCheck,
		BugNoVerificationGuard:  bc.BugNoVerificationGuard,
		Seq:                     model.SeqSpace{Bits: uint8(cfg.SequenceBits)},
		ProducerIDExpiration:    bc.ProducerIDExpiration,
	}
	if bc.RetentionMs >= 0 || bc.RetentionRecords >= 0 {
		pc.Retention = &storage.Retention{Ms: bc.RetentionMs, Records: bc.RetentionRecords}
	}
	for i := 0; i < topo.Brokers; i++ {
		name := topo.BrokerName(i)
		bcfg := broker.BrokerConfig{
			ID: int32(i), Leaders: leaders, Partition: pc,
			ExpirationCheckInterval: bc.ExpirationCheckInterval,
			RetentionCheckInterval:  bc.RetentionCheckInterval,
			TransientPPM:            uint32(float64(bc.TransientError*1_000_000) + 0.5), // no fused multiply-add (net's ppm)
			NotReadyBatches:         bc.NotReadyBatches,
			RebuildNone:             bc.RestartRebuild == params.RebuildNone,
			MuteRandom:              cfg.Fault.Realized,
			Rand:                    w.rands.New(seed, streamOf("broker/"+name)),
		}
		w.replBrokerConfig(&bcfg)
		b := w.spare.broker(bcfg) // a recycled broker, or a new one
		w.brokerNode = append(w.brokerNode, simnet.NodeID(len(w.nodes)))
		w.nodes = append(w.nodes, node{kind: kindBroker, name: name, srv: b, broker: b, holder: b})
	}
	for _, n := range w.brokerNode { // every replica of the input topic (world_input.go)
		w.input.Fill(w.nodes[n].broker.Preload)
	}
	cc := &cfg.Coordinator
	w.coord = w.spare.coordinator(coordinator.CoordinatorConfig{NextPID: model.ProducerID(cc.NextPID), EpochBits: uint8(cc.EpochBits),
		Leaders: topo.Leaders, TimeoutCheckInterval: cc.AbortCleanupInterval,
		BugNoRotate: cc.BugNoRotate, BugNoBumpOnTimeout: cc.BugNoBumpOnTimeout, TransactionVersion: cfg.Versions.TransactionVersion,
		LogAppendTime: cc.LogAppendTime, Version: cfg.BrokerVersionNumber(),
		TransactionalIDExpiration: cc.TransactionalIDExpiration, ExpirationCheckInterval: cc.ExpirationCheckInterval})
	w.coordNode = simnet.NodeID(len(w.nodes))
	w.nodes = append(w.nodes, node{kind: kindCoordinator, name: topo.CoordinatorName(), srv: w.coord, holder: w.coord})
	w.addServerKinds() // serverkind.go
	w.addController()
	w.mode.reserve(w)
	w.names = make([]string, len(w.nodes))
	for i := range w.nodes {
		w.names[i] = w.nodes[i].name
	}

	ncfg := cfg.Net // decoded and validated by Resolve
	if err := ncfg.CheckNodes(w.names); err != nil {
		return nil, err
	}
	w.nw = simnet.Renew(w.nw, ncfg, w.rands.New(seed, streamOf("net")), w.names) // a recycled network, or nil
	// Servers talk to each other over the network too (world_server.go),
	// with draws of their own so that they never shift the clients'.
	servers := make([]bool, len(w.nodes))
	w.dests = zeroed(w.dests, len(w.nodes))
	nsrv := 0
	for i := range w.nodes {
		if w.nodes[i].kind != kindProducer {
			nsrv++
		}
	}
	w.connRows = zeroed(w.connRows, nsrv*len(w.nodes))
	outs := w.connRows // one array for every server's row
	for i := range w.nodes {
		if w.nodes[i].kind == kindProducer {
			continue
		}
		servers[i] = true
		w.nodes[i].out, outs = outs[:len(w.nodes):len(w.nodes)], outs[len(w.nodes):]
		switch n := simnet.NodeID(i); n {
		case w.coordNode:
			w.dests[i] = model.DestCoordinator
		case w.repl.controller():
			w.dests[i] = model.DestController
		default:
			if d, ok := w.kindDest(n); ok {
				w.dests[i] = d
			} else {
				w.dests[i] = int32(slices.Index(w.brokerNode, n))
			}
		}
	}
	w.nw.SetServers(servers, w.rands.New(seed, streamOf("net/servers")))
	w.repl.producer(&pcfg, w.topo.Brokers)
	metaBrokers, loop := 0, input.AtLeastOnce // the input consumers' (world_input.go)
	if w.repl.replicated() {
		metaBrokers = topo.Brokers
	}
	if cfg.App.Mode == params.AppExactlyOnce {
		loop = input.ExactlyOnce
	} else if pcfg.TransactionRecords > 0 || cfg.App.GroupApp() {
		loop = input.AtLeastOnceTxn
	}
	w.pcfg = pcfg
	for _, in := range w.instances {
		in.pcfg = pcfg
		if cfg.App.Mode == params.AppExactlyOnce {
			in.pcfg.GroupID = model.GroupOf(in.app.id)
		} else if cfg.App.GroupApp() {
			w.input.GroupProducer(&in.pcfg, in.app.id, in.index)
		}
		in.prod = w.spare.producer(in.pcfg, in.app.id, topo.Leaders, w.rands.New(seed, streamOf("producer/"+in.name)))
		in.conns = zeroed(in.conns, w.connSlots())
		if in.cons = nil; w.input.Parts > 0 {
			cc := w.input.Consumer(in.app.id, leaders, metaBrokers, loop, cfg.App.SendInterval)
			cc.ClientVersion = pcfg.ClientVersion
			if cfg.App.GroupApp() {
				w.input.GroupConsumer(&cc, in.name, cfg.App.SessionTimeout, in.pcfg.GroupID != "", cfg.App.CommitInterval)
				cc.MaxPollInterval = cfg.App.MaxPollInterval
			}
			in.cons = consumer.New(cc)
			in.cconns = zeroed(in.cconns, w.connSlots())
		}
	}
	// The readers of the observation stream.
	w.trace = trace.New(w.names, w.trace)
	w.stats = newStats(w, w.stats)
	ccfg := check.Config{Seq: pcfg.Seq, MaxEpoch: w.coord.Config().MaxEpoch(), Names: w.names, Replicated: w.repl.replicated(),
		ConsumerStuck: w.cfg.Extra.Consumer.LagBound, UnstableBound: w.cfg.OffsetStallBound(), InputBase: w.input.Base, InputParts: w.input.Parts, InputSkip0: w.input.Skip0()}
	if w.chk == nil {
		w.chk = check.NewSuite(ccfg)
	} else {
		w.chk.Reset(ccfg) // a recycled suite (runner.go)
	}
	w.bumps = tally.NewCoordBumps(w.bumps)
	w.obs = w.obs[:0] // after the trace, stats, chk and bumps (fire)
	return w, nil
}

// emit hands an observation to every reader, in order. The observation is
// copied into the World's one slot, so emitting allocates nothing; readers
// never emit, so the slot is never overwritten while they read it.
func (w *World) emit(o model.Obs) {
	w.cur = o
	w.fire(&w.cur)
}

// slot returns the World's observation slot emptied, with the kind, time
// and nodes of a new observation set: the caller fills in the rest and
// passes it to fire. It is emit without the copy of a whole [model.Obs]
// (some 550 bytes) into the slot, for the observations made on every
// message; nothing may emit between slot and fire.
func (w *World) slot(k model.ObsKind, now sim.Time, node, peer int32) *model.Obs {
	o := &w.cur
	*o = model.Obs{}
	o.Kind, o.At, o.Node, o.Peer = k, now, node, peer
	return o
}

// fire hands observation o to every reader, in order. o is the World's
// slot or memory the World owns until the call returns (a server's
// observation in the effect buffers, serverOuts): readers never keep it.
func (w *World) fire(o *model.Obs) {
	w.trace.Observe(o)
	w.stats.Observe(o)
	w.chk.Observe(o)
	w.bumps.Observe(o)
	for _, r := range w.obs {
		r.Observe(o)
	}
}

// note emits a free-form line about node n (-1: the world).
func (w *World) note(now sim.Time, n simnet.NodeID, text string) {
	w.emit(model.Obs{Kind: model.ObsNote, At: now, Node: int32(n), Peer: -1, Text: text})
}

// schedule puts ev on the loop: housekeeping wake-ups of servers are
// background events (they do not keep a run alive), the rest foreground.
func (w *World) schedule(at sim.Time, ev Event) {
	if w.limit > 0 && at > w.limit {
		// It could never run: the loop stops at the horizon. Keeping it
		// would only grow the queue (a 24-day request timer, say).
		if !ev.bg {
			w.beyond++
		}
		return
	}
	if ev.bg {
		w.loop.Background(at, ev)
		return
	}
	w.loop.At(at, ev)
}

// Handle dispatches one event ([sim.Handler]).
func (w *World) Handle(now sim.Time, seq uint64, ev Event) {
	if w.maxState > 0 && w.state() > w.maxState {
		w.overState = true
		w.loop.Stop()
		return
	}
	if w.probe.p != nil && now > w.probe.lastAt {
		w.probeTime(now, seq, ev) // probe.go
	}
	if w.probe.parts != nil {
		w.touchEvent(ev) // statehash.go
	}
	if n := w.target(ev); n >= 0 && w.gate(now, n, ev) {
		return
	}
	switch ev.kind {
	case evStart:
		if nd := &w.nodes[ev.node]; nd.kind == kindProducer {
			w.start(now, nd.inst)
		} else {
			w.serverOuts(now, simnet.NodeID(ev.node), nd.srv.(model.Starter).Start(now)) // node_reader.go
		}
	case evAppSend:
		if a := w.apps[ev.app]; ev.n == a.chain {
			w.appSend(now, a)
		}
	case evWake:
		nd := &w.nodes[ev.node]
		if ev.gen != nd.inc {
			return // a timer of a crashed incarnation
		}
		if nd.kind == kindProducer {
			w.apply(now, nd.inst, nd.inst.prod.Wake(now, ev.n))
		} else {
			w.serverOuts(now, simnet.NodeID(ev.node), nd.srv.Wake(now, ev.n))
		}
	case evDeliver:
		w.deliver(now, ev)
		w.releaseDelayed(now, ev) // fate.go
	case evFault:
		w.fault(now, int(ev.n))
	case evMetaFlap:
		w.emit(model.Obs{Kind: model.ObsMetadataFlap, At: now, Node: int32(w.brokerNode[w.topo.Leaders[0]]), Peer: -1})
		for _, in := range w.instances {
			if in.started && !w.nodes[in.node].fault.crashed {
				w.apply(now, in, in.prod.MetadataFlap(now))
			}
		}
	case evResume:
		w.endPause(now, simnet.NodeID(ev.node))
	case evUnstall:
		w.endStall(now, simnet.NodeID(ev.node))
	case evHandled:
		w.handled(now, ev)
	case evAppResume:
		w.resumeInput(now, w.nodes[ev.node].inst)
	case evAppPoll:
		if in := w.nodes[ev.node].inst; ev.gen == w.nodes[ev.node].inc {
			w.consOuts(now, in, in.cons.Wake(now, ev.n)) // world_input.go
		}
	case evDisconnect:
		w.disconnected(now, ev)
	case evReplStart:
		w.repl.start(w, now)
	case evReplDeliver:
		w.repl.deliver(w, now, ev)
	case evShutdown:
		w.shutdownEvent(now, ev)
	default:
		panic(fmt.Sprintf("scenarios: unknown event kind %d", ev.kind))
	}
}

// state is the run's state in the units [Spec.MaxState] counts: pending
// events, messages on the wire, recorded plan actions and event-log
// entries, one unit each, and the records sent and log entries appended,
// [HeldPerUnit] to a unit (the tables that keep them grow by a record or
// an entry at a time and are held to the run's end).
func (w *World) state() int64 {
	n := int64(w.loop.Pending()+w.msgs.Len()) + w.stats.Held/HeldPerUnit
	if w.realized != nil {
		n += int64(len(w.realized.realized))
	}
	for _, r := range w.readers {
		n += r.Held()
	}
	return n
}

// destNode maps a destination index (broker index, or the coordinator) to
// a node id.
func (w *World) destNode(dest int32) simnet.NodeID {
	switch dest {
	case model.DestCoordinator:
		return w.coordNode
	}
	if dest < 0 {
		return w.kindNode[kindIndex(dest)]
	}
	return w.brokerNode[dest]
}

// connIdx is where a producer instance keeps its connection to a
// destination: 0 the coordinator, 1+i broker i, then the registered
// server kinds in registration order (serverkind.go).
func (w *World) connIdx(dest int32) int {
	switch {
	case dest == model.DestCoordinator:
		return 0
	case dest < 0:
		return 1 + w.topo.Brokers + kindIndex(dest)
	}
	return int(dest) + 1
}

// connSlots is the number of connections a producer instance may hold.
func (w *World) connSlots() int { return 1 + w.topo.Brokers + len(serverKinds) }

// destOf maps a server's node id back to its destination index.
func (w *World) destOf(n simnet.NodeID) int32 {
	if !w.isServer(n) {
		panic("scenarios: not a server: " + w.names[n])
	}
	return w.dests[n]
}

// isServer reports whether node n is a broker or the coordinator.
func (w *World) isServer(n simnet.NodeID) bool { return w.nodes[n].kind != kindProducer }

// pending returns the records the applications sent that have no outcome
// at any instance and that an instance still holds (a crashed instance
// with fault.producer.resend holds them for its restart), each counted
// once; abandoned, the records a crash abandoned that no instance resolved
// or holds since.
func (w *World) pending() (pending, abandoned int64) {
	for _, a := range w.apps {
		held := map[int64]bool{}
		for _, in := range a.instances {
			in.unresolved.Each(func(rec model.Record) {
				if !a.resolved.Has(rec.ID.N) {
					held[rec.ID.N] = true
				}
			})
		}
		pending += int64(len(held))
		a.abandoned.Each(func(n int64) {
			if !a.resolved.Has(n) && !held[n] {
				abandoned++
			}
		})
	}
	return pending, abandoned
}

var _ sim.Handler[Event] = (*World)(nil)

// rngFor returns a named stream of the run's seed, for scenario builders
// and plan generators.
func (w *World) rngFor(name string) *rand.Rand { return w.rands.New(w.seed, streamOf(name)) }
