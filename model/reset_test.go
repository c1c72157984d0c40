package model_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/idemsim/idemsim/internal/fieldcmp"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/client"
	"github.com/idemsim/idemsim/model/coordinator"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// A miniature world for the Reset tests: producers, brokers and a
// transaction coordinator wired by a network where every message takes
// 1 ms and some replies are lost, so that runs retry, time out, expire,
// verify transactions and write markers. Node ids: brokers 0..B-1, the
// coordinator B, producers B+1.... A world's nodes can be made new
// (build) or reset in place (reset) for the next workload.

// rwork is one workload: the nodes' settings and the application's sends.
type rwork struct {
	name    string
	brokers int
	leaders []int32
	bcfg    func(id int32) broker.BrokerConfig
	ccfg    coordinator.CoordinatorConfig
	pcfg    []client.ProducerConfig
	records int
	// lose reports whether the n-th reply (1-based) is lost.
	lose func(n int) bool
	// reject is armed on broker 0.
	reject *broker.RejectRule
}

type rwEvent struct {
	at    sim.Time
	seq   int
	kind  uint8
	node  int
	from  model.Peer
	src   int32
	msg   model.Message
	token uint64
	rec   model.Record
}

const (
	evServer uint8 = iota
	evProducer
	evWakeP
	evWakeS
	evSend
)

type rworld struct {
	t     *testing.T
	w     rwork
	bs    []*broker.Broker
	coord *coordinator.Coordinator
	ps    []*client.Producer
	q     []rwEvent
	seq   int
	now   sim.Time
	reqNo int64
	reply int
	// calls records every call's effects when record is set.
	record bool
	calls  []rcall
}

// rcall is one node call's effects, copied (observations by value).
type rcall struct {
	what string
	outs []model.Out
	obs  []model.Obs
}

func (w *rworld) servers() int { return len(w.bs) + 1 }

func (w *rworld) server(n int) model.Server {
	if n < len(w.bs) {
		return w.bs[n]
	}
	return w.coord
}

func brokerOf(n int, brokers int) int32 {
	if n == brokers {
		return model.DestCoordinator
	}
	return int32(n)
}

func nodeOf(dest int32, brokers int) int {
	if dest == model.DestCoordinator {
		return brokers
	}
	return int(dest)
}

// producerRand is producer i's random stream for a workload.
func producerRand(i int) *rand.Rand { return rand.New(rand.NewPCG(uint64(i)+7, 11)) }

// build makes the workload's nodes new.
func (w *rworld) build(wk rwork) {
	w.w = wk
	w.bs = nil
	for i := range wk.brokers {
		w.bs = append(w.bs, broker.NewBroker(wk.bcfg(int32(i))))
	}
	w.coord = coordinator.NewCoordinator(wk.ccfg)
	w.ps = nil
	for i, c := range wk.pcfg {
		w.ps = append(w.ps, client.NewProducer(c, int32(i), wk.leaders, producerRand(i)))
	}
}

// reset makes the world's nodes those of workload wk in place.
// reset resets the nodes for workload wk; with reclaim, it first tells
// them nobody holds what they handed out (Reclaim), as a runner does
// between runs, so that they keep that memory too.
func (w *rworld) reset(wk rwork, reclaim bool) {
	w.w = wk
	if len(w.bs) != wk.brokers || len(w.ps) != len(wk.pcfg) {
		w.t.Fatal("reset: the workloads differ in shape")
	}
	if reclaim {
		for _, b := range w.bs {
			b.Reclaim()
		}
		w.coord.Reclaim()
		for _, p := range w.ps {
			p.Reclaim()
		}
	}
	for i, b := range w.bs {
		b.Reset(wk.bcfg(int32(i)))
	}
	w.coord.Reset(wk.ccfg)
	for i, p := range w.ps {
		p.Reset(wk.pcfg[i], int32(i), wk.leaders, producerRand(i))
	}
}

func (w *rworld) push(e rwEvent) {
	w.seq++
	e.seq = w.seq
	w.q = append(w.q, e)
}

func (w *rworld) pop() rwEvent {
	best := 0
	for i := range w.q {
		if a, b := w.q[i], w.q[best]; a.at < b.at || a.at == b.at && a.seq < b.seq {
			best = i
		}
	}
	e := w.q[best]
	w.q = slices.Delete(w.q, best, best+1)
	return e
}

