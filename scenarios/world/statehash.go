package world

import (
	"cmp"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/broker"
	simnet "github.com/idemsim/idemsim/net"
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

// stateHasher walks a world's state into two 64-bit lanes. Pointers are
// numbered in the order they are first met (a pointer met again hashes its
// number, so sharing is part of the state); maps are walked in the order
// of their keys' hashes; slices by content.
type stateHasher struct {
	a, b uint64
	w    *World
	// ptrs numbers the pointers met so far (with their types: a struct
	// and its first field share an address); handles renumbers
	// reply-route handles in the order met. Both are made on first use.
	ptrs    map[uintptr]ptrSeen
	handles map[uint64]uint64
	cache   *hashCache
}

type ptrSeen struct {
	t reflect.Type
	n uint64
}

// hashCache holds, per struct type, the fields a hash walks, and per type
// a number, and the maps a hash reuses: made once per world (the
// simulated world shares nothing between runs).
type hashCache struct {
	info    map[reflect.Type]*typeInfo
	types   map[reflect.Type]uint64
	ptrs    map[uintptr]ptrSeen
	handles map[uint64]uint64
	// others numbers pointers that share an address with one of another
	// type (rare).
	others map[ptrOther]uint64
}

// typeInfo is what the walk needs to know of a type: whether it is one
// of the types it treats specially, and a struct's fields to walk.
type typeInfo struct {
	special uint8
	fields  []int
}

// Special types.
const (
	spNone uint8 = iota
	spEvent
	spPendingReq
	spInternalMsg
	spPeer
	spRules     // []broker.RejectRule, []dropRule: unused rules only
	spRecordSet // store.RecordSet: its members only
)

// HashCache is what state hashes of runs in one goroutine may share (per
// type facts found by reflection), so that each run does not find them
// again: set it in [Spec.HashCache]. It must not be shared between
// goroutines.
type HashCache struct{ c *hashCache }

// NewHashCache returns an empty cache.
func NewHashCache() *HashCache { return &HashCache{c: newHashCache()} }

func newHashCache() *hashCache {
	return &hashCache{info: map[reflect.Type]*typeInfo{}, types: map[reflect.Type]uint64{},
		ptrs: map[uintptr]ptrSeen{}, handles: map[uint64]uint64{}, others: map[ptrOther]uint64{}}
}

type ptrOther struct {
	p uintptr
	t reflect.Type
}

const (
	prime1 = 0x9E3779B185EBCA87
	prime2 = 0xC2B2AE3D27D4EB4F
	prime3 = 0x165667B19E3779F9
)

func round(acc, x uint64) uint64 {
	acc += x * prime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * prime1
}

func (h *stateHasher) u64(x uint64) {
	h.a = round(h.a, x)
	h.b = round(h.b^prime3, x^0x5bd1e9955bd1e995)
}

func (h *stateHasher) i64(x int64) { h.u64(uint64(x)) }

func (h *stateHasher) str(s string) {
	h.u64(uint64(len(s)))
	var w uint64
	for i := 0; i < len(s); i++ {
		w = w<<8 | uint64(s[i])
		if i%8 == 7 {
			h.u64(w)
			w = 0
		}
	}
	h.u64(w)
}

func avalanche(x uint64) uint64 {
	x ^= x >> 33
	x *= prime2
	x ^= x >> 29
	x *= prime3
	x ^= x >> 32
	return x
}

func (h *stateHasher) sum() StateHash { return StateHash{avalanche(h.a), avalanche(h.b ^ prime1)} }

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

// scratchFields are fields that hold nothing between events: buffers the
// next call resets (by type name and field name). A []model.Out field (a
// node's effect buffer) is scratch wherever it is. A struct type whose
// name ends in "Config" is configuration, fixed for the run: the hash
// walks only its pointer and interface fields (a broker's random stream
// lives in its BrokerConfig). The network's Config is changed once, at
// the plan's end (Quiet), which the hash covers through World.ended.
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
// handling ev at now (ev has been taken off the queue).
func (w *World) stateHash(now sim.Time, ev Event) StateHash {
	if w.probe.cache == nil {
		w.probe.cache = newHashCache()
	}
	c := w.probe.cache
	clear(c.ptrs)
	clear(c.handles)
	clear(c.others)
	h := &stateHasher{w: w, ptrs: c.ptrs, handles: c.handles, cache: c}
	h.i64(int64(now))
	h.event(now, ev, ev.bg)
	w.loop.EachPending(func(at sim.Time, e Event, bg bool) { h.event(at, e, bg) })
	h.u64(0xe0e0)
	for i := range w.nodes {
		h.value(reflect.ValueOf(&w.nodes[i]).Elem())
	}
	h.value(reflect.ValueOf(w.apps))
	h.value(reflect.ValueOf(w.instances))
	h.value(reflect.ValueOf(w.srvConns))
	h.value(reflect.ValueOf(w.nw))
	h.value(reflect.ValueOf(w.reqCount))
	h.value(reflect.ValueOf(w.drops))
	h.value(reflect.ValueOf(w.mf.delays))
	h.value(reflect.ValueOf(w.mf.dups))
	h.value(reflect.ValueOf(w.mf.held))
	h.value(reflect.ValueOf(w.mf.lates))
	h.value(reflect.ValueOf(w.mf.lateConns))
	w.repl.hash(w, h)
	h.u64(boolBits(w.ended, w.resend, w.overState))
	h.i64(int64(w.planEnd))
	h.i64(int64(w.limit))
	h.i64(w.beyond)
	h.value(reflect.ValueOf(w.chk))
	// Reply routes last, ordered by their handles as the walk renumbered
	// them (a handle the walk did not meet sorts after, by value).
	type rt struct {
		canon, raw uint64
		r          route
	}
	var rs []rt
	for _, hd := range w.routes.IDs(nil) {
		r, _ := w.routes.Get(hd)
		c, ok := h.handles[hd]
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
	h.u64(uint64(len(rs)))
	for _, r := range rs {
		h.u64(r.canon)
		h.value(reflect.ValueOf(r.r))
	}
	return h.sum()
}

func boolBits(bs ...bool) uint64 {
	var x uint64
	for i, b := range bs {
		if b {
			x |= 1 << i
		}
	}
	return x
}

// event hashes a pending (or the current) event: a delivery by its message
// rather than the message's id, a plan action by its text rather than its
// index in the plan.
func (h *stateHasher) event(at sim.Time, ev Event, bg bool) {
	h.i64(int64(at))
	h.u64(uint64(ev.kind) | boolBits(bg)<<8)
	h.u64(uint64(uint32(ev.node)) | uint64(uint32(ev.app))<<32)
	h.u64(uint64(ev.gen))
	h.tok(ev.tok)
	switch ev.kind {
	case evDeliver:
		wr, _ := h.w.msgs.Get(ev.msg)
		h.value(reflect.ValueOf(wr))
	case evFault:
		h.str(h.w.plan.Actions[ev.n].String())
	case evResume, evUnstall:
		// n names the plan action for the trace only.
	default:
		h.u64(ev.n)
	}
}

func (h *stateHasher) tok(t simnet.Token) {
	h.u64(uint64(uint32(t.Conn.Client)) | uint64(uint32(t.Conn.Server))<<32)
	h.u64(uint64(t.Conn.Gen) | uint64(t.Dir)<<32)
	h.u64(uint64(t.Cut))
}

// handle hashes a reply-route handle by the order the walk meets it.
func (h *stateHasher) handle(x uint64) {
	if h.handles == nil {
		h.handles = map[uint64]uint64{}
	}
	c, ok := h.handles[x]
	if !ok {
		c = uint64(len(h.handles))
		h.handles[x] = c
	}
	h.u64(c)
}

// eventValue hashes an Event reached through reflection (a held event).
func (h *stateHasher) eventValue(v reflect.Value) {
	f := func(name string) reflect.Value { return v.FieldByName(name) }
	ev := Event{kind: evKind(f("kind").Uint()), node: int32(f("node").Int()), app: int32(f("app").Int()),
		msg: f("msg").Uint(), n: f("n").Uint(), gen: uint32(f("gen").Uint()), bg: f("bg").Bool()}
	t := f("tok")
	c := t.FieldByName("Conn")
	ev.tok = simnet.Token{Conn: simnet.Conn{Client: simnet.NodeID(c.FieldByName("Client").Int()), Server: simnet.NodeID(c.FieldByName("Server").Int()),
		Gen: uint32(c.FieldByName("Gen").Uint())}, Dir: simnet.Direction(t.FieldByName("Dir").Uint()), Cut: uint32(t.FieldByName("Cut").Uint())}
	h.event(0, ev, ev.bg)
}

func (h *stateHasher) typeID(t reflect.Type) uint64 {
	id, ok := h.cache.types[t]
	if !ok {
		s := &stateHasher{}
		s.str(t.String())
		id = s.sum()[0]
		h.cache.types[t] = id
	}
	return id
}

// infoOf returns what the walk needs to know of type t.
func (h *stateHasher) infoOf(t reflect.Type) *typeInfo {
	ti, ok := h.cache.info[t]
	if ok {
		return ti
	}
	ti = &typeInfo{}
	switch t {
	case tEvent:
		ti.special = spEvent
	case tPendingReq:
		ti.special = spPendingReq
	case tInternalMsg:
		ti.special = spInternalMsg
	case tPeer:
		ti.special = spPeer
	case tRejects, tRules:
		ti.special = spRules
	case tRecordSet:
		ti.special = spRecordSet
	}
	if t.Kind() == reflect.Struct {
		ti.fields = fieldsOf(t)
	}
	h.cache.info[t] = ti
	return ti
}

// fieldsOf returns the fields of struct type t the walk hashes: all but
// scratch buffers and a configuration's scalars.
func fieldsOf(t reflect.Type) []int {
	fs := []int{}
	config := strings.HasSuffix(t.Name(), "Config")
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type == tOuts || scratchFields[t.String()+"."+f.Name] {
			continue
		}
		if config {
			switch f.Type.Kind() {
			case reflect.Pointer, reflect.Interface, reflect.Struct:
			default:
				continue
			}
		}
		fs = append(fs, i)
	}
	return fs
}

// value walks v into the hash.
func (h *stateHasher) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		h.u64(boolBits(v.Bool()))
		return
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.i64(v.Int())
		return
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.u64(v.Uint())
		return
	case reflect.String:
		h.str(v.String())
		return
	case reflect.Struct, reflect.Slice:
	default:
		h.other(v)
		return
	}
	t := v.Type()
	ti := h.infoOf(t)
	switch ti.special {
	case spNone:
	case spEvent:
		h.eventValue(v)
		return
	case spPendingReq:
		// The request's wire and token; its message id only names it.
		h.value(v.FieldByName("wr"))
		h.value(v.FieldByName("tok"))
		return
	case spInternalMsg:
		h.value(v.FieldByName("from"))
		h.value(v.FieldByName("m"))
		h.handle(v.FieldByName("handle").Uint())
		return
	case spPeer:
		h.i64(v.FieldByName("Node").Int())
		h.i64(v.FieldByName("ReqNo").Int())
		h.handle(v.FieldByName("Handle").Uint())
		return
	case spRules:
		// Used rules never fire again.
		n := 0
		for i := range v.Len() {
			if r := v.Index(i); !r.FieldByName("used").Bool() {
				h.value(r)
				n++
			}
		}
		h.u64(uint64(n))
		return
	case spRecordSet:
		// The members, in order, made whole: not the window's storage.
		h.u64(uint64(v.FieldByName("n").Int()))
		slots, odd, app := v.FieldByName("slots"), v.FieldByName("odd"), int32(v.FieldByName("app").Int())
		off, base := int(v.FieldByName("off").Int()), v.FieldByName("base").Int()
		for i := off; i < off+int(v.FieldByName("size").Int()); i++ {
			switch sl, n := slots.Index(i), base+int64(i-off); {
			case sl.FieldByName("Flags").Uint()&uint64(store.SlotOdd) != 0:
				h.value(odd.MapIndex(reflect.ValueOf(n)))
			case sl.FieldByName("Flags").Uint()&uint64(store.SlotPresent) != 0:
				sent, part := sim.Time(sl.FieldByName("Sent").Int()), int32(sl.FieldByName("Part").Int())
				h.value(reflect.ValueOf(store.Member(app, n, store.RecordSlot{Sent: sent, Part: part}, nil)))
			}
		}
		return
	}
	if v.Kind() == reflect.Struct {
		for _, i := range ti.fields {
			h.value(v.Field(i))
		}
		return
	}
	if v.IsNil() {
		h.u64(math.MaxUint64)
		return
	}
	n := v.Len()
	h.u64(uint64(n))
	switch t.Elem().Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		for i := range n {
			h.i64(v.Index(i).Int())
		}
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		for i := range n {
			h.u64(v.Index(i).Uint())
		}
	default:
		for i := range n {
			h.value(v.Index(i))
		}
	}
}

