package check

import (
	"cmp"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// txnKey names one transaction of a producer instance: the instance's
// node id, its incarnation (how many restarts of the node the stream
// showed before it sent the transaction's requests; a restarted instance
// numbers its transactions from 1 again) and the transaction's ordinal
// ([model.Batch.Txn], 1, 2, ...). The zero ordinal names no transaction:
// a batch that does not say which transaction it was built for is never
// attributed.
type txnKey struct {
	node, inc, ord int32
}

func (k txnKey) known() bool { return k.ord > 0 }

func compareKeys(a, b txnKey) int {
	if c := cmp.Compare(a.node, b.node); c != 0 {
		return c
	}
	if c := cmp.Compare(a.inc, b.inc); c != 0 {
		return c
	}
	return cmp.Compare(a.ord, b.ord)
}

// describe names the transaction: "p1 transaction 2", with the
// incarnation when the instance had restarted.
func (k txnKey) describe(cfg Config) string {
	s := cfg.name(k.node) + " transaction " + strconv.Itoa(int(k.ord))
	if k.inc > 0 {
		s += " (after restart " + strconv.Itoa(int(k.inc)) + ")"
	}
	return s
}

// txnEnd is what an instance told its application about one transaction
// ([model.ObsTxnOutcome]). Its acknowledged records are those of
// txnFacts.ids[from:to]; its verb ("committed", "aborted" or "failed")
// is txnFacts.verbs[verb]: 24 bytes where the string made it 40.
type txnEnd struct {
	at        sim.Time
	from, to  int32
	verb      int32
	committed bool
}

// coordState is the latest state the coordinator installed for one
// transactional id ([model.ObsTxnState]).
type coordState struct {
	id    string // the transactional id
	pid   model.ProducerID
	epoch int16
	state model.TxnState
	parts []int32
	at    sim.Time
}

// txnFacts is what the stream tells of transactions, kept by the
// [logView] for INV-TXN, LIVE-LSO and INV-FENCE: which transaction each
// log entry belongs to, what the applications were told, which commits
// were asked for, and what the coordinator holds.
type txnFacts struct {
	// inc counts each node's restarts (ObsRestart).
	inc map[int32]int32
	// sentInc is the sending instance's incarnation of each produce
	// request put on the wire, by (instance, server, request number on
	// the link, which is per run), kept only when it is not 0.
	sentInc map[[3]int64]int32
	// src holds, per partition, the transaction of each entry pushed
	// that has one, by index in the order pushed (parallel to
	// logView.logs), as runs (see srcRun); the others (markers,
	// non-transactional data) have the zero key. pushed counts the
	// entries pushed per partition.
	src    [][]srcRun
	pushed []int32
	// ends holds each transaction's reported end, ids their
	// acknowledged records; commitAsked the transactions whose
	// EndTxn(COMMIT) went on the wire.
	ends        map[txnKey]txnEnd
	verbs       []string
	ids         []idRun
	commitAsked map[txnKey]bool
	// ended is, per (partition, pid, instance node, incarnation), the
	// highest ordinal of that instance a marker for pid closed on the
	// partition, that marker's offset and the time it was written.
	ended map[[4]int64][3]int64
	// open holds, per (partition, pid), the keys of the entries of the
	// transaction open there (a key whose transaction ended keeps its
	// emptied list, for the next).
	open openTable[txnKey]
	// coord holds the latest coordinator state per transactional id, by
	// id; sawCoord tells whether the stream had any.
	coord    []coordState
	sawCoord bool
}

// reset empties the facts for a new run, keeping their memory.
func (f *txnFacts) reset() {
	f.inc = cleared(f.inc)
	f.sentInc = cleared(f.sentInc)
	f.src = truncatedAll(f.src)
	f.pushed = truncated(f.pushed)
	f.ends = cleared(f.ends)
	f.verbs = truncated(f.verbs)
	f.ids = truncated(f.ids)
	f.commitAsked = cleared(f.commitAsked)
	f.ended = cleared(f.ended)
	f.open.reset()
	for i := range f.coord {
		f.coord[i] = coordState{parts: f.coord[i].parts[:0]}
	}
	f.coord = f.coord[:0]
	if f.coord == nil {
		f.coord = []coordState{}
	}
	f.sawCoord = false
}

// keyOf returns the transaction of an appended data batch.
func (f *txnFacts) keyOf(o *model.Obs) txnKey {
	if !o.Batch.Transactional || o.Batch.Txn <= 0 {
		return txnKey{}
	}
	return txnKey{node: o.Peer, inc: f.sentInc[[3]int64{int64(o.Peer), int64(o.Node), o.N}], ord: o.Batch.Txn}
}

// endedBefore returns the offset of the marker that already closed, on
// the batch's partition and for its pid, the transaction of this appended
// data batch or a later one of the same instance, the time that marker
// was written, and whether there was one (the INV-FENCE clause).
func (f *txnFacts) endedBefore(o *model.Obs) (int64, sim.Time, bool) {
	k := f.keyOf(o)
	if !k.known() {
		return 0, 0, false
	}
	e, ok := f.ended[[4]int64{int64(o.Batch.Partition), int64(o.Batch.PID), int64(k.node), int64(k.inc)}]
	if !ok || int32(e[0]) < k.ord {
		return 0, 0, false
	}
	return e[1], sim.Time(e[2]), true
}

// observe reads o after the log view appended what it appended.
func (f *txnFacts) observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsRestart:
		f.inc[o.Node]++
	case model.ObsSent:
		if o.Flag || o.Fate != "" {
			return
		}
		switch m := o.Msg.(type) {
		case *model.ProduceRequest:
			if inc := f.inc[o.Node]; inc > 0 {
				f.sentInc[[3]int64{int64(o.Node), int64(o.Peer), o.N}] = inc
			}
		case *model.EndTxnRequest:
			if m.Commit && m.Txn > 0 {
				f.commitAsked[txnKey{node: o.Node, inc: f.inc[o.Node], ord: m.Txn}] = true
			}
		}
	case model.ObsVerdict:
		if !appended(o) {
			return
		}
		k := f.keyOf(o)
		f.push(o.Batch.Partition, k)
		if o.Batch.Transactional {
			f.open.add([2]int64{int64(o.Batch.Partition), int64(o.Batch.PID)}, k)
		}
	case model.ObsMarker:
		if o.Err != model.ErrNone {
			return
		}
		f.push(o.Partition, txnKey{})
		pend := f.open.find([2]int64{int64(o.Partition), int64(o.PID)})
		if pend == nil {
			return
		}
		for _, k := range pend.list {
			if !k.known() {
				continue
			}
			ek := [4]int64{int64(o.Partition), int64(o.PID), int64(k.node), int64(k.inc)}
			if e, had := f.ended[ek]; !had || e[0] < int64(k.ord) {
				f.ended[ek] = [3]int64{int64(k.ord), o.Result.FirstOffset, int64(o.At)}
			}
		}
		pend.list = pend.list[:0]
	case model.ObsTxnOutcome:
		if o.Txn <= 0 {
			return
		}
		from := len(f.ids)
		for _, id := range o.IDs {
			if n := len(f.ids); n > from && f.ids[n-1].app == id.App && f.ids[n-1].n0+int64(f.ids[n-1].count) == id.N && f.ids[n-1].count < math.MaxInt32 {
				f.ids[n-1].count++
				continue
			}
			f.ids = append(f.ids, idRun{n0: id.N, app: id.App, count: 1})
		}
		verb := slices.Index(f.verbs, o.Text)
		if verb < 0 {
			verb = len(f.verbs)
			f.verbs = append(f.verbs, o.Text)
		}
		f.ends[txnKey{node: o.Node, inc: f.inc[o.Node], ord: o.Txn}] = txnEnd{verb: int32(verb), committed: o.Flag, at: o.At, from: int32(from), to: int32(len(f.ids))}
	case model.ObsTxnState:
		f.sawCoord = true
		c := f.coordOf(o.Text)
		c.pid, c.epoch, c.state, c.at = o.PID, o.Epoch, model.TxnState(o.N), o.At
		c.parts = append(c.parts[:0], o.Parts...)
	}
}

