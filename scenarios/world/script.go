package world

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/client"
	"github.com/idemsim/idemsim/model/storage"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world/internal/scriptcfg"
	"github.com/idemsim/idemsim/sim"
)

// Script is the World in scripted mode, for interaction tests: the real
// producers ([client.Producer]), brokers ([broker.Broker]) and coordinator
// ([coordinator.Coordinator]) wired by the World's own code, except that a
// script, not the network's random draws, decides what happens to each
// message, and moves time.
//
//   - A message a node sends to another over the network gets no random
//     fate and no latency: it waits in a list of messages in flight, in
//     send order ([Script.InFlight]), until the script delivers, drops or
//     loses it. Delivery is the World's own: the recipient node steps,
//     servers reach each other at once, replies join the list.
//   - Connections open, close and break through the World's usual code.
//     In tcp mode (net.mode) a message on a connection that closed or
//     broke is lost at once, as a normal run would find at its arrival.
//   - Time moves only with [Script.Advance]: the wake-ups that fall due
//     (producer timers, broker expiry checks, coordinator timeouts, the
//     end of a pause) run through the event loop in (time, sequence)
//     order.
//   - Crashes, restarts and the other plan actions are the World's fault
//     code ([Script.Fault]).
//   - Producer instances join as the script goes ([Script.AddProducer]),
//     each with its own producer configuration; the application sends
//     only what the script tells it to ([Script.Send], [Script.Replay]).
//
// Everything that happens is one observation stream: the trace lines go
// to [ScriptConfig.Out] (without their time), and [Script.Check] judges
// the stream with the invariants of [check.Suite]. The configuration comes
// from the scenario parameters ([Resolve]), so parameters keep their
// names and meanings. A Script is not safe for concurrent use.
type Script struct {
	w    *World
	st   *script
	sets []params.KV
}

// ScriptConfig configures a [Script] (scriptcfg.Config).
type ScriptConfig = scriptcfg.Config

// ScriptDefaults are the defaults of a [Script]'s parameters
// (scriptcfg.Defaults).
var ScriptDefaults = scriptcfg.Defaults

// ScriptProducerKeys are the parameters that may differ between a
// [Script]'s producer instances (scriptcfg.ProducerKeys).
var ScriptProducerKeys = scriptcfg.ProducerKeys

// Flight is a message in flight in a [Script] (scriptcfg.Flight).
type Flight = scriptcfg.Flight

// scriptName is a scripted world's scenario name.
const scriptName = "script"

// NewScript builds a scripted world with its brokers and coordinator and
// no producer instance yet.
func NewScript(cfg ScriptConfig) (*Script, error) {
	for _, kv := range cfg.Sets {
		if why := scriptcfg.Owned(kv.Key); why != "" {
			return nil, fmt.Errorf("%s cannot be set in a scripted world: %s", kv.Key, why)
		}
	}
	res, err := scriptcfg.Resolve(cfg.Sets)
	if err != nil {
		return nil, err
	}
	vals := res.Values
	st := &script{slots: cfg.Instances}
	if st.slots <= 0 {
		st.slots = 16
	}
	setup := &Setup{Name: scriptName, Resolved: res, Seed: cfg.Seed, Build: func(b Builder) error {
		b.w.script = st
		b.w.mode, b.w.groupApp = &scriptMode{st}, false
		st.w = b.w
		return nil
	}}
	w, err := newWorld(nil, setup)
	if err != nil {
		return nil, err
	}
	// What initFaults sets up for a run: request counters, the fault
	// switches, and a fault phase that never ends.
	w.reqCount = make([]int64, len(w.names)*len(w.names))
	w.resend = vals.Bool("fault.producer.resend")
	w.planEnd = sim.Time(math.MaxInt64 / 4)
	if cfg.Out != nil {
		w.trace.Tee(scriptcfg.Untimed{W: cfg.Out})
	}
	return &Script{w: w, st: st, sets: slices.Clone(cfg.Sets)}, nil
}

