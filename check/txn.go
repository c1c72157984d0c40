package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// InvTxn is transactional atomicity as a read_committed consumer sees it
// at the run's end: no aborted read, no lost committed write, no torn
// transaction, and no COMMIT marker deciding batches of more than one
// transaction (transactions.md X39-X42, X50; Jepsen's KAFKA-17754).
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
//     for k): the EndTxn decided a transaction other than its own (X50,
//     the KAFKA-17754 schedules X40-X41), even when that transaction
//     held no records yet;
//   - mixed commit: one COMMIT marker decided the batches of more than
//     one transaction, so an EndTxn decided a transaction other than its
//     own (X50; expected under transaction version 1, X40-X42, where
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
	ended   map[string]endedTxn
	stale   capped
}

// endedTxn is an accepted EndTxn: its instance and request.
type endedTxn struct {
	inst int32
	req  *model.EndTxnRequest
}

func newTxn(cfg Config, lv *logView) Invariant {
	return &txnInv{cfg: cfg, lv: lv, current: map[int32]int32{}, ended: map[string]endedTxn{}}
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
		e, ok := t.ended[o.Text]
		delete(t.ended, o.Text)
		if s := model.TxnState(o.N); ok && (s == model.TxnPrepareCommit || s == model.TxnPrepareAbort) {
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
				t.ended[m.TransactionalID] = endedTxn{inst: o.Peer, req: m}
			}
		}
	}
}

// judgeEnd reports e when it moved the coordinator to Prepare* while its
// instance was in a later transaction.
func (t *txnInv) judgeEnd(at sim.Time, e endedTxn) {
	m, cur := e.req, t.current[e.inst]
	if m.Txn >= cur || !t.stale.room() {
		return
	}
	verb := "ABORT"
	if m.Commit {
		verb = "COMMIT"
	}
	t.stale.add(violation(InvTxn, at, fmt.Sprintf("stale EndTxn: %s's EndTxn(%s) of its transaction %d ended its transaction %d (pid %d, epoch %d), which shares the producer id and epoch",
		t.cfg.name(e.inst), verb, m.Txn, cur, m.PID, m.Epoch)))
}

// place is one record of a log entry.
type place struct {
	p     int32
	entry int
	rec   int
}

// txnParts is one transaction's records by fate at the run's end.
type txnParts struct {
	visible, aborted []place
}