// run drives the workload to its end and returns the number of events.
func (w *rworld) run() int {
	w.q, w.seq, w.now, w.reqNo, w.reply = w.q[:0], 0, 0, 0, 0
	if r := w.w.reject; r != nil {
		w.bs[0].ArmReject(*r)
	}
	nb := len(w.bs)
	for i, p := range w.ps {
		w.producerOuts(i, "start", p.Start(0))
	}
	for k := range w.w.records {
		part := int32(k % len(w.w.leaders))
		for i := range w.ps {
			id := model.RecordID{App: int32(i), N: int64(k)}
			w.push(rwEvent{at: sim.Time(k) * sim.Time(2*time.Millisecond), kind: evSend, node: nb + 1 + i,
				rec: model.Record{ID: id, Partition: part, Digest: model.Digest(id, 0)}})
		}
	}
	n := 0
	for len(w.q) > 0 && n < 5000 {
		e := w.pop()
		w.now = e.at
		n++
		switch e.kind {
		case evServer:
			w.serverOuts(e.node, "step", w.server(e.node).Step(w.now, e.from, e.msg))
		case evWakeS:
			w.serverOuts(e.node, "wake", w.server(e.node).Wake(w.now, e.token))
		case evProducer:
			i := e.node - nb - 1
			w.producerOuts(i, "receive", w.ps[i].Receive(w.now, e.src, e.msg))
		case evWakeP:
			i := e.node - nb - 1
			w.producerOuts(i, "wake", w.ps[i].Wake(w.now, e.token))
		case evSend:
			i := e.node - nb - 1
			e.rec.SentAt = w.now
			w.producerOuts(i, "send", w.ps[i].Send(w.now, e.rec))
		}
	}
	if n >= 5000 {
		w.t.Fatal("the workload does not end")
	}
	return n
}

func (w *rworld) note(node int, what string, outs []model.Out) {
	if !w.record {
		return
	}
	c := rcall{what: fmt.Sprintf("%v node %d %s", w.now, node, what), outs: slices.Clone(outs)}
	for i := range c.outs {
		if o := c.outs[i].Obs; o != nil {
			c.obs = append(c.obs, *o)
			c.outs[i].Obs = nil
		}
	}
	c.outs = keepOuts(c.outs)
	w.calls = append(w.calls, c)
}

func (w *rworld) producerOuts(i int, what string, outs []model.Out) {
	nb := len(w.bs)
	self := nb + 1 + i
	w.note(self, what, outs)
	for _, o := range outs {
		switch o.Kind {
		case model.OutSend:
			w.reqNo++
			w.push(rwEvent{at: w.now.Add(time.Millisecond), kind: evServer, node: nodeOf(o.Dest, nb), msg: o.Msg,
				from: model.Peer{Node: int32(self), ReqNo: w.reqNo, Handle: uint64(self)}})
		case model.OutWake:
			w.push(rwEvent{at: o.At, kind: evWakeP, node: self, token: o.Timer})
		}
	}
}

func (w *rworld) serverOuts(n int, what string, outs []model.Out) {
	nb := len(w.bs)
	w.note(n, what, outs)
	for _, o := range outs {
		switch o.Kind {
		case model.OutReply:
			w.reply++
			if w.w.lose != nil && w.w.lose(w.reply) {
				continue
			}
			to := int(o.Peer.Handle)
			if to > nb {
				w.push(rwEvent{at: w.now.Add(time.Millisecond), kind: evProducer, node: to, src: brokerOf(n, nb), msg: o.Msg})
			} else {
				w.push(rwEvent{at: w.now.Add(time.Millisecond), kind: evServer, node: to, msg: o.Msg, from: model.Peer{Node: int32(n)}})
			}
		case model.OutSend:
			w.reqNo++
			w.push(rwEvent{at: w.now.Add(time.Millisecond), kind: evServer, node: nodeOf(o.Dest, nb), msg: o.Msg,
				from: model.Peer{Node: int32(n), ReqNo: w.reqNo, Handle: uint64(n)}})
		case model.OutWake:
			w.push(rwEvent{at: o.At, kind: evWakeS, node: n, token: o.Timer})
		}
	}
}