// script is a scripted world's state; the World's hooks call it.
type script struct {
	w *World
	// slots is the room for producer instances, first the node id of
	// the first slot, used how many are taken.
	slots int
	first simnet.NodeID
	used  int
	// flight holds the messages in flight, in send order.
	flight []held
}

// held is a message in flight: its id (the World's wire), its recipient
// and its network token.
type held struct {
	id  uint64
	to  simnet.NodeID
	tok simnet.Token
}

// reserve appends the producer-instance slots to the node table. A free
// slot is a producer node without an instance; its name cannot be written
// in a plan, and no observation names it.
func (st *script) reserve(w *World) {
	st.first = simnet.NodeID(len(w.nodes))
	for i := range st.slots {
		w.nodes = append(w.nodes, node{kind: kindProducer, name: "~" + strconv.Itoa(i+1)})
	}
}

// hold puts message id, on its way to node to, in flight.
func (st *script) hold(id uint64, to simnet.NodeID, tok simnet.Token) {
	st.flight = append(st.flight, held{id: id, to: to, tok: tok})
}

// loseDead loses, in send order, the messages in flight whose connection
// closed or broke (TCP: nothing more arrives on it).
func (st *script) loseDead(now sim.Time) {
	w := st.w
	if w.nw.Mode() != simnet.TCP {
		return
	}
	var dead []held
	kept := st.flight[:0]
	for _, h := range st.flight {
		if w.nw.Alive(h.tok.Conn) {
			kept = append(kept, h)
		} else {
			dead = append(dead, h)
		}
	}
	clear(st.flight[len(kept):])
	st.flight = kept
	for _, h := range dead {
		st.lose(now, h, simnet.ConnBroken.String())
	}
}

// lose releases h's message and observes its loss on the wire.
func (st *script) lose(now sim.Time, h held, why string) {
	w := st.w
	wr, _ := w.msgs.Get(h.id)
	w.msgs.Del(h.id)
	w.emit(model.Obs{Kind: model.ObsLost, At: now, Node: int32(h.to), Peer: int32(st.from(h, wr)), Msg: wr.m, Fate: why, MsgID: h.id})
}

// from returns the sender of a message in flight.
func (st *script) from(h held, wr wire) simnet.NodeID {
	if h.tok.Dir == simnet.Response {
		return wr.server
	}
	return wr.client
}

// take removes message id from the flight list.
func (st *script) take(id uint64) (held, bool) {
	i := slices.IndexFunc(st.flight, func(h held) bool { return h.id == id })
	if i < 0 {
		return held{}, false
	}
	h := st.flight[i]
	st.flight = slices.Delete(st.flight, i, i+1)
	return h, true
}

// settle runs the events that fell due at the current time (a notice, a
// start, a held event replayed): after every step of the script nothing
// due is left pending.
func (s *Script) settle() { s.w.loop.RunTo(s.w.loop.Now(), s.w) }

// BrokerName returns the name of broker index i (0-based).
func (s *Script) BrokerName(i int) string { return s.w.topo.BrokerName(i) }

// Now returns the current simulated time.
func (s *Script) Now() sim.Time { return s.w.loop.Now() }

// Next returns the time of the earliest pending wake-up or timed event,
// or false when none is pending.
func (s *Script) Next() (sim.Time, bool) { return s.w.loop.Next() }

// Advance moves time forward by d, running every event that falls due on
// the way, in (time, sequence) order.
func (s *Script) Advance(d time.Duration) { s.AdvanceTo(s.Now().Add(d)) }

// AdvanceTo moves time to t (if later), running every event due at or
// before t.
func (s *Script) AdvanceTo(t sim.Time) { s.w.loop.RunTo(t, s.w) }

// AddObserver adds a reader of the observation stream, after the trace,
// the counters and the checker.
func (s *Script) AddObserver(o model.Observer) { s.w.obs = append(s.w.obs, o) }

