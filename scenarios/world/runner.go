package world

import (
	"math/rand/v2"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	"github.com/idemsim/idemsim/model/client"
	"github.com/idemsim/idemsim/model/coordinator"
)

// A sweep runs thousands of seeds of one scenario, one after another on
// each worker. Building every run's World from nothing allocates its
// event queue, message and route tables, receive buffers, effect buffers
// and readers afresh, and the garbage collector then spends a good part
// of the sweep freeing them. A [Runner] keeps the previous run's World
// and builds the next run in its memory.
//
// Only storage is kept, never state: recycle zeroes the World and hands
// back its buffers emptied, and every reader that keeps memory (the
// trace, the counters) is rebuilt by its constructor from that storage.
// Nothing a [Result] holds is reused (its latencies are copied, its
// errors map is the run's own; it holds no message or record, which is
// why the nodes may reclaim theirs), so results of earlier runs stay
// valid.
// TestRunnerMatchesRun runs the catalogue both ways and compares every
// result.

// Runner runs setups one after another, reusing the memory of its
// previous run's World. The zero value is ready to use. A Runner is not
// safe for concurrent use: give each goroutine its own.
type Runner struct {
	w *World
	// spare is a Result handed back by Recycle, for the next run.
	spare *Result
	// setup is the current run's setup, copied here so that the World
	// can keep a pointer to it without a new allocation per run.
	setup Setup
}

// Run builds s's World in the memory of the runner's previous run and
// runs it to its end. The error is a configuration error (a plan that
// does not fit the world, a scenario that cannot build); invariant
// violations are reported in the result. Result.Reproduce is left to the
// caller, which knows the command line.
func (r *Runner) Run(s *Setup) (*Result, error) {
	if r.w != nil {
		// The next run writes its result in the recycled one's memory.
		r.w.resultMem, r.spare = r.spare, nil
	}
	r.setup = *s
	old := r.w
	r.w = nil
	w, err := newWorld(old, &r.setup)
	if err != nil {
		// A failed build keeps nothing: its World may be half made.
		return nil, err
	}
	r.w = w
	return w.run(&r.setup)
}

// PlanText returns the fault plan s's run would use, as text: the
// replayed plan of s.PlanText, or the one the seed draws.
func PlanText(s *Setup) (string, error) {
	w, err := newWorld(nil, s)
	if err != nil {
		return "", err
	}
	if err := w.initFaults(s.PlanText, s.PlanSource); err != nil {
		return "", err
	}
	return w.plan.String(), nil
}

// Recycle hands res, a Result this runner returned, back to it: the
// caller is done with it and with everything it holds (its lists and its
// errors map), so that the next Run may write its result there instead of
// in new memory. A sweep recycles the results it has written out. res
// must not be used after; nil does nothing.
func (r *Runner) Recycle(res *Result) {
	if res != nil {
		r.spare = res
	}
}

// recycle returns a World for a new run: a new one when w is nil, else w
// itself, zeroed, with only the storage of its tables and buffers kept
// (emptied; the element storage cleared so that it keeps nothing of the
// old run alive).
func (w *World) recycle() *World {
	if w == nil {
		return &World{}
	}
	loop, msgs, routes, rands := w.loop, w.msgs, w.routes, w.rands
	rands.Reset()
	loop.Reset()
	msgs.Reset()
	routes.Reset()
	free := w.srvFree
	for _, sc := range w.srvConns {
		free = append(free, sc)
	}
	for _, sc := range free {
		clear(sc.queue[:cap(sc.queue)])
		*sc = srvConn{queue: sc.queue[:0]}
	}
	effs := w.effs.Recycle()
	spare := w.spareNodes()
	nodes := w.nodes
	clear(nodes[:cap(nodes)])
	trace, stats, resultMem := w.trace, w.stats, w.resultMem
	// The application lists' storage, emptied (spareNodes took the
	// structs).
	apps, instances := w.apps[:cap(w.apps)], w.instances[:cap(w.instances)]
	clear(apps)
	clear(instances)
	clear(w.finalLog[:cap(w.finalLog)]) // its entries point to records of the run
	*w = World{
		loop: loop, msgs: msgs, routes: routes, rands: rands,
		srvFree: free, srvConns: w.srvConns[:0],
		effs:  effs,
		nodes: nodes[:0],
		dests: w.dests[:0], connRows: w.connRows[:0], reqCount: w.reqCount[:0],
		trace: trace, stats: stats, nw: w.nw, chk: w.chk, bumps: w.bumps,
		obs: w.obs[:0], brokerNode: w.brokerNode[:0], spare: spare, resultMem: resultMem,
		apps: apps[:0], instances: instances[:0], starts: w.starts[:0],
		spareMem: w.spareMem, spareNext: w.spareNext, textBuf: w.textBuf[:0], nodesBuf: w.nodesBuf,
		finalLog: w.finalLog[:0], finalRecs: w.finalRecs[:0],
	}
	clear(w.srvConns[:cap(w.srvConns)])
	return w
}

