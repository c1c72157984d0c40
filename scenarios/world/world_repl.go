package world

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/client"
	"github.com/idemsim/idemsim/model/controller"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/world/internal/repl"
	"github.com/idemsim/idemsim/sim"
)

// Replication (issue #14, docs/replication.md). With replication.factor
// above 1 every partition has that many replicas, on brokers p mod
// brokers and the next ones, and a KRaft controller runs as a node of its
// own (n1). The brokers host the replicas (model/broker/broker_repl.go); the
// world only carries their messages.
//
// The other messages between servers (markers, verifications) travel the
// connections of world_server.go. Replication's do not, on purpose:
//
//   - follower fetches and their answers between brokers, heartbeats,
//     AlterPartition and metadata between brokers and the controller are
//     background events: they run in order but do not keep a finished
//     run alive (a follower's fetch loop never ends);
//   - they leave no trace lines of their own (a fetch every
//     replica.fetch.wait.max.ms per follower and partition would drown
//     the trace); what they change shows as the nodes' notes (elections,
//     ISR changes, truncations) and verdicts;
//   - each message has its own latency draw (the link's latency,
//     net.link.latency included) and loss draw (net.server_loss), made
//     from a stream of their own so that no other draws shift;
//   - a cut link drops them (at sending and at arrival), a crashed
//     recipient drops them, a paused one reads them when it resumes, and
//     an answer to an earlier incarnation is dropped.
//     There are no connections: a fetch that gets no answer across a cut
//     times out (replica.socket.timeout.ms), a lost fetch or
//     AlterPartition (or answer) reaches the broker that sent it as a
//     model.Disconnected one latency later (a reset), and a broker that
//     missed metadata catches up at its next heartbeat.
//
// After the run the world lets replication settle (settleRepl) and
// reports every partition's final leader log below its high watermark
// (model.ObsFinalLog): that is what the checkers call committed.

// defaultMetadataMaxAge is metadata.max.age.ms's default.
const defaultMetadataMaxAge = 5 * time.Minute

// replSettle is how long replication runs on after a replicated run
// (settleRepl): longer than a fetch round, a heartbeat and an election.
const replSettle = 30 * time.Second

// replHandle marks a reply handle of a replication request: the low bits
// are the requester's incarnation.
const replHandle uint64 = 1 << 63

// replMsg is a replication message on the wire.
type replMsg struct {
	id       uint64
	from, to simnet.NodeID
	m        model.Message
	// reply: an answer (to the requester's incarnation inc); else a
	// request to the recipient's incarnation inc.
	reply bool
	inc   uint32
}

// replication is the run's replication wiring, chosen once when the
// World is built (addController): [noReplication] keeps one copy of each
// partition and carries nothing, [*replState] runs the controller and
// carries the replicas' traffic. Nothing else in the World asks which
// one it has.
type replication interface {
	// controller is the controller's node id, -1 without one.
	controller() simnet.NodeID
	// replicated reports whether partitions have replicas (the checkers
	// and the readers' layout judge such a run at its end).
	replicated() bool
	// producer adds the replicated run's settings to a producer's
	// configuration: it refreshes metadata, since leaders move.
	producer(pc *client.ProducerConfig, brokers int)
	// out carries out effect o of server n if it is replication's, and
	// reports whether it was.
	out(w *World, now sim.Time, n simnet.NodeID, o *model.Out) bool
	// start and deliver handle evReplStart and evReplDeliver.
	start(w *World, now sim.Time)
	deliver(w *World, now sim.Time, ev Event)
	// coordMetadata hands a coordinator that (re)starts on a broker the
	// metadata its host holds.
	coordMetadata(w *World, now sim.Time)
	// settle lets replication run on after the run, within maxEvents in
	// all, and reports whether it stayed within them.
	settle(w *World, maxEvents int64) bool
	// finalLogs reports every partition's final committed log.
	finalLogs(w *World, at sim.Time)
	// hash adds replication's state to the state hash: the messages on
	// its wire and the coordinator's host.
	hash(w *World, h *stateHasher)
}

