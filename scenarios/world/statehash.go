package world

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/world/internal/hashwalk"
	"github.com/idemsim/idemsim/scenarios/world/internal/store"
	"github.com/idemsim/idemsim/sim"
)

// StateHash is a 128-bit fingerprint of a world's whole state between two
// events: what decides the rest of the run, given the faults still to
// come. An explorer (internal/explore) skips a branch whose state it has
// explored already; docs/explore.md says what the hash covers and why.
//
// Two states with equal hashes behave alike from there on, as far as the
// hash covers them: the time, the pending events in the order they will
// run, every node's state (producers, brokers, coordinators, with their
// random streams), the producer instances and applications, the network
// (connections, partitions, its random stream), what servers have
// buffered, are handling or have parked, the armed plan rules, the delayed
// messages, and the invariant checkers' state (so that the rest of the run
// reaches the same verdicts). It leaves out what only numbers things
// (message ids, reply-route handles, scheduling sequence numbers, which are
// renumbered in the order the hash meets them) and what only reports (the
// trace and its hash, the counters, the event count). A fault plan's
// actions still to come are covered by their pending events; used plan
// rules are left out (they never fire again).
type StateHash [2]uint64

// Less orders hashes, for sorting.
func (h StateHash) Less(o StateHash) bool {
	return h[0] < o[0] || h[0] == o[0] && h[1] < o[1]
}

// stateHasher is the walk of a state hash (scenarios/world/internal/hashwalk).
type stateHasher = hashwalk.Hasher

// HashCache is what state hashes of runs in one goroutine may share (per
// type facts found by reflection), so that each run does not find them
// again: set it in [Spec.HashCache]. It must not be shared between
// goroutines.
type HashCache struct{ c *hashwalk.Cache }

// NewHashCache returns an empty cache.
func NewHashCache() *HashCache { return &HashCache{c: newHashCache()} }

func newHashCache() *hashwalk.Cache {
	return hashwalk.NewCache(hashwalk.Options{Scratch: hashwalk.Scratch, SkipTypes: []reflect.Type{tOuts}, Specials: specials, Idents: idents,
		Values: func(t reflect.Type) bool { return t.Implements(tMessage) }})
}

// idents are the pointers from one part of the state hash into another
// (hashParts), hashed by their pointee's place: an instance by its node,
// an application by its id, the checkers' log view (one a run).
var idents = []hashwalk.Ident{
	{Type: reflect.TypeFor[*instance](), Field: "node"},
	{Type: reflect.TypeFor[*app](), Field: "id"},
	{Type: reflect.TypeOf(new(check.Suite).Parts()[0])},
}

// Types the walk treats specially.
var (
	tEvent       = reflect.TypeFor[Event]()
	tPendingReq  = reflect.TypeFor[pendingReq]()
	tInternalMsg = reflect.TypeFor[internalMsg]()
	tPeer        = reflect.TypeFor[model.Peer]()
	tMessage     = reflect.TypeFor[model.Message]()
	tOuts        = reflect.TypeFor[[]model.Out]()
	tRejects     = reflect.TypeFor[[]broker.RejectRule]()
	tRules       = reflect.TypeFor[[]dropRule]()
)

// specials are the types the state hash walks its own way, with the
// fields each walk reads.
var specials = []hashwalk.Special{
	{Type: tEvent, Fields: []string{"kind", "node", "app", "msg", "n", "gen", "bg", "tok.Conn.Client", "tok.Conn.Server", "tok.Conn.Gen", "tok.Dir", "tok.Cut"},
		Walk: eventValue},
	// A pending request: its wire and token; its message id only names it.
	{Type: tPendingReq, Fields: []string{"wr", "tok"}, Walk: func(h *stateHasher, f hashwalk.Fields) {
		h.Value(f.At(0))
		h.Value(f.At(1))
	}},
	{Type: tInternalMsg, Fields: []string{"from", "m", "handle"}, Walk: func(h *stateHasher, f hashwalk.Fields) {
		h.Value(f.At(0))
		h.Value(f.At(1))
		h.Handle(f.At(2).Uint())
	}},
	{Type: tPeer, Fields: []string{"Node", "ReqNo", "Handle"}, Walk: func(h *stateHasher, f hashwalk.Fields) {
		h.I64(f.At(0).Int())
		h.I64(f.At(1).Int())
		h.Handle(f.At(2).Uint())
	}},
	{Type: tRejects, Fields: []string{"[]used"}, Walk: hashwalk.UnusedRules},
	{Type: tRules, Fields: []string{"[]used"}, Walk: hashwalk.UnusedRules},
	store.RecordSetHash,
}

// stateHash returns the hash of the world's state at the start of
// handling ev at now (ev has been taken off the queue), walking again
// only the parts of the state marked since the last hash (touch).
func (w *World) stateHash(now sim.Time, ev Event) StateHash {
	ps := &w.probe
	if ps.cache == nil {
		ps.cache = newHashCache()
	}
	if ps.parts == nil {
		ps.parts = hashwalk.NewParts(false)
	}
	return w.hashParts(ps.parts, now, ev, false)
}