// AddProducer adds producer instance name for application appID (-1: a new
// application, numbered from 0) with the world's parameters and sets (keys
// from [ScriptProducerKeys]), resolved by Kafka's rules. It returns the
// configuration notes (an implicitly disabled idempotence, say). The
// instance starts with [Script.Start].
func (s *Script) AddProducer(name string, appID int32, sets []params.KV) (notes []string, err error) {
	w := s.w
	if !scriptcfg.ValidNodeName(name) {
		return nil, fmt.Errorf("instance name %q: want a letter, then letters, digits, '_', '-' or '.'", name)
	}
	if slices.Contains(w.names, name) {
		return nil, fmt.Errorf("a node named %s exists already", name)
	}
	if s.st.used == s.st.slots {
		return nil, fmt.Errorf("no room for instance %s: the world was built for %d", name, s.st.slots)
	}
	for _, kv := range sets {
		if !slices.Contains(ScriptProducerKeys, kv.Key) {
			return nil, fmt.Errorf("%s is not a producer parameter: set it for the world", kv.Key)
		}
	}
	if appID < -1 || int(appID) >= len(w.apps) {
		return nil, fmt.Errorf("no application %d (there are %d; -1 makes a new one)", appID, len(w.apps))
	}
	res, err := scriptcfg.Resolve(slices.Concat(s.sets, sets))
	if err != nil {
		return nil, err
	}
	pcfg, notes := res.Producer, res.Notes
	var a *app
	if appID < 0 {
		a = &app{id: int32(len(w.apps))}
		w.apps = append(w.apps, a)
		w.stats.Newest = append(w.stats.Newest, -1)
	} else {
		a = w.apps[appID]
	}
	n := s.st.first + simnet.NodeID(s.st.used)
	s.st.used++
	in := &instance{node: n, name: name, app: a, index: len(a.instances), pcfg: pcfg,
		conns: make([]simnet.Conn, w.connSlots())}
	in.prod = client.NewProducer(pcfg, a.id, w.topo.Leaders, sim.NewRand(w.seed, streamOf("producer/"+name)))
	a.instances = append(a.instances, in)
	w.instances = append(w.instances, in)
	// The name table is shared with the network, the trace and the
	// checker: the slot takes its name in place.
	w.names[n] = name
	w.nodes[n].name, w.nodes[n].inst = name, in
	w.stats.App[n] = a.id
	return notes, nil
}

// instance returns the producer instance called name.
func (s *Script) instance(name string) (*instance, error) {
	for _, in := range s.w.instances {
		if in.name == name {
			return in, nil
		}
	}
	return nil, fmt.Errorf("no producer instance %q", name)
}

// Producer returns the state machine of instance name (the current one,
// after a restart), or nil.
func (s *Script) Producer(name string) *client.Producer {
	in, err := s.instance(name)
	if err != nil {
		return nil
	}
	return in.prod
}

// Start starts instance name now, as a run starts its instances: an
// idempotent producer asks the coordinator for a producer id, and a later
// instance of an application takes it over.
func (s *Script) Start(name string) error {
	in, err := s.instance(name)
	if err != nil {
		return err
	}
	if in.started {
		return fmt.Errorf("%s is started already", name)
	}
	s.w.schedule(s.Now(), Event{kind: evStart, node: int32(in.node)})
	s.settle()
	return nil
}

// ready returns instance name if the application can hand it records.
func (s *Script) ready(name string) (*instance, error) {
	in, err := s.instance(name)
	if err != nil {
		return nil, err
	}
	st := &s.w.nodes[in.node].fault
	switch {
	case !in.started:
		return nil, fmt.Errorf("%s is not started", name)
	case st.crashed:
		return nil, fmt.Errorf("%s is crashed", name)
	case st.paused:
		return nil, fmt.Errorf("%s is paused", name)
	}
	return in, nil
}