// noReplication is a run with one copy of each partition: no controller,
// no replication traffic, and the run ends when its events do.
type noReplication struct{}

func (noReplication) controller() simnet.NodeID                            { return -1 }
func (noReplication) replicated() bool                                     { return false }
func (noReplication) producer(*client.ProducerConfig, int)                 {}
func (noReplication) out(*World, sim.Time, simnet.NodeID, *model.Out) bool { return false }
func (noReplication) start(*World, sim.Time)                               {}
func (noReplication) deliver(*World, sim.Time, Event)                      {}
func (noReplication) coordMetadata(*World, sim.Time)                       {}
func (noReplication) settle(*World, int64) bool                            { return true }
func (noReplication) finalLogs(*World, sim.Time)                           {}
func (noReplication) hash(*World, *stateHasher)                            {}

// replState is the world's replication wiring in a replicated run.
type replState struct {
	ctlNode simnet.NodeID
	ctl     *controller.Controller
	rng     *rand.Rand
	// wire holds the messages on their way, by id (a storm of fetches
	// under heavy server loss can put tens of thousands on the wire:
	// each delivery finds its message at once).
	wire map[uint64]replMsg
	next uint64
	// until is the end of the settling while it runs, else 0.
	until sim.Time
}

func (r *replState) controller() simnet.NodeID { return r.ctlNode }
func (r *replState) replicated() bool          { return true }

// replicationFactor is the run's replication.factor; a scripted world
// (script.go) keeps one copy of each partition: its script decides about
// client messages only, and judges the run at any point, where a
// replicated run is judged once, after it settled.
func (w *World) replicationFactor() int {
	if !w.mode.replicated() {
		return 1
	}
	return w.cfg.ReplicationFactor()
}

// replBrokerConfig fills a broker's replication settings, when the run
// replicates.
func (w *World) replBrokerConfig(bc *broker.BrokerConfig) {
	if w.replicationFactor() < 2 {
		return
	}
	bc.Replicas = repl.Replicas(bc.Leaders, w.topo.Brokers, w.replicationFactor()) // the input topic's too
	bc.Leader = broker.LeaderConfig{ReplicaLagTimeMax: w.cfg.Replication.LagTimeMax, MinInsyncReplicas: w.cfg.Replication.MinISR, Version: w.cfg.BrokerVersionNumber()}
}

// addController chooses the run's replication and adds the controller
// node when the run replicates.
func (w *World) addController() {
	w.repl = noReplication{}
	rf := w.replicationFactor()
	if rf < 2 {
		return
	}
	rs := repl.Replicas(w.input.Leaders(w.topo.Leaders, w.topo.Brokers), w.topo.Brokers, rf) // the input topic's too
	parts := make([]model.PartitionState, len(rs))
	for p, r := range rs {
		parts[p] = model.PartitionState{Partition: int32(p), Replicas: r, ISR: slices.Clone(r), Leader: r[0]}
	}
	ctl := controller.NewController(controller.ControllerConfig{UncleanLeaderElection: w.cfg.Replication.Unclean, Version: w.cfg.BrokerVersionNumber(),
		ELR: w.cfg.Replication.ELRVersion >= 1, MinISR: w.cfg.Replication.MinISR, AutoLeaderRebalance: w.cfg.Replication.AutoLeaderRebalance,
		LeaderImbalanceCheckInterval: time.Duration(w.cfg.Replication.LeaderImbalanceCheckSeconds) * time.Second, Coordinators: true}, w.topo.Brokers, parts)
	w.repl = &replState{ctlNode: simnet.NodeID(len(w.nodes)), ctl: ctl, rng: w.rngFor("net/replication"), wire: map[uint64]replMsg{}}
	w.nodes = append(w.nodes, node{kind: kindController, name: w.topo.ControllerName(), srv: ctl})
	w.schedule(0, Event{kind: evReplStart, bg: true})
}

func (r *replState) producer(pc *client.ProducerConfig, brokers int) {
	pc.RefreshMetadata = true
	pc.Brokers = brokers
	pc.MetadataMaxAge = defaultMetadataMaxAge
}

