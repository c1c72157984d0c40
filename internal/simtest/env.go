package simtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// BrokerName and CoordName are the names of the broker (destination 0)
// and of the InitProducerId allocator (model.DestCoordinator).
const (
	BrokerName = "b0"
	CoordName  = "coord"
)

// Env is one interaction: a broker, an allocator, producers and the
// network between them. Every step writes what happened to Out.
type Env struct {
	Now       sim.Time
	Out       strings.Builder
	Broker    *model.Broker
	Coord     *Coordinator
	Producers []*Node
	// Net is the network: messages in flight, in the order they were sent.
	Net     []*Envelope
	Checker *model.Checker
	seed    uint64
	nextMsg int
	nextN   []int64 // next message number per app
}

// Node is one producer instance.
type Node struct {
	Name string
	App  int32
	P    *model.Producer
	// gen is the current connection generation per destination (index
	// dest+1); open tells whether it is open.
	gen  [2]int
	open [2]bool
	// dead marks connection generations that lost a message: like a TCP
	// connection that stopped delivering, nothing more gets through until
	// the producer closes it.
	dead [2]int
	// wakeAt and wakeTok are the producer's latest wake-up request.
	wakeAt  sim.Time
	wakeTok uint64
	crashed bool
	sent    []model.Record
	settled map[model.RecordID]bool
}

// Envelope is one message in flight between a producer (Node) and the
// broker or the allocator (Dest), on connection generation Gen.
type Envelope struct {
	ID     int
	Node   *Node
	Dest   int32
	ToNode bool // a response travelling to the producer
	Gen    int
	Msg    model.Message
}

// From and To return the sender's and recipient's names.
func (e *Envelope) From() string {
	if e.ToNode {
		return destName(e.Dest)
	}
	return e.Node.Name
}

// To returns the recipient's name.
func (e *Envelope) To() string {
	if e.ToNode {
		return e.Node.Name
	}
	return destName(e.Dest)
}

// Type returns the message type: Produce, ProduceResp, InitProducerId or
// InitProducerIdResp.
func (e *Envelope) Type() string {
	switch e.Msg.(type) {
	case *model.ProduceRequest:
		return "Produce"
	case *model.ProduceResponse:
		return "ProduceResp"
	case *model.InitProducerIDRequest:
		return "InitProducerId"
	case *model.InitProducerIDResponse:
		return "InitProducerIdResp"
	}
	return fmt.Sprintf("%T", e.Msg)
}

// Describe returns "p1->b0 Produce#1 {...}".
func (e *Envelope) Describe() string {
	return e.From() + "->" + e.To() + " " + string(e.Msg.AppendDescription(nil))
}

func destName(d int32) string {
	if d == model.DestCoordinator {
		return CoordName
	}
	return "b" + strconv.Itoa(int(d))
}

// New returns an empty environment; seed feeds the producers' streams.
func New(seed uint64) *Env {
	return &Env{Coord: NewCoordinator(), Checker: model.NewChecker(), seed: seed}
}

// NewBroker creates the broker, leading partitions 0..parts-1.
func (e *Env) NewBroker(parts int, cfg model.PartitionConfig) {
	e.Broker = model.NewBroker(parts, cfg)
}

// NewProducer adds a producer instance named name for application app (a
// new application when app < 0) with the resolved configuration cfg.
func (e *Env) NewProducer(name string, app int32, cfg model.ProducerConfig) *Node {
	if e.Broker == nil {
		e.NewBroker(1, model.PartitionConfig{})
	}
	if app < 0 {
		app = int32(len(e.nextN))
	}
	for int(app) >= len(e.nextN) {
		e.nextN = append(e.nextN, 0)
	}
	leaders := make([]int32, len(e.Broker.Partitions()))
	n := &Node{Name: name, App: app, wakeAt: -1, settled: make(map[model.RecordID]bool)}
	n.P = model.NewProducer(cfg, app, leaders, sim.NewRand(e.seed, sim.StreamID("producer/"+name)))
	e.Producers = append(e.Producers, n)
	return n
}