// Send makes instance name's application send its next record, for
// partition part.
func (s *Script) Send(name string, part int32) (model.Record, error) {
	in, err := s.ready(name)
	if err != nil {
		return model.Record{}, err
	}
	if part < 0 || int(part) >= len(s.w.topo.Leaders) {
		return model.Record{}, fmt.Errorf("no partition %d (partitions: %d)", part, len(s.w.topo.Leaders))
	}
	rec := s.w.sendNew(s.Now(), in, part)
	s.settle()
	return rec, nil
}

// Replay makes instance to send again, with the same ids and payloads,
// every record instance from (of the same application) has no outcome for,
// in message order: an application that resumes from its last
// acknowledged record on a new instance. From forgets them.
func (s *Script) Replay(to, from string) error {
	in, err := s.ready(to)
	if err != nil {
		return err
	}
	old, err := s.instance(from)
	if err != nil {
		return err
	}
	if old.app != in.app {
		return fmt.Errorf("%s and %s are instances of different applications", to, from)
	}
	recs := make([]model.Record, 0, old.unresolved.Len())
	old.unresolved.Each(func(rec model.Record) { recs = append(recs, rec) })
	old.unresolved.Clear()
	for _, rec := range recs { // in message-number order
		if in.unresolved.Has(rec.ID.N) {
			continue
		}
		in.unresolved.Put(rec)
		s.w.resendRecord(s.Now(), in, rec, true)
	}
	s.settle()
	return nil
}

// InFlight returns the messages in flight, in send order.
func (s *Script) InFlight() []Flight {
	out := make([]Flight, len(s.st.flight))
	for i, h := range s.st.flight {
		wr, _ := s.w.msgs.Get(h.id)
		out[i] = Flight{ID: h.id, From: s.w.names[s.st.from(h, wr)], To: s.w.names[h.to], Msg: wr.m,
			Response: h.tok.Dir == simnet.Response, Conn: h.tok.Conn}
	}
	return out
}

// errNotInFlight is the error for a message id not in flight.
var errNotInFlight = errors.New("no such message in flight")

// Deliver hands message id to its recipient now, as a run does when it
// arrives.
func (s *Script) Deliver(id uint64) error {
	h, ok := s.st.take(id)
	if !ok {
		return errNotInFlight
	}
	s.w.schedule(s.Now(), Event{kind: evDeliver, node: int32(h.to), msg: h.id, tok: h.tok})
	s.settle()
	return nil
}

// Drop loses message id and nothing else: its connection stays up and
// later messages on it still arrive. TCP cannot do that; it is for
// stories that need one lost message (a datagram's loss).
func (s *Script) Drop(id uint64) error {
	h, ok := s.st.take(id)
	if !ok {
		return errNotInFlight
	}
	s.st.lose(s.Now(), h, "dropped")
	s.settle()
	return nil
}

// Blackhole loses message id as the network loses a TCP segment: its
// connection breaks, so what else is on it is lost and what is sent on it
// later too, until the client reconnects. The client learns of it as
// net.disconnect_notice says (by default at request.timeout.ms). This is
// the loss Kafka's design assumes.
func (s *Script) Blackhole(id uint64) error {
	h, ok := s.st.take(id)
	if !ok {
		return errNotInFlight
	}
	s.st.lose(s.Now(), h, simnet.Lost.String())
	s.w.nw.Break(h.tok.Conn)
	s.w.takeNotices(s.Now())
	s.settle()
	return nil
}

// Reject delivers produce request id to its broker with a reject armed
// for it, as a plan's reject action does: the broker answers every batch
// in it with err and appends nothing.
func (s *Script) Reject(id uint64, err model.ErrCode) error {
	i := slices.IndexFunc(s.st.flight, func(h held) bool { return h.id == id })
	if i < 0 {
		return errNotInFlight
	}
	h := s.st.flight[i]
	wr, _ := s.w.msgs.Get(id)
	b := s.w.nodes[h.to].broker
	if _, ok := wr.m.(*model.ProduceRequest); !ok || b == nil || h.tok.Dir != simnet.Request {
		return fmt.Errorf("cannot reject %s: not a produce request to a broker", wr.m.AppendDescription(nil))
	}
	b.ArmReject(broker.RejectRule{N: wr.reqNo, Client: int32(wr.client), Err: err, Part: -1, Action: -1})
	return s.Deliver(id)
}