// resetWorks are workloads unlike each other: idempotent with lost
// acknowledgements, rejects, not-ready partitions and producer-state
// expiry; transactional (verification, markers); plain; one broker
// leading everything.
func resetWorks(t *testing.T) []rwork {
	resolve := func(mut func(*client.ProducerConfig)) client.ProducerConfig {
		c := client.DefaultProducerConfig()
		c.Linger = 0
		c.Brokers = 2
		c.DeliveryTimeout = 400 * time.Millisecond
		c.RequestTimeout = 100 * time.Millisecond
		c.RetryBackoff = 10 * time.Millisecond
		c.ReconnectBackoff = 5 * time.Millisecond
		mut(&c)
		eff, _, err := c.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		return eff
	}
	bcfg := func(leaders []int32, mut func(*broker.BrokerConfig)) func(int32) broker.BrokerConfig {
		return func(id int32) broker.BrokerConfig {
			c := broker.BrokerConfig{ID: id, Leaders: leaders, ExpirationCheckInterval: 50 * time.Millisecond,
				Partition: storage.PartitionConfig{ProducerIDExpiration: 200 * time.Millisecond},
				Rand:      rand.New(rand.NewPCG(uint64(id), 3)), VerificationTimeout: 100 * time.Millisecond}
			if mut != nil {
				mut(&c)
			}
			return c
		}
	}
	two := []int32{0, 1, 0}
	return []rwork{
		{name: "idempotent-lossy", brokers: 2, leaders: two, bcfg: bcfg(two, func(c *broker.BrokerConfig) { c.NotReadyBatches = 1; c.TransientPPM = 100_000 }),
			ccfg:    coordinator.CoordinatorConfig{Leaders: two},
			pcfg:    []client.ProducerConfig{resolve(func(c *client.ProducerConfig) {}), resolve(func(c *client.ProducerConfig) { c.BatchSize = 2; c.Linger = time.Millisecond })},
			records: 24, lose: func(n int) bool { return n%5 == 2 },
			reject: &broker.RejectRule{N: 3, Client: 3, Err: model.ErrNotEnoughReplicas, Part: -1}},
		{name: "transactional", brokers: 2, leaders: two, bcfg: bcfg(two, nil),
			ccfg: coordinator.CoordinatorConfig{Leaders: two, TimeoutCheckInterval: 100 * time.Millisecond},
			pcfg: []client.ProducerConfig{resolve(func(c *client.ProducerConfig) { c.TransactionalID = "t1"; c.TransactionRecords = 4 }),
				resolve(func(c *client.ProducerConfig) {
					c.TransactionalID = "t2"
					c.TransactionRecords = 3
					c.TransactionVersion = 2
				})},
			records: 14, lose: func(n int) bool { return n%7 == 3 }},
		{name: "plain", brokers: 2, leaders: []int32{1, 0}, bcfg: bcfg([]int32{1, 0}, nil),
			ccfg: coordinator.CoordinatorConfig{Leaders: []int32{1, 0}},
			pcfg: []client.ProducerConfig{resolve(func(c *client.ProducerConfig) { c.EnableIdempotence = false; c.IdempotenceExplicit = true; c.Acks = 1 }),
				resolve(func(c *client.ProducerConfig) { c.Policy = client.PolicyLibrdkafka })},
			records: 10, lose: func(n int) bool { return n%4 == 1 }},
		{name: "one-leader", brokers: 2, leaders: []int32{0, 0}, bcfg: bcfg([]int32{0, 0}, func(c *broker.BrokerConfig) { c.ExpirationCheckInterval = 0 }),
			ccfg:    coordinator.CoordinatorConfig{Leaders: []int32{0, 0}, NextPID: 77},
			pcfg:    []client.ProducerConfig{resolve(func(c *client.ProducerConfig) { c.Policy = client.PolicyFranzGo }), resolve(func(c *client.ProducerConfig) { c.MaxInFlight = 1 })},
			records: 8},
	}
}