// spares are a finished run's model nodes, for the next run to reset in
// place (their constructors' results, in memory they keep: model's Reset
// methods say what each keeps and why no one else holds it).
type spares struct {
	// apps and instances are the application side's structs, emptied
	// (their bitsets, unresolved sets and connection rows keep their
	// storage).
	apps      []*app
	instances []*instance
	producers []*client.Producer
	brokers   []*broker.Broker
	coord     *coordinator.Coordinator
	// kinds are the registered server kinds' nodes (serverkind.go), by
	// kind.
	kinds [maxServerKinds]model.Server
}

// spareNodes collects w's nodes, in node order, and the spares w did not
// use (a run with fewer brokers than the one before).
func (w *World) spareNodes() spares {
	s := w.spare
	// The lists are built in the storage w.spare's do not use: the two
	// stores alternate from run to run.
	mem := &w.spareMem[w.spareNext]
	w.spareNext ^= 1
	clear(mem.producers[:cap(mem.producers)])
	clear(mem.brokers[:cap(mem.brokers)])
	clear(mem.apps[:cap(mem.apps)])
	clear(mem.instances[:cap(mem.instances)])
	s.producers, s.brokers = mem.producers[:0], mem.brokers[:0]
	for i := range w.nodes {
		nd := &w.nodes[i]
		switch nd.kind {
		case kindProducer:
			if nd.inst != nil && nd.inst.prod != nil {
				s.producers = append(s.producers, nd.inst.prod)
			}
		case kindBroker:
			s.brokers = append(s.brokers, nd.broker)
		}
	}
	for i := range serverKinds {
		if n := w.kindNode[i]; n >= 0 && int(n) < len(w.nodes) && w.nodes[n].kind == kindRegistered {
			s.kinds[i] = w.nodes[n].srv
		}
	}
	s.producers = append(s.producers, w.spare.producers...)
	s.apps, s.instances = mem.apps[:0], mem.instances[:0]
	for _, a := range w.apps {
		clear(a.resolved)
		clear(a.abandoned)
		clear(a.instances)
		s.apps = append(s.apps, a)
	}
	for _, in := range w.instances {
		in.unresolved.Clear()
		clear(in.conns)
		s.instances = append(s.instances, in)
	}
	s.apps = append(s.apps, w.spare.apps...)
	s.instances = append(s.instances, w.spare.instances...)
	s.brokers = append(s.brokers, w.spare.brokers...)
	if w.coord != nil {
		s.coord = w.coord
	}
	mem.producers, mem.brokers, mem.apps, mem.instances = s.producers, s.brokers, s.apps, s.instances
	return s
}

// spareLists is the storage of a spares' lists, kept whole (the spares
// take from their fronts).
type spareLists struct {
	producers []*client.Producer
	brokers   []*broker.Broker
	apps      []*app
	instances []*instance
}

// app returns an emptied app struct: a spare one, or a new one.
func (s *spares) app() *app {
	if k := len(s.apps); k > 0 {
		a := s.apps[k-1]
		s.apps = s.apps[:k-1]
		return a
	}
	return &app{}
}

// instance returns an emptied instance struct: a spare one, or a new one.
func (s *spares) instance() *instance {
	if k := len(s.instances); k > 0 {
		in := s.instances[k-1]
		s.instances = s.instances[:k-1]
		return in
	}
	return &instance{}
}

// producer returns client.NewProducer(cfg, app, leaders, rng), in a spare
// producer's memory when there is one.
func (s *spares) producer(cfg client.ProducerConfig, app int32, leaders []int32, rng *rand.Rand) *client.Producer {
	if k := len(s.producers); k > 0 {
		p := s.producers[0]
		s.producers = s.producers[1:]
		p.Reclaim() // no Result holds a message or a record
		p.Reset(cfg, app, leaders, rng)
		return p
	}
	return client.NewProducer(cfg, app, leaders, rng)
}

// broker returns broker.NewBroker(cfg), in a spare broker's memory when
// there is one.
func (s *spares) broker(cfg broker.BrokerConfig) *broker.Broker {
	if k := len(s.brokers); k > 0 {
		b := s.brokers[0]
		s.brokers = s.brokers[1:]
		b.Reclaim() // no Result holds a message
		b.Reset(cfg)
		return b
	}
	return broker.NewBroker(cfg)
}

// coordinator returns coordinator.NewCoordinator(cfg), in the spare
// coordinator's memory when there is one.
func (s *spares) coordinator(cfg coordinator.CoordinatorConfig) *coordinator.Coordinator {
	if c := s.coord; c != nil {
		s.coord = nil
		c.Reclaim() // no Result holds a message
		c.Reset(cfg)
		return c
	}
	return coordinator.NewCoordinator(cfg)
}

// zeroed returns a slice of n zero elements, in s's storage when it has
// room.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