// idRun is a run of a reported end's acknowledged records, in the order
// reported: count records of application app numbered n0, n0+1, ... (an
// application's transaction acknowledges consecutive records, mostly:
// 16 bytes a run where the ids took 16 a record).
type idRun struct {
	n0         int64
	app, count int32
}

// endIDs yields the acknowledged records of a reported end, in the order
// reported.
func (f *txnFacts) endIDs(e txnEnd) iter.Seq[model.RecordID] {
	return func(yield func(model.RecordID) bool) {
		for _, r := range f.ids[e.from:e.to] {
			for j := range int64(r.count) {
				if !yield(model.RecordID{App: r.app, N: r.n0 + j}) {
					return
				}
			}
		}
	}
}

// coordOf returns transactional id's coordinator state, adding it (in id
// order, reusing the memory of an entry an earlier run left behind the
// slice's length) when the stream had none yet.
func (f *txnFacts) coordOf(id string) *coordState {
	i, found := slices.BinarySearchFunc(f.coord, id, func(c coordState, id string) int { return strings.Compare(c.id, id) })
	if !found {
		var spare coordState
		f.coord, spare = insertedAt(f.coord, i)
		f.coord[i] = coordState{id: id, parts: spare.parts[:0]}
	}
	return &f.coord[i]
}