// Stabilize delivers the oldest message in flight until none is left or
// limit messages were delivered; it reports whether the network emptied.
func (s *Script) Stabilize(limit int) bool {
	for i := 0; len(s.st.flight) > 0; i++ {
		if i == limit {
			return false
		}
		if err := s.Deliver(s.st.flight[0].id); err != nil {
			panic(err)
		}
	}
	return true
}

// Disconnect breaks instance name's connection to server (a broker "b1",
// ..., or the coordinator "c1") and tells the instance at once, as a
// connection reset does: what is on the connection is lost.
func (s *Script) Disconnect(name, server string) error {
	w := s.w
	in, err := s.instance(name)
	if err != nil {
		return err
	}
	i := slices.Index(w.names, server)
	if i < 0 || !w.isServer(simnet.NodeID(i)) {
		return fmt.Errorf("no server %q", server)
	}
	dest := w.destOf(simnet.NodeID(i))
	c := in.conns[w.connIdx(dest)]
	if c.Gen == 0 || !w.nw.Alive(c) {
		return fmt.Errorf("%s has no connection to %s", name, server)
	}
	w.nw.Break(c)
	w.takeNotices(s.Now())
	w.schedule(s.Now(), Event{kind: evDisconnect, node: int32(in.node), n: uint64(dest + 1), gen: w.nodes[in.node].inc, tok: simnet.Token{Conn: c}})
	s.settle()
	return nil
}

// Fault carries out one fault-plan action now, written as in a plan
// without its time (docs/plans.md): "crash p1", "restart b1 clean",
// "pause p1 5s", "partition p1 | b1", "heal p1 | b1", "drift p1 +200ppm",
// "drop response 3 p1>b1", "reject 4 p1>b1 NOT_LEADER_OR_FOLLOWER".
func (s *Script) Fault(action string) error {
	w := s.w
	p, err := faults.Parse("0s " + action)
	if err != nil {
		return errors.New(strings.Replace(err.Error(), "line 1: ", "", 1))
	}
	if len(p.Actions) != 1 {
		return fmt.Errorf("want one plan action, e.g. crash p1")
	}
	// Lists of their own: the run's plan may hold slices of the World's.
	if err := p.CheckNodes(w.faultNodes(nil)); err != nil {
		return errors.New(strings.Replace(err.Error(), "line 1: ", "", 1))
	}
	a := p.Actions[0]
	a.At, a.Line = s.Now().Duration(), 0
	i := len(w.plan.Actions)
	w.plan.Actions = append(w.plan.Actions, a)
	w.schedule(s.Now(), Event{kind: evFault, n: uint64(i)})
	s.settle()
	return nil
}

// Pending returns the records the applications sent whose outcome is not
// known yet (a crashed instance's count until they are replayed).
func (s *Script) Pending() int64 {
	p, _ := s.w.pending()
	return p
}

// Partitions returns every partition of the topic, in id order, each from
// its leader.
func (s *Script) Partitions() []*storage.Partition {
	out := make([]*storage.Partition, len(s.w.topo.Leaders))
	for p, l := range s.w.topo.Leaders {
		out[p] = s.w.nodes[s.w.brokerNode[l]].broker.Partition(int32(p))
	}
	return out
}

// Check judges the run so far: the checker ([check.Suite]) observes a run
// end now, with the records still pending, and returns the counts and the
// violations. The run end goes to the checker only (the trace has no line
// for it, as the script goes on).
func (s *Script) Check() (check.Counts, []check.Violation) {
	pending, abandoned := s.w.pending()
	o := model.Obs{Kind: model.ObsRunEnd, At: s.Now(), Node: -1, Peer: -1, Text: "script", N: pending, Abandoned: abandoned, Until: s.Now()}
	s.w.chk.Observe(&o)
	return s.w.chk.Finish()
}