func (t *txnInv) Finish() []Violation {
	lv, tx := t.lv, &t.lv.tx
	// The stale-EndTxn violations come first: they happened during the run.
	out := capped{vs: slices.Clone(t.stale.vs), more: t.stale.more}
	views := make([]rcView, len(lv.logs))
	byTxn := map[txnKey]*txnParts{}
	visible := map[model.RecordID]bool{}
	stuck := map[model.RecordID]bool{}
	abortedAt := map[model.RecordID]place{}
	// mixed lists, per COMMIT marker (partition, index), the transactions
	// it decided, with the first entry of each.
	type markerRef struct {
		p int32
		i int
	}
	mixed := map[markerRef]map[txnKey]int{}
	for p := range lv.logs {
		log := lv.logs[p]
		v := readCommitted(log)
		views[p] = v
		for i := range log {
			e := &log[i]
			if v.fate[i] == fateMarker {
				continue
			}
			k := tx.key(int32(p), i)
			var tp *txnParts
			if k.known() {
				if tp = byTxn[k]; tp == nil {
					tp = &txnParts{}
					byTxn[k] = tp
				}
				if d := v.decider[i]; d >= 0 && log[d].Marker == model.MarkerCommit {
					m := markerRef{int32(p), d}
					if mixed[m] == nil {
						mixed[m] = map[txnKey]int{}
					}
					if _, had := mixed[m][k]; !had {
						mixed[m][k] = i
					}
				}
			}
			for j, r := range e.Batch.Records {
				pl := place{int32(p), i, j}
				switch v.fate[i] {
				case fateVisible:
					visible[r.ID] = true
					if tp != nil {
						tp.visible = append(tp.visible, pl)
					}
				case fateAborted:
					if _, had := abortedAt[r.ID]; !had {
						abortedAt[r.ID] = pl
					}
					if tp != nil {
						tp.aborted = append(tp.aborted, pl)
					}
				case fateStuck:
					stuck[r.ID] = true
				}
			}
		}
	}
	keys := slices.SortedFunc(maps.Keys(byTxn), compareKeys)

	// Aborted reads.
	for _, k := range keys {
		tp := byTxn[k]
		end, told := tx.ends[k]
		if !told || end.committed || len(tp.visible) == 0 || end.verb == "failed" && tx.commitAsked[k] {
			continue
		}
		if !out.room() {
			continue
		}
		first := tp.visible[0]
		what := "reported " + end.verb
		if end.verb == "failed" {
			what += " without asking to commit"
		}
		out.add(violation(InvTxn, max(end.at, t.decidedAt(views, first)), fmt.Sprintf("aborted read: %s was %s, but %d of its records are visible to read_committed: %s first",
			k.describe(t.cfg), what, len(tp.visible), t.where(views, first))))
	}
	// Torn transactions.
	for _, k := range keys {
		tp := byTxn[k]
		if len(tp.visible) == 0 || len(tp.aborted) == 0 || !out.room() {
			continue
		}
		v, a := tp.visible[0], tp.aborted[0]
		out.add(violation(InvTxn, max(t.decidedAt(views, v), t.decidedAt(views, a)), fmt.Sprintf("torn transaction: %s has %d records visible to read_committed and %d aborted: %s, %s",
			k.describe(t.cfg), len(tp.visible), len(tp.aborted), t.where(views, v), t.where(views, a))))
	}
	// Lost committed writes.
	ended := slices.SortedFunc(maps.Keys(tx.ends), compareKeys)
	for _, k := range ended {
		end := tx.ends[k]
		if !end.committed {
			continue
		}
		var lost []model.RecordID
		for _, id := range end.ids {
			if !visible[id] && !stuck[id] {
				lost = append(lost, id)
			}
		}
		if len(lost) == 0 || !out.room() {
			continue
		}
		id := lost[0]
		at, why := end.at, string(id.AppendID(nil))+" is in no log"
		if pl, ok := abortedAt[id]; ok {
			at, why = max(at, t.decidedAt(views, pl)), t.where(views, pl)
		}
		out.add(violation(InvTxn, at, fmt.Sprintf("lost committed write: %s was reported committed, but %d of its %d acknowledged records are not visible to read_committed: %s first",
			k.describe(t.cfg), len(lost), len(end.ids), why)))
	}
	// COMMIT markers that decided several transactions.
	refs := slices.SortedFunc(maps.Keys(mixed), func(a, b markerRef) int {
		if a.p != b.p {
			return int(a.p - b.p)
		}
		return a.i - b.i
	})
	for _, m := range refs {
		ks := mixed[m]
		if len(ks) < 2 || !out.room() {
			continue
		}
		mk := &lv.logs[m.p][m.i]
		var parts []string
		for _, k := range slices.SortedFunc(maps.Keys(ks), compareKeys) {
			parts = append(parts, fmt.Sprintf("%s (first at offset %d)", k.describe(t.cfg), lv.logs[m.p][ks[k]].FirstOffset))
		}
		out.add(violation(InvTxn, mk.AppendedAt, fmt.Sprintf("mixed commit: the COMMIT for pid %d at p%d offset %d decided batches of %d transactions: %s",
			mk.Batch.PID, m.p, mk.FirstOffset, len(ks), strings.Join(parts, ", "))))
	}
	return out.report(InvTxn, lv.end)
}

// decidedAt returns when the record at pl was decided: the append time
// of the marker that closed its transaction, else of its own entry.
func (t *txnInv) decidedAt(views []rcView, pl place) sim.Time {
	log := t.lv.logs[pl.p]
	if d := views[pl.p].decider[pl.entry]; d >= 0 {
		return log[d].AppendedAt
	}
	return log[pl.entry].AppendedAt
}

// where describes the record at pl: "a0:5 visible at p0 offset 12
// (COMMIT at offset 14)".
func (t *txnInv) where(views []rcView, pl place) string {
	log := t.lv.logs[pl.p]
	e := &log[pl.entry]
	s := fmt.Sprintf("%s %s at p%d offset %d", e.Batch.Records[pl.rec].ID.AppendID(nil), fateName(views[pl.p].fate[pl.entry]), pl.p, e.FirstOffset+int64(pl.rec))
	if d := views[pl.p].decider[pl.entry]; d >= 0 {
		s += fmt.Sprintf(" (%s at offset %d)", log[d].Marker, log[d].FirstOffset)
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
