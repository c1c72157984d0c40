package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// InvTxn is transactional atomicity as a read_committed consumer sees it
// at the run's end: no aborted read, no lost committed write, no torn
// transaction, and no COMMIT marker deciding batches of more than one
// transaction (KAFKA-17754, found by Jepsen).
const InvTxn = "INV-TXN"

// txnInv judges INV-TXN at Finish, on the read_committed view of every
// partition ([readCommitted]: the LSO, the consumer's filter of aborted
// transactions) and on what the applications were told
// ([model.ObsTxnOutcome]). A transaction is an instance's transaction
// ordinal ([txnKey]); batches that carry no ordinal are not judged. It
// reports, each kind in transaction order, the first offending record
// and how many there are:
//
//   - aborted read: a record of a transaction its application was told
//     aborted, or failed without ever asking to commit (an EndTxn(COMMIT)
//     on the wire makes a failed transaction's fate unknown: either is
//     allowed), is visible;
//   - torn transaction: some batches of one transaction are visible and
//     others were aborted by a marker (two partitions decided
//     differently, or a marker split one partition's batches across two
//     of the producer's transactions);
//   - lost committed write: a record its application was told committed
//     is visible nowhere: aborted by a marker, or not in any log. A
//     record whose copy is committed or open but above a stuck LSO is
//     not counted: LIVE-LSO reports the stuck LSO;
//   - stale EndTxn: an EndTxn of an instance's transaction j moved the
//     coordinator from Ongoing to Prepare* while the instance was in a
//     later transaction k (it had added partitions or appended batches
//     for k): the EndTxn decided a transaction other than its own
//     (KAFKA-17754: a delayed COMMIT or ABORT ends the next
//     transaction), even when that transaction held no records yet;
//   - mixed commit: one COMMIT marker decided the batches of more than
//     one transaction, so an EndTxn decided a transaction other than its
//     own (expected under transaction version 1, KAFKA-17754, where
//     TransactionCoordinator.endTransaction, core/src/main/scala/kafka/
//     coordinator/transaction/TransactionCoordinator.scala l.506, accepts
//     a stale EndTxn of the same (pid, epoch), and a marker closes
//     whatever its pid has open, ProducerAppendInfo.appendEndTxnMarker,
//     storage/src/main/java/org/apache/kafka/storage/internals/log/
//     ProducerAppendInfo.java l.204).
//
// The marker offsets come from the markers' own observations (their
// AppendResult).
type txnInv struct {
	cfg Config
	lv  *logView
	// current is each instance's latest transaction ordinal the
	// coordinator or a partition has seen (AddPartitionsToTxn, an
	// appended transactional batch); ended is, per transactional id, the
	// EndTxn the coordinator accepted last, until its next state is
	// installed (a Prepare* then is that EndTxn's decision: writes
	// of one id do not overlap).
	current map[int32]int32
	ended   []endedTxn
	stale   capped
	// fin is Finish's scratch, empty between calls.
	fin txnScratch
}

// endedTxn is an EndTxn the coordinator accepted for transactional id
// id: its instance and what it asked.
type endedTxn struct {
	id     string
	inst   int32
	txn    int32
	commit bool
	pid    model.ProducerID
	epoch  int16
}

func newTxn() invariant { return &txnInv{} }

func (t *txnInv) reset(cfg Config, lv *logView) {
	t.cfg, t.lv = cfg, lv
	t.current = cleared(t.current)
	t.ended = truncated(t.ended)
	t.stale.reset()
	t.fin.reset()
}

// endedOf returns the index in t.ended of transactional id's accepted
// EndTxn, or where it would go (t.ended is in id order).
func (t *txnInv) endedOf(id string) (int, bool) {
	return slices.BinarySearchFunc(t.ended, id, func(e endedTxn, id string) int { return strings.Compare(e.id, id) })
}

func (t *txnInv) Name() string { return InvTxn }