// start starts the controller and the brokers. The controller's first
// publication is the topic as created, which every broker has before the
// run starts: it is applied at once.
func (r *replState) start(w *World, now sim.Time) {
	outs := r.ctl.Start(now)
	for _, o := range outs {
		if o.Kind == model.OutSend {
			if m, ok := o.Msg.(*model.MetadataUpdate); ok {
				n := w.brokerNode[o.Dest]
				w.serverOuts(now, n, w.nodes[n].srv.Step(now, model.Peer{Node: int32(r.ctlNode)}, m))
				continue
			}
		}
		w.serverOuts(now, r.ctlNode, []model.Out{o})
	}
	for _, n := range w.brokerNode {
		if !w.nodes[n].fault.crashed {
			w.serverOuts(now, n, w.nodes[n].broker.Start(now))
		}
	}
	w.hostStart() // world_txnhost.go
}

func (r *replState) out(w *World, now sim.Time, n simnet.NodeID, o *model.Out) bool {
	switch o.Kind {
	case model.OutNote:
		w.note(now, n, o.Note)
		return true
	case model.OutStop: // after the call's other effects
		w.schedule(now, Event{kind: evShutdown, node: int32(n), gen: w.nodes[n].inc, n: uint64(o.At) + 1})
		return true
	case model.OutSend:
		if !repl.IsMsg(o.Msg) {
			return false
		}
		to := r.ctlNode
		if o.Dest != model.DestController {
			to = w.brokerNode[o.Dest]
		}
		at, sent := r.send(w, now, replMsg{from: n, to: to, m: o.Msg, inc: w.nodes[to].inc})
		if m, ok := o.Msg.(*model.MetadataUpdate); ok && n == r.ctlNode && o.Dest == 0 {
			w.coordFollow(now, m) // world_txnhost.go
		}
		if _, ok := o.Msg.(*model.MetadataUpdate); ok && sent && n == r.ctlNode && o.Dest == 0 {
			// The transaction coordinator's metadata cache follows the
			// controller's publications too (in Kafka it is its broker's),
			// so that markers go to the partitions' current leaders. It
			// arrives with the first broker's copy (no draw of its own).
			r.next++
			r.wire[r.next] = replMsg{id: r.next, from: n, to: w.coordNode, m: o.Msg, inc: w.nodes[w.coordNode].inc}
			w.schedule(at, Event{kind: evReplDeliver, node: int32(w.coordNode), msg: r.next, bg: true})
		}
		return true
	case model.OutReply:
		if o.Peer.Handle&replHandle == 0 {
			return false
		}
		r.send(w, now, replMsg{from: n, to: simnet.NodeID(o.Peer.Node), m: o.Msg, reply: true, inc: uint32(o.Peer.Handle)})
		return true
	}
	return false
}

// send puts a replication message on the network.
func (r *replState) send(w *World, now sim.Time, m replMsg) (sim.Time, bool) {
	if w.nw.Blocked(m.from, m.to) {
		return 0, false
	}
	if sim.Chance(r.rng, w.nw.ServerLossPPM()) {
		// A loss breaks the connection: the broker that asked (a
		// follower's fetch, a leader's AlterPartition) learns of it
		// one latency later, as from a reset.
		r.lost(w, now, m)
		return 0, false
	}
	at := now.Add(w.nw.DelayWith(r.rng, m.from, m.to))
	r.next++
	m.id = r.next
	r.wire[m.id] = m
	w.schedule(at, Event{kind: evReplDeliver, node: int32(m.to), msg: m.id, bg: true})
	return at, true
}

// lost tells the broker that sent a fetch or an AlterPartition, or
// was being answered one, that its connection broke
// ([model.Disconnected], delivered as an answer to its incarnation).
func (r *replState) lost(w *World, now sim.Time, m replMsg) {
	client, server, inc := m.from, m.to, w.nodes[m.from].inc
	if m.reply {
		client, server, inc = m.to, m.from, m.inc
	}
	if w.nodes[client].kind != kindBroker {
		return
	}
	switch m.m.(type) {
	case *model.FetchRequest, *model.FetchResponse, *model.AlterPartitionRequest, *model.AlterPartitionResponse:
	default:
		return
	}
	r.next++
	n := replMsg{id: r.next, from: server, to: client, m: &model.Disconnected{Dest: w.destOf(server)}, reply: true, inc: inc}
	r.wire[n.id] = n
	w.schedule(now.Add(w.nw.DelayWith(r.rng, server, client)), Event{kind: evReplDeliver, node: int32(client), msg: n.id, bg: true})
}