// other walks the kinds value does not handle at once.
func (h *stateHasher) other(v reflect.Value) {
	t := v.Type()
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		h.u64(math.Float64bits(v.Float()))
	case reflect.Array:
		for i := range v.Len() {
			h.value(v.Index(i))
		}
	case reflect.Pointer:
		if v.IsNil() {
			h.u64(0)
			return
		}
		if n, seen := h.pointer(v.Pointer(), t); seen {
			h.u64(n<<1 | 1)
		} else {
			h.u64(n << 1)
			h.value(v.Elem())
		}
	case reflect.Interface:
		if v.IsNil() {
			h.u64(0)
			return
		}
		e := v.Elem()
		h.u64(h.typeID(e.Type()))
		h.value(e)
	case reflect.Map:
		h.mapValue(v)
	case reflect.Func:
		// Functions are configuration (never state); their presence is.
		h.u64(boolBits(!v.IsNil()))
	default:
		panic("scenarios: cannot hash a " + t.String())
	}
}

// pointer returns the number of pointer p of type t and whether it was
// met before.
func (h *stateHasher) pointer(p uintptr, t reflect.Type) (uint64, bool) {
	if h.ptrs == nil {
		h.ptrs = map[uintptr]ptrSeen{}
	}
	if s, ok := h.ptrs[p]; ok {
		if s.t == t {
			return s.n, true
		}
		if h.cache.others == nil {
			h.cache.others = map[ptrOther]uint64{}
		}
		k := ptrOther{p, t}
		if n, ok := h.cache.others[k]; ok {
			return n, true
		}
		n := uint64(len(h.ptrs)+len(h.cache.others)) + 1
		h.cache.others[k] = n
		return n, false
	}
	n := uint64(len(h.ptrs)+len(h.cache.others)) + 1
	h.ptrs[p] = ptrSeen{t, n}
	return n, false
}

// mapValue walks a map in the order of its keys' hashes.
func (h *stateHasher) mapValue(v reflect.Value) {
	if v.IsNil() {
		h.u64(math.MaxUint64)
		return
	}
	type kv struct {
		k StateHash
		v reflect.Value
	}
	es := make([]kv, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		kh := &stateHasher{w: h.w, cache: &hashCache{info: h.cache.info, types: h.cache.types}}
		kh.value(it.Key())
		es = append(es, kv{kh.sum(), it.Value()})
	}
	slices.SortFunc(es, func(x, y kv) int {
		if c := cmp.Compare(x.k[0], y.k[0]); c != 0 {
			return c
		}
		return cmp.Compare(x.k[1], y.k[1])
	})
	h.u64(uint64(len(es)))
	for _, e := range es {
		h.u64(e.k[0])
		h.u64(e.k[1])
		h.value(e.v)
	}
}