// Observe follows the instances' transaction ordinals and the
// coordinator's EndTxn decisions (the stale-EndTxn clause).
func (t *txnInv) Observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsRestart:
		delete(t.current, o.Node) // a restarted instance counts from 1 again
	case model.ObsVerdict:
		if appended(o) && o.Batch.Txn > t.current[o.Peer] {
			t.current[o.Peer] = o.Batch.Txn
		}
	case model.ObsTxnState:
		i, ok := t.endedOf(o.Text)
		if !ok {
			return
		}
		e := t.ended[i]
		t.ended = slices.Delete(t.ended, i, i+1)
		if s := model.TxnState(o.N); s == model.TxnPrepareCommit || s == model.TxnPrepareAbort {
			t.judgeEnd(o.At, e)
		}
	case model.ObsTxnOp:
		switch m := o.Msg.(type) {
		case *model.AddPartitionsToTxnRequest:
			if o.Err == model.ErrNone && m.Txn > t.current[o.Peer] {
				t.current[o.Peer] = m.Txn
			}
		case *model.EndTxnRequest:
			if o.Err == model.ErrNone && m.Txn != 0 {
				e := endedTxn{id: m.TransactionalID, inst: o.Peer, txn: m.Txn, commit: m.Commit, pid: m.PID, epoch: m.Epoch}
				if i, ok := t.endedOf(e.id); ok {
					t.ended[i] = e
				} else {
					t.ended = slices.Insert(t.ended, i, e)
				}
			}
		}
	}
}

func (t *txnInv) reads() []model.ObsKind {
	return []model.ObsKind{model.ObsRestart, model.ObsVerdict, model.ObsTxnState, model.ObsTxnOp}
}

// judgeEnd reports e when it moved the coordinator to Prepare* while its
// instance was in a later transaction.
func (t *txnInv) judgeEnd(at sim.Time, e endedTxn) {
	cur := t.current[e.inst]
	if e.txn >= cur || !t.stale.room() {
		return
	}
	verb := "ABORT"
	if e.commit {
		verb = "COMMIT"
	}
	t.stale.add(violation(InvTxn, at, fmt.Sprintf("stale EndTxn: %s's EndTxn(%s) of its transaction %d ended its transaction %d (pid %d, epoch %d), which shares the producer id and epoch",
		t.cfg.name(e.inst), verb, e.txn, cur, e.pid, e.epoch)))
}

// place is one record of a log entry: record rec of the entry at index
// entry of partition p's log (12 bytes: a log holds fewer than 2^31
// entries, an entry fewer than 2^31 records).
type place struct {
	p, entry, rec int32
}

