package world

import (
	"cmp"
	"math"
	"reflect"
	"slices"

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
	return hashwalk.NewCache(hashwalk.Options{Scratch: scratchFields, SkipTypes: []reflect.Type{tOuts}, Specials: specials})
}

// Types the walk treats specially.
var (
	tEvent       = reflect.TypeFor[Event]()
	tPendingReq  = reflect.TypeFor[pendingReq]()
	tInternalMsg = reflect.TypeFor[internalMsg]()
	tPeer        = reflect.TypeFor[model.Peer]()
	tOuts        = reflect.TypeFor[[]model.Out]()
	tRejects     = reflect.TypeFor[[]broker.RejectRule]()
	tRules       = reflect.TypeFor[[]dropRule]()
	tRecordSet   = reflect.TypeFor[store.RecordSet]()
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
	{Type: tRejects, Fields: []string{"[]used"}, Walk: unusedRules},
	{Type: tRules, Fields: []string{"[]used"}, Walk: unusedRules},
	{Type: tRecordSet, Fields: []string{"n", "slots", "odd", "app", "off", "base", "size", "slots[]Flags", "slots[]Sent", "slots[]Part"}, Walk: recordSet},
}

// unusedRules walks a list of plan rules: used rules never fire again.
func unusedRules(h *stateHasher, f hashwalk.Fields) {
	v, used := f.V, f.Path(0)
	n := 0
	for i := range v.Len() {
		if r := v.Index(i); !r.FieldByIndex(used).Bool() {
			h.Value(r)
			n++
		}
	}
	h.U64(uint64(n))
}

// recordSet walks a store.RecordSet: its members, in order, made whole,
// not the window's storage.
func recordSet(h *stateHasher, f hashwalk.Fields) {
	h.U64(uint64(f.At(0).Int()))
	slots, odd, app := f.At(1), f.At(2), int32(f.At(3).Int())
	off, base := int(f.At(4).Int()), f.At(5).Int()
	flags, sentAt, partAt := f.Path(7), f.Path(8), f.Path(9)
	for i := off; i < off+int(f.At(6).Int()); i++ {
		switch sl, n := slots.Index(i), base+int64(i-off); {
		case sl.FieldByIndex(flags).Uint()&uint64(store.SlotOdd) != 0:
			h.Value(odd.MapIndex(reflect.ValueOf(n)))
		case sl.FieldByIndex(flags).Uint()&uint64(store.SlotPresent) != 0:
			sent, part := sim.Time(sl.FieldByIndex(sentAt).Int()), int32(sl.FieldByIndex(partAt).Int())
			h.Value(reflect.ValueOf(store.Member(app, n, store.RecordSlot{Sent: sent, Part: part}, nil)))
		}
	}
}

var scratchFields = map[string]bool{
	"net.Network.notices":              true, // TakeNotices' result, consumed at once
	"net.Network.names":                true, // constant
	"net.Network.lat":                  true, // constant but for Quiet, covered by World.ended
	"check.logView.commits":            true, // reset at every observation
	"check.logView.aborted":            true,
	"check.logView.views":              true, // Finish's scratch: empty between events
	"check.logView.rc":                 true,
	"check.txnInv.fin":                 true,
	"client.Producer.pool":             true, // allocator state: free lists and slabs, not knowledge
	"client.Producer.policy":           true, // configuration: cfg.Policy's behaviour, stateless
	"broker.Broker.pool":               true,
	"broker.Broker.msgs":               true, // allocator state: the pool messages are carved from
	"coordinator.coordinatorNode.msgs": true,
	"broker.LeaderState.msgs":          true, // the broker's pool, by pointer
	"broker.ReplicaFetcher.msgs":       true,
	"storage.Partition.spare":          true, // storage a reset node keeps for its log
	"model.ObsSlab.spare":              true,
	"client.partState.sp":              true, // list storage kept for reuse, holding nothing
	"client.dconn.spare":               true,
	"model.ObsSlab.obs":                true, // the last call's observations, copied by the world at once
	"storage.Partition.expiry":         true, // a cache of what the producer entries give (NextExpiry)
	"coordinator.txnLog.spare":         true, // storage a reset coordinator keeps for its log
	"coordinator.txnLog.reclaim":       true,
	"check.dedup.hint":                 true, // Finish's scratch
	// Report only: they number an application's hand-overs of a record
	// for the run's history (docs/history.md); nothing the run does
	// depends on them, so states that differ only there are alike.
	"model.Record.Resend": true,
	"world.app.resends":   true,
	// Effects the world holds in place while it carries them out
	// (model/hold.go): nothing is held between events.
	"model.EffectStack.depth": true,
	"model.EffectStack.bufs":  true,
}