// deliver hands a replication message to its recipient.
func (r *replState) deliver(w *World, now sim.Time, ev Event) {
	m, ok := r.wire[ev.msg]
	if !ok {
		return
	}
	nd := &w.nodes[m.to]
	if nd.fault.paused && !nd.fault.crashed && m.inc == nd.inc {
		// A paused process's socket buffers hold what reaches it; it
		// reads them when it resumes (the resume runs first at that
		// time, being scheduled before).
		w.schedule(max(nd.fault.pauseUntil, now), Event{kind: evReplDeliver, node: int32(m.to), msg: m.id, bg: true})
		return
	}
	delete(r.wire, ev.msg)
	if nd.fault.crashed || w.nw.Blocked(m.from, m.to) || m.inc != nd.inc {
		return
	}
	peer := model.Peer{Node: int32(m.from)}
	if !m.reply {
		peer.Handle = replHandle | uint64(w.nodes[m.from].inc)
	}
	w.serverOuts(now, m.to, nd.srv.Step(now, peer, m.m))
	if _, ok := m.m.(*model.BrokerHeartbeatResponse); ok {
		r.skipIdle(w, now) // at each heartbeat's answer
	}
}

// skipIdle carries quiet replication in one step up to the next event of
// anything else (docs/replication.md "Idle replication", package repl):
// its timers and messages by sim.Loop.Shift, its nodes' times by
// repl.Shift.
//
// Not under an explorer's probe: a plan's fault at T ends the spans
// before T, which the run the explorer chose T in did not, and the
// latencies drawn after a span differ, so the replay would miss its
// choice point.
func (r *replState) skipIdle(w *World, now sim.Time) {
	if w.probe.p != nil {
		return
	}
	isRepl := func(ev Event) bool {
		return ev.kind == evReplDeliver || ev.kind == evWake && (simnet.NodeID(ev.node) == r.ctlNode || w.nodes[ev.node].kind == kindBroker && broker.IsReplTimer(ev.n))
	}
	end, ok := w.loop.EarliestExcept(isRepl)
	for _, t := range []sim.Time{w.limit, r.until, w.planEnd} {
		if t > now && (!ok || t < end) && (t != w.planEnd || !w.ended) {
			end, ok = t, true
		}
	}
	d := repl.Span(now, end, r.until > 0)
	c := repl.Cluster{Ctl: r.ctl, Net: w.nw, CtlNode: r.ctlNode, BrokerNode: w.brokerNode}
	for _, n := range append(w.brokerNode[:len(w.brokerNode):len(w.brokerNode)], r.ctlNode) {
		if f := &w.nodes[n].fault; !ok || d <= 0 || f.crashed || f.paused || f.stalled || f.driftPPM != 0 || len(f.held) > 0 {
			return
		}
		c.Brokers = append(c.Brokers, w.nodes[n].broker) // the controller's is nil, cut below
	}
	for _, m := range r.wire {
		if !repl.IdleMsg(m.m) {
			return
		}
	}
	if c.Brokers = c.Brokers[:len(w.brokerNode)]; repl.Quiet(c) {
		w.loop.Shift(d, isRepl)
		repl.Shift(c, d)
	}
}

// SetIdleReplicationSkip turns carrying idle replication in one step on
// (the default) or off, for tests; not while runs are under way.
func SetIdleReplicationSkip(on bool) { repl.Off = !on }