// touch marks node n's part of the state hash to be walked again.
func (ps *probeState) touch(n simnet.NodeID) {
	if ps.parts != nil {
		ps.parts.Dirty(int(n))
	}
}

// touchAll marks every part of the state hash to be walked again.
func (ps *probeState) touchAll() {
	if ps.parts != nil {
		ps.parts.DirtyAll()
	}
}

// touchEvent marks the nodes an event may change before it runs: its
// node, an application's instances, every node for a fault's start or end,
// a shutdown, the start of replication and a metadata flap. What the
// node's effects reach the funnels mark (apply, consOuts, serverOuts);
// TestIncrementalHash finds a change left unmarked.
func (w *World) touchEvent(ev Event) {
	ps := &w.probe
	switch ev.kind {
	case evAppSend:
		for _, in := range w.apps[ev.app].instances {
			ps.touch(in.node)
		}
	case evFault, evResume, evUnstall, evShutdown, evReplStart, evMetaFlap:
		ps.touchAll()
	default:
		ps.touch(simnet.NodeID(ev.node))
	}
}

// hashParts returns the state hash from parts (hashwalk.Parts), walking
// every part if full: each node (a producer with its instance), then the
// time and the pending events, the applications, the network (walked
// again only when it marks itself changed: simnet.Network.TakeChanged),
// the rest of the world (servers' buffers, plan rules, delayed messages,
// reply routes), and the checkers' parts (check.Suite.Parts).
func (w *World) hashParts(p *hashwalk.Parts, now sim.Time, ev Event, full bool) StateHash {
	c, n := w.probe.cache, len(w.nodes)
	for i := range w.nodes {
		p.Walk(c, w, i, full, func(h *stateHasher) {
			h.Value(reflect.ValueOf(&w.nodes[i]).Elem())
			if in := w.nodes[i].inst; in != nil {
				h.Value(reflect.ValueOf(in).Elem())
			}
		})
	}
	p.Walk(c, w, n, true, func(h *stateHasher) {
		h.I64(int64(now))
		hashEvent(h, w, now, ev, ev.bg)
		var sum [2]uint64
		if full {
			// Every digest walked afresh: what checkStateHash compares
			// the kept sum with.
			var ps sim.PendingSum
			w.loop.EachPending(func(at sim.Time, e Event, bg bool) {
				d, met := h.Sub(func(s *stateHasher) { eventDigest(s, w, at, e, bg) }, nil)
				ps.Add(at, d)
				if e.kind == evDeliver || len(met) > 0 {
					hashAgain(h, w, &e, d, met)
				}
			})
			sum = ps.Sum()
		} else {
			sum = w.loop.SumPending(func(at sim.Time, e *Event, bg bool, m *sim.Memo) {
				m.Sum, m.Aux = h.Sub(func(s *stateHasher) { eventDigest(s, w, at, *e, bg) }, m.Aux)
				m.Every = e.kind == evDeliver || len(m.Aux) > 0
			}, func(_ sim.Time, e *Event, _ bool, m *sim.Memo) { hashAgain(h, w, e, m.Sum, m.Aux) })
		}
		h.U64(sum[0])
		h.U64(sum[1])
	})
	p.Walk(c, w, n+1, true, func(h *stateHasher) {
		for _, a := range w.apps {
			h.Value(reflect.ValueOf(a).Elem())
		}
	})
	p.Walk(c, w, n+2, full || w.nw.TakeChanged(), func(h *stateHasher) { h.Value(reflect.ValueOf(w.nw)) })
	p.Walk(c, w, n+3, true, func(h *stateHasher) { w.hashRest(h) })
	touched := ^uint64(0)
	if !full {
		touched = w.chk.TakeTouched()
	}
	chk := w.chk.Parts()
	for j, part := range chk {
		p.Walk(c, w, n+4+j, touched&(1<<j) != 0, func(h *stateHasher) { h.Value(reflect.ValueOf(part).Elem()) })
	}
	return StateHash(p.Sum(n + 4 + len(chk)))
}

// hashRest walks what the nodes, the events, the applications, the
// network and the checkers leave: always walked again.
func (w *World) hashRest(h *stateHasher) {
	h.Value(reflect.ValueOf(w.srvConns))
	h.Value(reflect.ValueOf(w.reqCount))
	h.Value(reflect.ValueOf(w.drops))
	h.Value(reflect.ValueOf(w.mf.delays))
	h.Value(reflect.ValueOf(w.mf.dups))
	h.Value(reflect.ValueOf(w.mf.held))
	h.Value(reflect.ValueOf(w.mf.lates))
	h.Value(reflect.ValueOf(w.mf.lateConns))
	w.repl.hash(w, h)
	h.U64(hashwalk.BoolBits(w.ended, w.resend, w.overState))
	h.I64(int64(w.planEnd))
	h.I64(int64(w.limit))
	h.I64(w.beyond)
	// Reply routes by handle (numbered by rank: hashwalk.Parts).
	ids := w.routes.IDs(nil)
	slices.Sort(ids)
	h.U64(uint64(len(ids)))
	for _, hd := range ids {
		r, _ := w.routes.Get(hd)
		h.Handle(hd)
		h.Value(reflect.ValueOf(r))
	}
}