// stateHash returns the hash of the world's state at the start of

// stateHash returns the hash of the world's state at the start of
// handling ev at now (ev has been taken off the queue).
func (w *World) stateHash(now sim.Time, ev Event) StateHash {
	if w.probe.cache == nil {
		w.probe.cache = newHashCache()
	}
	h := w.probe.cache.Begin(w)
	h.I64(int64(now))
	hashEvent(h, w, now, ev, ev.bg)
	w.loop.EachPending(func(at sim.Time, e Event, bg bool) { hashEvent(h, w, at, e, bg) })
	h.U64(0xe0e0)
	for i := range w.nodes {
		h.Value(reflect.ValueOf(&w.nodes[i]).Elem())
	}
	h.Value(reflect.ValueOf(w.apps))
	h.Value(reflect.ValueOf(w.instances))
	h.Value(reflect.ValueOf(w.srvConns))
	h.Value(reflect.ValueOf(w.nw))
	h.Value(reflect.ValueOf(w.reqCount))
	h.Value(reflect.ValueOf(w.drops))
	h.Value(reflect.ValueOf(w.mf.delays))
	h.Value(reflect.ValueOf(w.mf.dups))
	h.Value(reflect.ValueOf(w.mf.held))
	h.Value(reflect.ValueOf(w.mf.lates))
	h.Value(reflect.ValueOf(w.mf.lateConns))
	w.repl.hash(w, h)
	h.U64(boolBits(w.ended, w.resend, w.overState))
	h.I64(int64(w.planEnd))
	h.I64(int64(w.limit))
	h.I64(w.beyond)
	h.Value(reflect.ValueOf(w.chk))
	// Reply routes last, ordered by their handles as the walk renumbered
	// them (a handle the walk did not meet sorts after, by value).
	type rt struct {
		canon, raw uint64
		r          route
	}
	var rs []rt
	for _, hd := range w.routes.IDs(nil) {
		r, _ := w.routes.Get(hd)
		c, ok := h.HandleNumber(hd)
		if !ok {
			c = math.MaxUint64
		}
		rs = append(rs, rt{c, hd, r})
	}
	slices.SortFunc(rs, func(x, y rt) int {
		if c := cmp.Compare(x.canon, y.canon); c != 0 {
			return c
		}
		return cmp.Compare(x.raw, y.raw)
	})
	h.U64(uint64(len(rs)))
	for _, r := range rs {
		h.U64(r.canon)
		h.Value(reflect.ValueOf(r.r))
	}
	return StateHash(h.Sum())
}

// boolBits packs bs into a word, bs[i] at bit i.
func boolBits(bs ...bool) uint64 { return hashwalk.BoolBits(bs...) }

// hashEvent hashes a pending (or the current) event: a delivery by its
// message rather than the message's id, a plan action by its text rather
// than its index in the plan.
func hashEvent(h *stateHasher, w *World, at sim.Time, ev Event, bg bool) {
	h.I64(int64(at))
	h.U64(uint64(ev.kind) | boolBits(bg)<<8)
	h.U64(uint64(uint32(ev.node)) | uint64(uint32(ev.app))<<32)
	h.U64(uint64(ev.gen))
	hashTok(h, ev.tok)
	switch ev.kind {
	case evDeliver:
		wr, _ := w.msgs.Get(ev.msg)
		h.Value(reflect.ValueOf(wr))
	case evFault:
		h.Str(w.plan.Actions[ev.n].String())
	case evResume, evUnstall:
		// n names the plan action for the trace only.
	default:
		h.U64(ev.n)
	}
}

func hashTok(h *stateHasher, t simnet.Token) {
	h.U64(uint64(uint32(t.Conn.Client)) | uint64(uint32(t.Conn.Server))<<32)
	h.U64(uint64(t.Conn.Gen) | uint64(t.Dir)<<32)
	h.U64(uint64(t.Cut))
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
