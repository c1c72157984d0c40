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
// of the types it treats specially, and a struct's fields to walk. It
// links to the infos of its fields' types (kids, parallel to fields) and
// of its element type (elem: a slice's, an array's, a pointer's), found
// on first use, so that a walk looks a type up once per type, not once
// per value. paths are a special type's fields, by index, in the order
// its walk reads them (specialFields).
type typeInfo struct {
	t       reflect.Type
	special uint8
	fields  []int
	kids    []*typeInfo
	elem    *typeInfo
	paths   [][]int
}

// specialFields names the fields each special type's walk reads, in
// order ("a.b" is field b of field a; "[]x" is field x of the elements
// of the slice the name before it, or the type itself, is).
var specialFields = map[uint8][]string{
	spRules:       {"[]used"},
	spEvent:       {"kind", "node", "app", "msg", "n", "gen", "bg", "tok.Conn.Client", "tok.Conn.Server", "tok.Conn.Gen", "tok.Dir", "tok.Cut"},
	spPendingReq:  {"wr", "tok"},
	spInternalMsg: {"from", "m", "handle"},
	spPeer:        {"Node", "ReqNo", "Handle"},
	spRecordSet:   {"n", "slots", "odd", "app", "off", "base", "size", "slots[]Flags", "slots[]Sent", "slots[]Part"},
}

// fieldPath returns the index path of the field a dotted name names in
// struct type t.
func fieldPath(t reflect.Type, name string) []int {
	if before, after, ok := strings.Cut(name, "[]"); ok {
		if before != "" {
			f, _ := t.FieldByName(before)
			t = f.Type
		}
		return fieldPath(t.Elem(), after)
	}
	var path []int
	for part := range strings.SplitSeq(name, ".") {
		f, ok := t.FieldByName(part)
		if !ok {
			panic("scenarios: " + t.String() + " has no field " + part)
		}
		path = append(path, f.Index...)
		t = f.Type
	}
	return path
}

// kid returns the info of the type of ti's j-th walked field.
func (h *stateHasher) kid(ti *typeInfo, j int) *typeInfo {
	k := ti.kids[j]
	if k == nil {
		k = h.infoOf(ti.t.Field(ti.fields[j]).Type)
		ti.kids[j] = k
	}
	return k
}

// elemOf returns the info of ti's element type.
func (h *stateHasher) elemOf(ti *typeInfo) *typeInfo {
	if ti.elem == nil {
		ti.elem = h.infoOf(ti.t.Elem())
	}
	return ti.elem
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
func (h *stateHasher) eventValue(v reflect.Value, ti *typeInfo) {
	f := func(k int) reflect.Value { return v.FieldByIndex(ti.paths[k]) } // specialFields[spEvent]
	ev := Event{kind: evKind(f(0).Uint()), node: int32(f(1).Int()), app: int32(f(2).Int()),
		msg: f(3).Uint(), n: f(4).Uint(), gen: uint32(f(5).Uint()), bg: f(6).Bool()}
	ev.tok = simnet.Token{Conn: simnet.Conn{Client: simnet.NodeID(f(7).Int()), Server: simnet.NodeID(f(8).Int()),
		Gen: uint32(f(9).Uint())}, Dir: simnet.Direction(f(10).Uint()), Cut: uint32(f(11).Uint())}
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
	ti = &typeInfo{t: t}
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
		ti.kids = make([]*typeInfo, len(ti.fields))
	}
	for _, name := range specialFields[ti.special] {
		ti.paths = append(ti.paths, fieldPath(t, name))
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
func (h *stateHasher) value(v reflect.Value) { h.walk(v, nil) }

// walk walks v into the hash; ti is the info of v's type, or nil when
// the caller does not know it.
func (h *stateHasher) walk(v reflect.Value, ti *typeInfo) {
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
		h.other(v, ti)
		return
	}
	if ti == nil {
		ti = h.infoOf(v.Type())
	}
	t := ti.t
	switch ti.special {
	case spNone:
	case spEvent:
		h.eventValue(v, ti)
		return
	case spPendingReq:
		// The request's wire and token; its message id only names it.
		h.value(v.FieldByIndex(ti.paths[0]))
		h.value(v.FieldByIndex(ti.paths[1]))
		return
	case spInternalMsg:
		h.value(v.FieldByIndex(ti.paths[0]))
		h.value(v.FieldByIndex(ti.paths[1]))
		h.handle(v.FieldByIndex(ti.paths[2]).Uint())
		return
	case spPeer:
		h.i64(v.FieldByIndex(ti.paths[0]).Int())
		h.i64(v.FieldByIndex(ti.paths[1]).Int())
		h.handle(v.FieldByIndex(ti.paths[2]).Uint())
		return
	case spRules:
		// Used rules never fire again.
		n := 0
		for i := range v.Len() {
			if r := v.Index(i); !r.FieldByIndex(ti.paths[0]).Bool() {
				h.value(r)
				n++
			}
		}
		h.u64(uint64(n))
		return
	case spRecordSet:
		// The members, in order, made whole: not the window's storage.
		f := func(k int) reflect.Value { return v.FieldByIndex(ti.paths[k]) } // specialFields[spRecordSet]
		h.u64(uint64(f(0).Int()))
		slots, odd, app := f(1), f(2), int32(f(3).Int())
		off, base := int(f(4).Int()), f(5).Int()
		for i := off; i < off+int(f(6).Int()); i++ {
			switch sl, n := slots.Index(i), base+int64(i-off); {
			case sl.FieldByIndex(ti.paths[7]).Uint()&uint64(store.SlotOdd) != 0:
				h.value(odd.MapIndex(reflect.ValueOf(n)))
			case sl.FieldByIndex(ti.paths[7]).Uint()&uint64(store.SlotPresent) != 0:
				sent, part := sim.Time(sl.FieldByIndex(ti.paths[8]).Int()), int32(sl.FieldByIndex(ti.paths[9]).Int())
				h.value(reflect.ValueOf(store.Member(app, n, store.RecordSlot{Sent: sent, Part: part}, nil)))
			}
		}
		return
	}
	if v.Kind() == reflect.Struct {
		for j, i := range ti.fields {
			h.walk(v.Field(i), h.kid(ti, j))
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
		et := h.elemOf(ti)
		for i := range n {
			h.walk(v.Index(i), et)
		}
	}
}

// other walks the kinds walk does not handle at once; ti is the info of
// v's type, or nil.
func (h *stateHasher) other(v reflect.Value, ti *typeInfo) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		h.u64(math.Float64bits(v.Float()))
		return
	case reflect.Interface:
		if v.IsNil() {
			h.u64(0)
			return
		}
		e := v.Elem()
		h.u64(h.typeID(e.Type()))
		h.value(e)
		return
	}
	if ti == nil {
		ti = h.infoOf(v.Type())
	}
	t := ti.t
	switch v.Kind() {
	case reflect.Array:
		et := h.elemOf(ti)
		for i := range v.Len() {
			h.walk(v.Index(i), et)
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
			h.walk(v.Elem(), h.elemOf(ti))
		}
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
	// One hasher for the keys, emptied for each (a key's pointers and
	// handles are numbered within the key).
	kh := &stateHasher{w: h.w, cache: &hashCache{info: h.cache.info, types: h.cache.types}}
	for it.Next() {
		kh.a, kh.b, kh.ptrs, kh.handles, kh.cache.others = 0, 0, nil, nil, nil
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