// Finish judges the read_committed views at the run's end. It works on
// sorted scratch lists rather than maps (txnScratch), in the orders the
// report needs: transactions in key order, each one's records in log
// order (partition, offset).
func (t *txnInv) Finish() []Violation {
	lv, tx, sc := t.lv, &t.lv.tx, &t.fin
	// The stale-EndTxn violations come first: they happened during the run.
	out := capped{vs: append(sc.vs[:0], t.stale.vs...), more: t.stale.more}
	views := lv.rcViews()
	for p := range lv.logs {
		if !tx.keyed(int32(p)) {
			continue // no entry of a transaction
		}
		log, v := &lv.logs[p], &views[p]
		cur := logCursor{s: log}
		// A COMMIT marker's entries all precede it: pend follows the
		// markers whose entries the loop has met but not the marker
		// itself yet, each with its first transaction and whether it
		// decided another; mixedAt collects the markers that did.
		sc.pend, sc.mixedAt = sc.pend[:0], sc.mixedAt[:0]
		for i := range log.len() {
			if v.fate[i] == fateMarker {
				if j := slices.IndexFunc(sc.pend, func(m pendMarker) bool { return m.at == int32(i) }); j >= 0 {
					if sc.pend[j].mixed {
						sc.mixedAt = append(sc.mixedAt, int32(i))
					}
					sc.pend = slices.Delete(sc.pend, j, j+1)
				}
				continue
			}
			k := tx.key(int32(p), i)
			if !k.known() {
				continue
			}
			if n := cur.at(i).nrec; n > 0 {
				sc.ents = append(sc.ents, txnEntry{k: k, p: int32(p), i: int32(i), fate: v.fate[i], n: n})
			}
			if d := v.decider[i]; d >= 0 && log.at(int(d)).marker == model.MarkerCommit {
				if j := slices.IndexFunc(sc.pend, func(m pendMarker) bool { return m.at == d }); j < 0 {
					sc.pend = append(sc.pend, pendMarker{at: d, k: k})
				} else if sc.pend[j].k != k {
					sc.pend[j].mixed = true
				}
			}
		}
		// The entries of the markers that decided several transactions.
		for i := 0; len(sc.mixedAt) > 0 && i < log.len(); i++ {
			if v.fate[i] == fateMarker || !slices.Contains(sc.mixedAt, v.decider[i]) {
				continue
			}
			if k := tx.key(int32(p), i); k.known() {
				sc.mixed = append(sc.mixed, mixRef{p: int32(p), marker: v.decider[i], k: k, i: int32(i)})
			}
		}
	}
	// Per transaction, in key order: its visible and aborted records,
	// and the first of each in log order.
	slices.SortStableFunc(sc.ents, func(a, b txnEntry) int { return compareKeys(a.k, b.k) })
	for _, e := range sc.ents {
		if n := len(sc.parts); n == 0 || sc.parts[n-1].k != e.k {
			sc.parts = append(sc.parts, txnParts{k: e.k})
		}
		tp := &sc.parts[len(sc.parts)-1]
		pl := place{e.p, e.i, 0}
		switch e.fate {
		case fateVisible:
			if tp.visible == 0 {
				tp.firstVisible = pl
			}
			tp.visible += int(e.n)
		case fateAborted:
			if tp.aborted == 0 {
				tp.firstAborted = pl
			}
			tp.aborted += int(e.n)
		}
	}

	// Aborted reads.
	for i := range sc.parts {
		tp := &sc.parts[i]
		k := tp.k
		end, told := tx.ends[k]
		if !told || end.committed || tp.visible == 0 {
			continue
		}
		verb := tx.verbs[end.verb]
		if verb == "failed" && tx.commitAsked[k] {
			continue
		}
		if !out.room() {
			continue
		}
		first := tp.firstVisible
		what := "reported " + verb
		if verb == "failed" {
			what += " without asking to commit"
		}
		out.add(violation(InvTxn, max(end.at, t.decidedAt(views, first)), fmt.Sprintf("aborted read: %s was %s, but %d of its records are visible to read_committed: %s first",
			k.describe(t.cfg), what, tp.visible, t.where(views, first))))
	}
	// Torn transactions.
	for i := range sc.parts {
		tp := &sc.parts[i]
		if tp.visible == 0 || tp.aborted == 0 || !out.room() {
			continue
		}
		v, a := tp.firstVisible, tp.firstAborted
		out.add(violation(InvTxn, max(t.decidedAt(views, v), t.decidedAt(views, a)), fmt.Sprintf("torn transaction: %s has %d records visible to read_committed and %d aborted: %s, %s",
			tp.k.describe(t.cfg), tp.visible, tp.aborted, t.where(views, v), t.where(views, a))))
	}
	t.lostWrites(&out, views)
	// COMMIT markers that decided several transactions: per marker (in
	// log order), its transactions in key order, each with its first
	// entry.
	slices.SortFunc(sc.mixed, func(a, b mixRef) int {
		if c := cmp.Compare(a.p, b.p); c != 0 {
			return c
		}
		if c := cmp.Compare(a.marker, b.marker); c != 0 {
			return c
		}
		if c := compareKeys(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	for lo := 0; lo < len(sc.mixed); {
		m := sc.mixed[lo]
		hi, keys := lo, 0
		for ; hi < len(sc.mixed) && sc.mixed[hi].p == m.p && sc.mixed[hi].marker == m.marker; hi++ {
			if hi == lo || sc.mixed[hi].k != sc.mixed[hi-1].k {
				keys++
			}
		}
		if keys >= 2 && out.room() {
			log := &lv.logs[m.p]
			mk := log.at(int(m.marker))
			var parts []string
			for j := lo; j < hi; j++ {
				if r := sc.mixed[j]; j == lo || r.k != sc.mixed[j-1].k {
					parts = append(parts, fmt.Sprintf("%s (first at offset %d)", r.k.describe(t.cfg), log.at(int(r.i)).first))
				}
			}
			out.add(violation(InvTxn, mk.at, fmt.Sprintf("mixed commit: the COMMIT for pid %d at p%d offset %d decided batches of %d transactions: %s",
				mk.pid, m.p, mk.first, keys, strings.Join(parts, ", "))))
		}
		lo = hi
	}
	vs := out.report(InvTxn, lv.end)
	sc.done(out.vs)
	return vs
}

// lostWrites reports the lost committed writes: per transaction its
// application was told committed, in key order, the acknowledged records
// visible nowhere (neither read nor above a stuck LSO).
func (t *txnInv) lostWrites(out *capped, views []rcView) {
	lv, tx, sc := t.lv, &t.lv.tx, &t.fin
	for k, end := range tx.ends {
		if end.committed {
			sc.keys = append(sc.keys, k)
		}
	}
	if len(sc.keys) == 0 {
		return
	}
	slices.SortFunc(sc.keys, compareKeys)
	// The wanted records, by id: taken in transaction order they are
	// usually sorted already (one application's transactions, in order).
	for _, k := range sc.keys {
		for id := range tx.endIDs(tx.ends[k]) {
			sc.wanted = append(sc.wanted, wantedRec{id: id})
		}
	}
	if !wantedSorted(sc.wanted) {
		slices.SortFunc(sc.wanted, func(a, b wantedRec) int { return compareIDs(a.id, b.id) })
	}
	// Each id once (a record can be in two transactions' lists when an
	// instance resent it).
	uniq := sc.wanted[:0]
	for i := range sc.wanted {
		if n := len(uniq); n == 0 || uniq[n-1].id != sc.wanted[i].id {
			uniq = append(uniq, sc.wanted[i])
		}
	}
	sc.wanted = uniq
	// What became of each wanted record, over every copy in log order.
	hint := 0
	for p := range lv.logs {
		log, v := &lv.logs[p], &views[p]
		cur := logCursor{s: log}
		for i := range log.len() {
			f := v.fate[i]
			if f == fateMarker {
				continue
			}
			e := cur.at(i)
			for j := range int(e.nrec) {
				w, ok := findWantedNear(sc.wanted, lv.recID(&e, j), &hint)
				if !ok {
					continue
				}
				rec := &sc.wanted[w]
				switch f {
				case fateVisible:
					rec.visible = true
				case fateStuck:
					rec.stuck = true
				case fateAborted:
					if !rec.aborted {
						rec.aborted, rec.abortedAt = true, place{int32(p), int32(i), int32(j)}
					}
				}
			}
		}
	}
	hint = 0
	for _, k := range sc.keys {
		end := tx.ends[k]
		var lost, all int
		var first *wantedRec
		for id := range tx.endIDs(end) {
			all++
			w, _ := findWantedNear(sc.wanted, id, &hint)
			if rec := &sc.wanted[w]; !rec.visible && !rec.stuck {
				if lost == 0 {
					first = rec
				}
				lost++
			}
		}
		if lost == 0 || !out.room() {
			continue
		}
		at, why := end.at, string(first.id.AppendID(nil))+" is in no log"
		if first.aborted {
			at, why = max(at, t.decidedAt(views, first.abortedAt)), t.where(views, first.abortedAt)
		}
		out.add(violation(InvTxn, at, fmt.Sprintf("lost committed write: %s was reported committed, but %d of its %d acknowledged records are not visible to read_committed: %s first",
			k.describe(t.cfg), lost, all, why)))
	}
}

// decidedAt returns when the record at pl was decided: the append time
// of the marker that closed its transaction, else of its own entry.
func (t *txnInv) decidedAt(views []rcView, pl place) sim.Time {
	log := &t.lv.logs[pl.p]
	if d := views[pl.p].decider[pl.entry]; d >= 0 {
		return log.at(int(d)).at
	}
	return log.at(int(pl.entry)).at
}

// where describes the record at pl: "a0:5 visible at p0 offset 12
// (COMMIT at offset 14)".
func (t *txnInv) where(views []rcView, pl place) string {
	log := &t.lv.logs[pl.p]
	e := log.at(int(pl.entry))
	s := fmt.Sprintf("%s %s at p%d offset %d", t.lv.recID(&e, int(pl.rec)).AppendID(nil), fateName(views[pl.p].fate[pl.entry]), pl.p, e.first+int64(pl.rec))
	if d := views[pl.p].decider[pl.entry]; d >= 0 {
		md := log.at(int(d))
		s += fmt.Sprintf(" (%s at offset %d)", md.marker, md.first)
	}
	return s
}

func fateName(f fate) string {
	switch f {
	case fateVisible:
		return "visible"
	case fateAborted:
		return "aborted"
	case fateStuck:
		return "above the LSO"
	}
	return "a marker"
}

// findWanted returns the index of record id in ws (ordered by
// compareIDs), or where it goes: a binary search written out, as it runs
// for every record of a transactional run's logs.
// findWantedNear is findWanted trying *hint and the next index first (the
// records are looked up mostly in id order) and setting *hint to the
// index found.
func findWantedNear(ws []wantedRec, id model.RecordID, hint *int) (int, bool) {
	for i := *hint; i < len(ws) && i <= *hint+1; i++ {
		if ws[i].id == id {
			*hint = i
			return i, true
		}
	}
	i, ok := findWanted(ws, id)
	if ok {
		*hint = i
	}
	return i, ok
}

// wantedSorted reports whether ws is in id order.
func wantedSorted(ws []wantedRec) bool {
	for i := 1; i < len(ws); i++ {
		if compareIDs(ws[i-1].id, ws[i].id) > 0 {
			return false
		}
	}
	return true
}

func findWanted(ws []wantedRec, id model.RecordID) (int, bool) {
	lo, hi := 0, len(ws)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if w := ws[m].id; w.App < id.App || w.App == id.App && w.N < id.N {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(ws) && ws[lo].id == id
}