// settle lets replication run on after the run ended (no fault is active
// any more): followers catch up, returning replicas truncate and high
// watermarks rise, as they would in the moments after the run. It runs
// every event due within replSettle, background ones included.
func (r *replState) settle(w *World, maxEvents int64) bool {
	// The run's event limit holds here too: a replication loop that never
	// settles (a lossy server network with no backoff to speak of) stops
	// there, and the run reports event-limit.
	r.until = w.loop.Now().Add(replSettle)
	defer func() { r.until = 0 }()
	return w.loop.RunToLimit(r.until, maxEvents, w)
}

// finalLogs reports every partition's final committed log: the entries
// of the controller's current leader below that replica's high
// watermark; a partition without a leader has none.
func (r *replState) finalLogs(w *World, at sim.Time) {
	// INV-STATE on every replica at the end: each live replica's producer
	// state equals a rebuild from its own log.
	for _, n := range w.brokerNode {
		if w.nodes[n].fault.crashed {
			continue
		}
		for _, p := range w.nodes[n].broker.Partitions() {
			w.emit(model.Obs{Kind: model.ObsStateCheck, At: at, Node: int32(n), Peer: -1, Partition: p.ID, Flag: true, Text: p.StateDiff(at)})
		}
	}
	for p := range w.topo.Leaders {
		st, _ := r.ctl.Partition(int32(p))
		o := model.Obs{Kind: model.ObsFinalLog, At: at, Node: -1, Peer: -1, Partition: int32(p)}
		if st.Leader >= 0 {
			n := w.brokerNode[st.Leader]
			if lg := w.nodes[n].broker.ReplicaLog(int32(p)); lg != nil && !w.nodes[n].fault.crashed {
				o.Node = int32(n)
				hw := lg.HighWatermark()
				o.Result.LastOffset = hw
				// The entries below the high watermark, in the World's
				// buffers (readers copy what they keep).
				o.Log, w.finalRecs = lg.Part.AppendLogBelow(w.finalLog[:0], w.finalRecs[:0], hw)
				w.finalLog = o.Log[:0]
				if len(o.Log) == 0 {
					o.Log = nil
				}
			}
		}
		w.emit(o)
	}
	// A big run's final logs are released once read (the readers copied
	// what they keep): a World a sweep reuses holds its runs' state, not
	// the largest final log it ever handed over.
	if cap(w.finalLog) > finalKeep {
		w.finalLog = nil
	}
	if cap(w.finalRecs) > finalKeep {
		w.finalRecs = nil
	}
}

// finalKeep is the most entries, and records, whose memory the World
// keeps for the next run's final logs (finalLogs).
const finalKeep = 4096

// coordMetadata hands a coordinator that (re)starts on a broker the
// metadata its host holds: the controller's latest publication, so that
// its markers go to the current leaders at once.
func (r *replState) coordMetadata(w *World, now sim.Time) {
	c := w.coordNode
	w.serverOuts(now, c, w.nodes[c].srv.Step(now, model.Peer{Node: int32(r.ctlNode)}, r.ctl.Metadata()))
}

// hash adds the messages on the wire, by id, and the coordinator's host.
func (r *replState) hash(w *World, h *stateHasher) {
	h.Value(reflect.ValueOf(r.wire))
	h.Value(reflect.ValueOf(w.txnHost))
}

// ElectPreferred and Reassign hand the controller an operator's request
// (model/controller/operations.go); the plan's check has made sure the
// world replicates and names brokers; the armer leaves them to their time.
func (t actuator) ElectPreferred(parts []int32) {
	if r, ok := t.w.repl.(*replState); ok {
		t.w.serverOuts(t.now, r.ctlNode, r.ctl.ElectPreferred(t.now, parts))
	}
}

func (t actuator) Reassign(part int32, replicas []string) {
	r, ok := t.w.repl.(*replState)
	if !ok {
		return
	}
	ids := make([]int32, len(replicas))
	for i, name := range replicas {
		ids[i] = int32(slices.Index(t.w.brokerNode, t.w.nodeOf(name)))
	}
	t.w.serverOuts(t.now, r.ctlNode, r.ctl.Reassign(t.now, part, ids))
}
func (armer) ElectPreferred([]int32)   {}
func (armer) Reassign(int32, []string) {}