// resetSkipped are the fields a reset node may hold otherwise than a new
// one: allocator state (pools, spare memory). skipReset is its test for
// fieldcmp.Diff.
var resetSkipped = map[string]bool{
	"client.Producer.pool":              true,
	"broker.Broker.pool":                true,
	"broker.Broker.msgs":                true,
	"coordinator.coordinatorNode.msgs":  true,
	"coordinator.GroupCoordinator.msgs": true,
	"broker.LeaderState.msgs":           true, // the broker's pool
	"broker.ReplicaFetcher.msgs":        true,
	"storage.Partition.spare":           true,
	"client.partState.sp":               true,
	"client.dconn.spare":                true,
	"model.ObsSlab.spare":               true,
	"model.EffectStack.bufs":            true,
	"coordinator.txnLog.spare":          true,
}

func skipReset(typ, field string) bool { return resetSkipped[typ+"."+field] }

// nodes returns the world's nodes, for comparison.
func (w *rworld) nodes() []any {
	out := []any{w.coord}
	for _, b := range w.bs {
		out = append(out, b)
	}
	for _, p := range w.ps {
		out = append(out, p)
	}
	return out
}

func nodeDiff(used, fresh []any) string {
	for i := range used {
		path := reflect.TypeOf(used[i]).Elem().Name() + fmt.Sprint(i)
		if d := fieldcmp.Diff(reflect.ValueOf(used[i]).Elem(), reflect.ValueOf(fresh[i]).Elem(), path, skipReset); d != "" {
			return d
		}
	}
	return ""
}

// TestResetFieldByField: nodes that ran a workload (in every order of
// the workloads), Reset for the next, equal new nodes field by field,
// through their partitions, connections, batches and maps, with nil and
// empty told apart and only capacities and allocator state ignored. A
// field added to a node without its reset fails here.
func TestResetFieldByField(t *testing.T) {
	works := resetWorks(t)
	for _, reclaim := range []bool{false, true} {
		for _, a := range works {
			for _, b := range works {
				w := &rworld{t: t}
				w.build(a)
				if w.run() < 20 {
					t.Fatalf("workload %s: too few events to tell", a.name)
				}
				fresh := &rworld{t: t}
				fresh.build(b)
				if d := nodeDiff(w.nodes(), fresh.nodes()); d == "" && a.name == b.name {
					t.Fatalf("workload %s: the run changed nothing", a.name)
				}
				w.reset(b, reclaim)
				if d := nodeDiff(w.nodes(), fresh.nodes()); d != "" {
					t.Errorf("%s, then Reset for %s (reclaim %v): %s", a.name, b.name, reclaim, d)
				}
			}
		}
	}
}

// TestResetLeaksNothing: nodes that ran one workload and were Reset for
// another (each workload also after itself) make, call by call, the
// effects and observations new nodes make.
func TestResetLeaksNothing(t *testing.T) {
	works := resetWorks(t)
	for _, reclaim := range []bool{false, true} {
		for _, a := range works {
			for _, b := range works {
				fresh := &rworld{t: t, record: true}
				fresh.build(b)
				fresh.run()
				w := &rworld{t: t}
				w.build(a)
				w.run()
				w.reset(b, reclaim)
				w.record = true
				w.run()
				if len(w.calls) != len(fresh.calls) {
					t.Errorf("%s, then %s: %d calls, new nodes %d", a.name, b.name, len(w.calls), len(fresh.calls))
				}
				for i := range min(len(w.calls), len(fresh.calls)) {
					if !reflect.DeepEqual(w.calls[i], fresh.calls[i]) {
						t.Errorf("%s, then %s: call %d differs:\nreset %+v\nnew   %+v", a.name, b.name, i, w.calls[i], fresh.calls[i])
						t.Errorf("(reclaim %v)", reclaim)
						break
					}
				}
			}
		}
	}
}

// TestResetAllocs: running a small workload again on reset nodes
// allocates much less than on new nodes (the world's own events are the
// same in both).
func TestResetAllocs(t *testing.T) {
	wk := resetWorks(t)[0]
	wk.lose, wk.reject = nil, nil
	w := &rworld{t: t}
	w.build(wk)
	w.run()
	measure := func(f func()) (allocs, bytes float64) {
		const n = 20
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		for range n {
			f()
		}
		runtime.ReadMemStats(&m1)
		return float64(m1.Mallocs-m0.Mallocs) / n, float64(m1.TotalAlloc-m0.TotalAlloc) / n
	}
	newA, newB := measure(func() { w.build(wk); w.run() })
	resetA, resetB := measure(func() { w.reset(wk, false); w.run() })
	t.Logf("workload %s (%d records, %d producers): new nodes %.0f allocs %.0f B per run; reset nodes %.0f allocs %.0f B",
		wk.name, wk.records, len(wk.pcfg), newA, newB, resetA, resetB)
	if resetB > newB/2 {
		t.Errorf("reset nodes allocate %.0f B per run, new ones %.0f: want at most half", resetB, newB)
	}
}