// push records the transaction of the entry just appended to partition
// p's log.
func (f *txnFacts) push(p int32, k txnKey) {
	for len(f.pushed) <= int(p) {
		f.pushed = append(f.pushed, 0)
	}
	i := f.pushed[p]
	f.pushed[p]++
	if k.known() {
		f.src = grown(f.src, int(p))
		if n := len(f.src[p]); n > 0 && f.src[p][n-1].join(i, k) {
			return
		}
		f.src[p] = append(f.src[p], srcRun{i: i, per: 1, units: 1, last: 1, k: k})
	}
}

// srcRun is a run of entries with transactions, in units: unit u holds
// entries i+u*stride to that plus per-1 (last of them in the last unit),
// each of transaction k moved u*dord ordinals. A producer's consecutive
// batches of one transaction are a unit; its next transaction's, after
// the marker, the next unit: 32 bytes a run where a key took 16 an
// entry.
type srcRun struct {
	i, per, units, stride, last, dord int32
	k                                 txnKey
}

// join adds entry i of transaction k to run r if it continues it, and
// reports whether it did.
func (r *srcRun) join(i int32, k txnKey) bool {
	lk, start := r.k, r.i+(r.units-1)*r.stride
	lk.ord += (r.units - 1) * r.dord
	switch {
	case k == lk && i == start+r.last && (r.units == 1 || r.last < r.per):
		if r.units == 1 {
			r.per++
		}
		r.last++
		return true
	case k.node == lk.node && k.inc == lk.inc && r.last == r.per && i >= start+r.per:
		if r.units == 1 {
			r.stride, r.dord = i-r.i, k.ord-r.k.ord
		} else if i-start != r.stride || k.ord-lk.ord != r.dord {
			return false
		}
		r.units++
		r.last = 1
		return true
	}
	return false
}

// key returns the transaction of entry i in r, and whether r holds it.
func (r *srcRun) key(i int32) (txnKey, bool) {
	d := i - r.i
	if d < 0 {
		return txnKey{}, false
	}
	u := int32(0)
	if r.units > 1 {
		u = d / r.stride
	}
	in := d - u*r.stride
	if u >= r.units || in >= r.per || u == r.units-1 && in >= r.last {
		return txnKey{}, false
	}
	k := r.k
	k.ord += u * r.dord
	return k, true
}

// keyed reports whether some entry of partition p's log has a
// transaction ([txnFacts.key]).
func (f *txnFacts) keyed(p int32) bool {
	return p >= 0 && int(p) < len(f.src) && len(f.src[p]) > 0
}

// key returns the transaction of entry i of partition p's log.
func (f *txnFacts) key(p int32, i int) txnKey {
	if p < 0 || int(p) >= len(f.src) {
		return txnKey{}
	}
	s := f.src[p]
	// The last run starting at or before entry i is the only one that
	// may hold it.
	j, found := slices.BinarySearchFunc(s, int32(i), func(r srcRun, i int32) int { return cmp.Compare(r.i, i) })
	if !found {
		j--
	}
	if j < 0 {
		return txnKey{}
	}
	k, _ := s[j].key(int32(i))
	return k
}

// fate is what a read_committed consumer makes of a log entry at the
// run's end.
type fate uint8

const (
	// fateMarker: a control batch, never returned.
	fateMarker fate = iota
	// fateVisible: data below the LSO, not aborted.
	fateVisible
	// fateAborted: transactional data its producer's next marker on the
	// partition aborted.
	fateAborted
	// fateStuck: data at or above the LSO that is not aborted: committed,
	// non-transactional, or of a transaction still open.
	fateStuck
)

// rcView is one partition's read_committed view at the run's end
// (KIP-98): the LSO is the first offset of the oldest transaction no
// marker closed yet, else the log end (the high watermark
// is the log end: idemsim has no replication; Kafka's
// UnifiedLog.lastStableOffset, core/src/main/scala/kafka/log/
// UnifiedLog.scala l.425 at apache/kafka@1eb7644349cb); below it, a
// transactional batch is read iff the marker that closed its
// transaction is a COMMIT. This is the consumer's filter
// (clients/src/main/java/org/apache/kafka/clients/consumer/internals/
// CompletedFetch.java l.207-222, l.355-390: a heap of
// aborted (pid, firstOffset), a set of aborted pids that an ABORT marker
// leaves) read by transaction: a pid's transactions never overlap, so a
// batch is in an aborted one iff the next marker of its pid is an ABORT
// that closed its transaction.
type rcView struct {
	fate []fate
	// decider is, per transactional data entry, the index of the marker
	// that closed its transaction, or -1 while it is open.
	decider []int32
	// lso and leo are the last stable offset and the log end offset;
	// pin is the index of the entry at the LSO when it is below the log
	// end (the first batch of the oldest open transaction), else -1.
	lso, leo int64
	pin      int
}