// checkStateHash hashes the state again, walking every part, and reports
// a difference from the hash the parts kept (a part changed without being
// marked) or a pointer two parts reach (the parts' walks would miss that
// they share it). The World's parts are up to date: stateHash was called
// at this point.
func (w *World) checkStateHash(now sim.Time, ev Event, kept StateHash) error {
	p := hashwalk.NewParts(true)
	if full := w.hashParts(p, now, ev, true); full != kept {
		return fmt.Errorf("at %v: the parts kept hash %x, walked again %x; parts that differ %v (nodes 0-%d, then the events, the applications, the network, the rest, the checkers)",
			now.Duration(), kept, full, p.Diff(w.probe.parts), len(w.nodes)-1)
	}
	if s := p.Shared(); len(s) > 0 {
		return fmt.Errorf("at %v: %d pointers shared by two parts, %s", now.Duration(), len(s), s)
	}
	return nil
}

// hashEvent hashes a pending (or the current) event: a delivery by its
// message rather than the message's id, a plan action by its text rather
// than its index in the plan. All of it but a delivery's count of
// deliveries still scheduled (which a duplicate's delivery changes) is
// walked on its own (hashwalk.Hasher.Sub): an event and its time do not
// change while it is pending, nor does its wire but for that count, so a
// memo (sim.Loop.SumPending) keeps the digest from one state hash to the
// next, summed with the other pending events' in their order without
// reading them again; what does change is hashed again (hashAgain). The
// wire's reply handles stay listed apart, numbered at each hash by their
// rank.
func hashEvent(h *stateHasher, w *World, at sim.Time, ev Event, bg bool) {
	d, met := h.Sub(func(s *stateHasher) { eventDigest(s, w, at, ev, bg) }, nil)
	hashAgain(h, w, &ev, d, met)
}

// hashAgain hashes, at every state hash, what may change while a pending
// event waits, beside its digest d (kept in the pending events' sum,
// sim.Loop.SumPending): a delivery's count of deliveries still
// scheduled, and the reply handles met, numbered by rank at each hash.
// The events hashed again are taken in the order they will run, which
// the sum fixes.
func hashAgain(h *stateHasher, w *World, ev *Event, d [2]uint64, met []uint64) {
	if ev.kind == evDeliver {
		wr, _ := w.msgs.Get(ev.msg)
		h.I64(int64(wr.refs))
	}
	h.Digest(d, met)
}

// eventDigest walks what hashEvent keeps of an event in its memo.
func eventDigest(h *stateHasher, w *World, at sim.Time, ev Event, bg bool) {
	h.I64(int64(at))
	h.U64(uint64(ev.kind) | hashwalk.BoolBits(bg)<<8)
	h.U64(uint64(uint32(ev.node)) | uint64(uint32(ev.app))<<32)
	h.U64(uint64(ev.gen))
	h.U64(uint64(uint32(ev.tok.Conn.Client)) | uint64(uint32(ev.tok.Conn.Server))<<32)
	h.U64(uint64(ev.tok.Conn.Gen) | uint64(ev.tok.Dir)<<32)
	h.U64(uint64(ev.tok.Cut))
	switch ev.kind {
	case evDeliver:
		wr, _ := w.msgs.Get(ev.msg)
		wr.refs = 0
		h.Value(reflect.ValueOf(wr))
	case evFault:
		h.Str(w.plan.Actions[ev.n].String())
	case evResume, evUnstall:
		// n names the plan action for the trace only.
	default:
		h.U64(ev.n)
	}
}

// eventValue hashes an Event reached through reflection (a held event),
// its fields as specials names them.
func eventValue(h *stateHasher, f hashwalk.Fields) {
	ev := Event{kind: evKind(f.At(0).Uint()), node: int32(f.At(1).Int()), app: int32(f.At(2).Int()),
		msg: f.At(3).Uint(), n: f.At(4).Uint(), gen: uint32(f.At(5).Uint()), bg: f.At(6).Bool()}
	ev.tok = simnet.Token{Conn: simnet.Conn{Client: simnet.NodeID(f.At(7).Int()), Server: simnet.NodeID(f.At(8).Int()),
		Gen: uint32(f.At(9).Uint())}, Dir: simnet.Direction(f.At(10).Uint()), Cut: uint32(f.At(11).Uint())}
	hashEvent(h, h.Ctx.(*World), 0, ev, ev.bg)
}