// TestResetWorkloads: the workloads reach what the Reset tests must
// cover: expiries, transactions, markers, producer-state expiry.
func TestResetWorkloads(t *testing.T) {
	seen := map[string]bool{}
	for _, wk := range resetWorks(t) {
		w := &rworld{t: t, record: true}
		w.build(wk)
		w.run()
		for _, c := range w.calls {
			for _, o := range c.outs {
				seen[fmt.Sprint("out ", o.Kind)] = true
				if o.Kind == model.OutResult {
					seen["result "+o.Result.Err.String()] = true
				}
			}
			for _, o := range c.obs {
				seen[fmt.Sprint("obs ", o.Kind)] = true
			}
		}
	}
	for _, k := range []string{fmt.Sprint("out ", model.OutTxnResult), fmt.Sprint("out ", model.OutClose), "result " + model.ErrDeliveryTimeout.String(),
		fmt.Sprint("obs ", model.ObsExpired), fmt.Sprint("obs ", model.ObsMarker), fmt.Sprint("obs ", model.ObsVerdict)} {
		if !seen[k] {
			t.Errorf("no workload has %s", k)
		}
	}
}

// TestGroupCoordinatorReset: a group coordinator that committed offsets
// and has a group with members,
// Reset, equals a new one field by field and answers as a new one does.
func TestGroupCoordinatorReset(t *testing.T) {
	script := func(g *coordinator.GroupCoordinator) (calls []rcall) {
		for i, m := range []model.Message{
			&model.TxnOffsetCommitRequest{CorrelationID: 1, GroupID: "g", PID: 5, Epoch: 1, Offset: 10},
			&model.WriteTxnMarkersRequest{Markers: []model.TxnMarker{{PID: 5, Epoch: 1, Marker: model.MarkerCommit}}},
			&model.TxnOffsetCommitRequest{CorrelationID: 2, GroupID: "h", PID: 6, Epoch: 0, Offset: 3},
			&model.OffsetFetchRequest{GroupID: "h"},
			&model.JoinGroupRequest{CorrelationID: 3, GroupID: "g", GroupInstanceID: "i", ClientID: "c", Protocols: []string{model.RangeAssignorName},
				SessionTimeout: 10 * time.Second, RebalanceTimeout: 30 * time.Second},
			&model.JoinGroupRequest{CorrelationID: 4, GroupID: "g", ClientID: "d", Protocols: []string{model.RangeAssignorName},
				SessionTimeout: 10 * time.Second, RebalanceTimeout: 30 * time.Second},
		} {
			outs := g.Step(sim.Time(i), model.Peer{Node: 1, ReqNo: int64(i + 1)}, m)
			c := rcall{outs: slices.Clone(outs)}
			for j := range c.outs {
				if o := c.outs[j].Obs; o != nil {
					c.obs = append(c.obs, *o)
					c.outs[j].Obs = nil
				}
			}
			calls = append(calls, c)
		}
		return calls
	}
	g := coordinator.NewGroupCoordinator()
	script(g)
	if d := fieldcmp.Diff(reflect.ValueOf(g).Elem(), reflect.ValueOf(coordinator.NewGroupCoordinator()).Elem(), "GroupCoordinator", skipReset); d == "" {
		t.Fatal("the script changed nothing")
	}
	g.Reset()
	if d := fieldcmp.Diff(reflect.ValueOf(g).Elem(), reflect.ValueOf(coordinator.NewGroupCoordinator()).Elem(), "GroupCoordinator", skipReset); d != "" {
		t.Errorf("Reset leaves %s", d)
	}
	if got, want := script(g), script(coordinator.NewGroupCoordinator()); !reflect.DeepEqual(got, want) {
		t.Errorf("after Reset:\n%+v\nnew:\n%+v", got, want)
	}
}