// readCommitted computes the read_committed view of a partition's log.
func readCommitted(log []model.LogEntry) rcView {
	var v rcView
	var sc rcScratch
	var s logStore
	var listed []logRec
	for i := range log {
		e := &log[i]
		s.add(makeEntry(&e.Batch, e.FirstOffset, e.LastOffset, e.AppendedAt, e.Marker, &listed))
	}
	v.compute(&s, &sc)
	return v
}

// rcScratch is what computing a view needs and does not keep: per entry,
// the previous entry of its producer's open transaction (-1 for the
// first); per producer with an open transaction, its latest entry. Both
// are emptied after each view.
type rcScratch struct {
	prev []int32
	open []openTxn
}

// openTxn is a producer id's open transaction while a view is computed:
// the index of its latest entry.
type openTxn struct {
	pid  model.ProducerID
	last int32
}

func (sc *rcScratch) reset() {
	sc.prev = truncated(sc.prev)
	sc.open = truncated(sc.open)
}

// find returns the index in sc.open of pid's open transaction, or -1.
func (sc *rcScratch) find(pid model.ProducerID) int {
	for i := range sc.open {
		if sc.open[i].pid == pid {
			return i
		}
	}
	return -1
}

// compute makes v the read_committed view of log, reusing v's memory.
func (v *rcView) compute(log *logStore, sc *rcScratch) {
	n := log.len()
	v.fate, v.decider = resized(v.fate, n), resized(v.decider, n)
	v.lso, v.leo, v.pin = 0, 0, -1
	if log.txn == 0 {
		// No transaction and no marker: every entry is data below the
		// LSO, which is the log end offset.
		for i := range n {
			v.fate[i], v.decider[i] = fateVisible, -1
		}
		if k := len(log.runs); k > 0 {
			v.leo = log.runLast(&log.runs[k-1]) + 1
		}
		v.lso = v.leo
		return
	}
	prev := resized(sc.prev, n)
	cur := logCursor{s: log}
	for i := range n {
		e := cur.at(i)
		v.fate[i], v.decider[i], prev[i] = fateMarker, -1, -1
		v.leo = e.last() + 1
		switch {
		case e.marker != model.MarkerNone:
			k := sc.find(e.pid)
			if k < 0 {
				continue
			}
			for j := sc.open[k].last; j >= 0; j = prev[j] {
				v.decider[j] = int32(i)
				if e.marker == model.MarkerAbort {
					v.fate[j] = fateAborted
				}
			}
			sc.open = slices.Delete(sc.open, k, k+1)
		case e.transactional():
			k := sc.find(e.pid)
			if k < 0 {
				sc.open = append(sc.open, openTxn{pid: e.pid, last: -1})
				k = len(sc.open) - 1
			}
			prev[i], sc.open[k].last = sc.open[k].last, int32(i)
		}
	}
	v.lso = v.leo
	for _, t := range sc.open {
		first := t.last
		for prev[first] >= 0 {
			first = prev[first]
		}
		if f := log.at(int(first)).first; f < v.lso {
			v.lso, v.pin = f, int(first)
		}
	}
	// Data not aborted is read below the LSO and stuck above it.
	cur = logCursor{s: log}
	for i := range n {
		if e := cur.at(i); v.fate[i] == fateMarker && e.marker == model.MarkerNone {
			if e.first < v.lso {
				v.fate[i] = fateVisible
			} else {
				v.fate[i] = fateStuck
			}
		}
	}
	sc.prev = prev[:0]
	sc.open = sc.open[:0]
}

// truncatedViews empties views, keeping each view's memory behind its
// length, or releasing it when it outgrew scratchKeep (trimmed).
func truncatedViews(views []rcView) []rcView {
	for i := range views {
		views[i].fate, views[i].decider = trimmed(views[i].fate), trimmed(views[i].decider)
	}
	if views == nil {
		return []rcView{}
	}
	return views[:0]
}

// rcViews returns every partition's read_committed view, computed once
// while the suite judges (the suite empties them after Finish).
func (lv *logView) rcViews() []rcView {
	if len(lv.views) == len(lv.logs) {
		return lv.views
	}
	lv.views = resized(lv.views, len(lv.logs))
	for p := range lv.logs {
		lv.views[p].compute(&lv.logs[p], &lv.rc)
	}
	return lv.views
}