// Node returns the producer named name, or nil.
func (e *Env) Node(name string) *Node {
	for _, n := range e.Producers {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func (e *Env) printf(format string, args ...any) { fmt.Fprintf(&e.Out, format, args...) }

// Start starts n.
func (e *Env) Start(n *Node) { e.apply(n, n.P.Start(e.Now)) }

// Send makes n's application send one new record to part.
func (e *Env) Send(n *Node, part int32) model.RecordID {
	id := model.RecordID{App: n.App, N: e.nextN[n.App]}
	e.nextN[n.App]++
	e.sendRecord(n, model.Record{ID: id, Digest: model.Digest(id, 0), Partition: part, SentAt: e.Now})
	return id
}

func (e *Env) sendRecord(n *Node, r model.Record) {
	e.Checker.OnSend()
	n.sent = append(n.sent, r)
	e.apply(n, n.P.Send(e.Now, r))
}

// Replay makes n re-send every record of from that has no outcome, with
// the same ids and payloads: an application restarting from its last
// acknowledged position (bug-zoo Z04).
func (e *Env) Replay(n, from *Node) {
	for _, r := range from.sent {
		if from.settled[r.ID] {
			continue
		}
		from.settled[r.ID] = true // from is done with it
		r.SentAt = e.Now
		n.sent = append(n.sent, r)
		e.apply(n, n.P.Send(e.Now, r))
	}
}

// Crash stops n: it handles nothing more, and what it has on the network
// stays there (a zombie's requests can still arrive).
func (e *Env) Crash(n *Node) {
	n.crashed = true
	n.wakeAt = -1
	e.printf("%s crashed\n", n.Name)
}

// apply carries out n's effects.
func (e *Env) apply(n *Node, outs []model.Out) {
	for i := range outs {
		o := &outs[i]
		d := o.Dest + 1
		switch o.Kind {
		case model.OutConnect:
			n.gen[d]++
			n.open[d] = true
		case model.OutClose:
			if n.open[d] { // else the network closed it already
				n.open[d] = false
				e.dropConn(n, o.Dest, n.gen[d])
			}
		case model.OutSend:
			e.nextMsg++
			env := &Envelope{ID: e.nextMsg, Node: n, Dest: o.Dest, Gen: n.gen[d], Msg: o.Msg}
			if n.dead[d] == n.gen[d] {
				e.printf("%s lost on a dead connection\n", env.Describe())
				continue
			}
			e.Net = append(e.Net, env)
			e.printf("%s\n", env.Describe())
		case model.OutWake:
			n.wakeAt, n.wakeTok = o.At, o.Timer
		case model.OutResult:
			r := o.Result
			n.settled[r.ID] = true
			e.Checker.OnOutcome(r)
			if r.Err == model.ErrNone {
				e.printf("%s ack %v off=%d\n", n.Name, r.ID, r.Offset)
			} else {
				e.printf("%s fail %v %v\n", n.Name, r.ID, r.Err)
			}
		case model.OutNote:
			e.printf("%s: %s\n", n.Name, o.Note)
		}
	}
}

// dropConn removes what is on connection (n, dest, gen) from the network.
func (e *Env) dropConn(n *Node, dest int32, gen int) {
	var lost []string
	e.Net = slices.DeleteFunc(e.Net, func(m *Envelope) bool {
		if m.Node == n && m.Dest == dest && m.Gen == gen {
			desc := string(m.Msg.AppendDescription(nil))
			if i := strings.IndexByte(desc, ' '); i >= 0 {
				desc = desc[:i]
			}
			lost = append(lost, desc)
			return true
		}
		return false
	})
	e.printf("%s closed connection to %s", n.Name, destName(dest))
	if len(lost) > 0 {
		e.printf(" (lost %s)", strings.Join(lost, ", "))
	}
	e.printf("\n")
}

// Disconnect breaks n's connection to dest from the network's side.
func (e *Env) Disconnect(n *Node, dest int32) {
	d := dest + 1
	if !n.open[d] {
		e.printf("%s has no connection to %s\n", n.Name, destName(dest))
		return
	}
	n.open[d] = false
	e.dropConn(n, dest, n.gen[d])
	e.apply(n, n.P.Disconnected(e.Now, dest))
}

// Filter selects messages in flight; empty fields match anything.
type Filter struct {
	From, To, Type string
}

func (f Filter) match(m *Envelope) bool {
	return (f.From == "" || f.From == m.From()) && (f.To == "" || f.To == m.To()) && (f.Type == "" || f.Type == m.Type())
}

// Select returns up to n (all when n <= 0) messages in flight matching f,
// oldest first.
func (e *Env) Select(f Filter, n int) []*Envelope {
	var out []*Envelope
	for _, m := range e.Net {
		if f.match(m) && (n <= 0 || len(out) < n) {
			out = append(out, m)
		}
	}
	return out
}

// Drop removes m from the network.
func (e *Env) Drop(m *Envelope) {
	e.remove(m)
	e.printf("dropped %s\n", m.Describe())
}

// Blackhole loses m as a TCP connection loses data: m and everything else
// on its connection is gone, and so is whatever is sent on it later, until
// the producer closes it (typically after request.timeout.ms). This is the
// loss Kafka's design assumes (spec S.2); Drop goes beyond it.
func (e *Env) Blackhole(m *Envelope) {
	n, d := m.Node, m.Dest+1
	n.dead[d] = m.Gen
	e.Net = slices.DeleteFunc(e.Net, func(o *Envelope) bool { return o.Node == n && o.Dest == m.Dest && o.Gen == m.Gen })
	e.printf("connection %s-%s stops delivering (lost %s)\n", n.Name, destName(m.Dest), m.Describe())
}

func (e *Env) remove(m *Envelope) {
	if i := slices.Index(e.Net, m); i >= 0 {
		e.Net = slices.Delete(e.Net, i, i+1)
	}
}

// Deliver hands m to its recipient.
func (e *Env) Deliver(m *Envelope) {
	e.remove(m)
	n := m.Node
	if m.ToNode {
		if n.crashed {
			e.printf("%s is down: %s lost\n", n.Name, m.Type())
			return
		}
		e.apply(n, n.P.Receive(e.Now, m.Dest, m.Msg))
		return
	}
	var resp model.Message
	switch req := m.Msg.(type) {
	case *model.ProduceRequest:
		r, results := e.Broker.HandleProduce(e.Now, req)
		for i, res := range results {
			bt := &req.Batches[i]
			desc := string(bt.AppendDescription(nil))
			switch {
			case res.Duplicate:
				e.printf("b0 duplicate %s off=%d..%d\n", desc, res.FirstOffset, res.LastOffset)
			case res.Err == model.ErrNone:
				e.printf("b0 append %s off=%d..%d\n", desc, res.FirstOffset, res.LastOffset)
				log := e.Broker.Partition(bt.Partition).Log()
				e.Checker.OnAppend(e.Now, &log[len(log)-1])
			default:
				e.printf("b0 reject %s %v (%s)\n", desc, res.Err, res.Reason)
			}
		}
		if r != nil {
			resp = r
		}
	case *model.InitProducerIDRequest:
		resp = e.Coord.InitProducerID(req)
	}
	if resp != nil && n.dead[m.Dest+1] == m.Gen {
		e.printf("%s lost on a dead connection\n", string(resp.AppendDescription(nil)))
		return
	}
	if resp != nil {
		e.nextMsg++
		env := &Envelope{ID: e.nextMsg, Node: n, Dest: m.Dest, ToNode: true, Gen: m.Gen, Msg: resp}
		e.Net = append(e.Net, env)
		e.printf("%s\n", env.Describe())
	}
}

// Reject takes the Produce request m off the network without appending
// anything and answers every batch in it with err, as a broker that lost
// leadership or producer state would (NOT_LEADER_OR_FOLLOWER,
// UNKNOWN_PRODUCER_ID, ...).
func (e *Env) Reject(m *Envelope, err model.ErrCode) {
	e.remove(m)
	req, ok := m.Msg.(*model.ProduceRequest)
	if !ok || m.ToNode {
		e.printf("cannot reject %s\n", m.Describe())
		return
	}
	resp := &model.ProduceResponse{CorrelationID: req.CorrelationID}
	for i := range req.Batches {
		bt := &req.Batches[i]
		e.printf("b0 reject %s %v (injected)\n", string(bt.AppendDescription(nil)), err)
		resp.Partitions = append(resp.Partitions, model.PartitionResponse{Partition: bt.Partition, Err: err, BaseOffset: -1})
	}
	e.nextMsg++
	env := &Envelope{ID: e.nextMsg, Node: m.Node, Dest: m.Dest, ToNode: true, Gen: m.Gen, Msg: resp}
	e.Net = append(e.Net, env)
	e.printf("%s\n", env.Describe())
}

// Stabilize delivers messages, oldest first, until none is left or limit
// deliveries were made. It returns false if the limit was hit.
func (e *Env) Stabilize(limit int) bool {
	for i := 0; len(e.Net) > 0; i++ {
		if i == limit {
			return false
		}
		e.Deliver(e.Net[0])
	}
	return true
}

// Advance moves time to to, waking producers whose wake-ups fall due on the
// way, earliest first (ties in producer order).
func (e *Env) Advance(to sim.Time) {
	for {
		var next *Node
		for _, n := range e.Producers {
			if !n.crashed && n.wakeAt >= 0 && n.wakeAt <= to && (next == nil || n.wakeAt < next.wakeAt) {
				next = n
			}
		}
		if next == nil {
			break
		}
		if next.wakeAt > e.Now {
			e.Now = next.wakeAt
		}
		tok := next.wakeTok
		next.wakeAt = -1
		e.apply(next, next.P.Wake(e.Now, tok))
	}
	if to > e.Now {
		e.Now = to
	}
}

// NextWake returns the earliest pending wake-up, or -1.
func (e *Env) NextWake() sim.Time {
	t := sim.Time(-1)
	for _, n := range e.Producers {
		if !n.crashed && n.wakeAt >= 0 && (t < 0 || n.wakeAt < t) {
			t = n.wakeAt
		}
	}
	return t
}

// Pending returns the records still without an outcome at live producers.
func (e *Env) Pending() int64 {
	var p int64
	for _, n := range e.Producers {
		if !n.crashed {
			p += int64(n.P.Pending())
		}
	}
	return p
}

// Check judges the run with the model's checker.
func (e *Env) Check() (model.Counts, []model.Violation) {
	parts := e.Broker.Partitions()
	logs := make([][]model.LogEntry, len(parts))
	for i, p := range parts {
		logs[i] = p.Log()
	}
	return e.Checker.Finish(e.Now, logs, e.Pending())
}

// Coordinator is the harness's InitProducerId allocator: fresh producer
// ids from 1000 without a transactional id; with one, the same id and the
// epoch plus one, or PRODUCER_FENCED when the request carries an expected
// pid/epoch that is not the current one (a small part of spec T1). The
// real coordinator is model.Coordinator's job.
type Coordinator struct {
	next model.ProducerID
	txn  map[string]*txnEntry
}

type txnEntry struct {
	pid   model.ProducerID
	epoch int16
}

// NewCoordinator returns an allocator whose first producer id is 1000.
func NewCoordinator() *Coordinator {
	return &Coordinator{next: 1000, txn: make(map[string]*txnEntry)}
}

// InitProducerID answers r.
func (c *Coordinator) InitProducerID(r *model.InitProducerIDRequest) *model.InitProducerIDResponse {
	resp := &model.InitProducerIDResponse{CorrelationID: r.CorrelationID}
	if r.TransactionalID == "" {
		resp.PID = c.next
		c.next++
		return resp
	}
	e := c.txn[r.TransactionalID]
	if e == nil {
		e = &txnEntry{pid: c.next, epoch: -1}
		c.next++
		c.txn[r.TransactionalID] = e
	}
	if r.ExpectedPID != model.NoProducerID && (r.ExpectedPID != e.pid || r.ExpectedEpoch != e.epoch) {
		resp.Err, resp.PID, resp.Epoch = model.ErrProducerFenced, model.NoProducerID, model.NoEpoch
		return resp
	}
	e.epoch++
	resp.PID, resp.Epoch = e.pid, e.epoch
	return resp
}
