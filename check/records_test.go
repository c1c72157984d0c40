package check

import (
	"maps"
	"reflect"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// TestRecTableAsMaps: the record table answers as the maps it replaced
// did (copies, outcomes, committed transactions), for records spread over
// applications and pages, negative message numbers, more than
// recCopiesMax copies and odd digests; and tables given the same facts in
// different orders are equal field by field.
func TestRecTableAsMaps(t *testing.T) {
	ids := []model.RecordID{{App: 0, N: 0}, {App: 0, N: 1}, {App: 0, N: recPageSize + 3}, {App: 2, N: 7},
		{App: 1, N: -1}, {App: 1, N: -recPageSize - 5}, {App: -3, N: 1 << 40}, {App: 0, N: recPageSize - 1}}
	type fact struct {
		id   model.RecordID
		kind int // 0 copy, 1 outcome, 2 txn committed
		out  model.Outcome
	}
	var facts []fact
	for k, id := range ids {
		for range k * 60 { // the last ones pass recCopiesMax
			facts = append(facts, fact{id: id})
		}
		fail := model.Outcome{ID: id, Err: model.ErrDeliveryTimeout, Offset: -1, At: 3}
		ok := model.Outcome{ID: id, Partition: int32(k), Offset: int64(10 * k), At: 5, Digest: model.Digest(id, uint64(k%2)), Txn: k%3 == 0}
		facts = append(facts, fact{id: id, kind: 1, out: fail})
		if k%4 != 1 {
			facts = append(facts, fact{id: id, kind: 1, out: ok})
		}
		if k%2 == 0 {
			facts = append(facts, fact{id: id, kind: 2})
		}
	}
	apply := func(tb *recTable, fs []fact) {
		for _, f := range fs {
			switch f.kind {
			case 0:
				tb.addCopy(f.id)
			case 1:
				tb.addOutcome(&f.out)
			case 2:
				tb.setTxnCommitted(f.id)
			}
		}
	}
	var a recTable
	a.reset()
	apply(&a, facts)
	copies, outs, txn := map[model.RecordID]int32{}, map[model.RecordID]model.Outcome{}, map[model.RecordID]bool{}
	for _, f := range facts {
		switch f.kind {
		case 0:
			copies[f.id]++
		case 1:
			if prev, ok := outs[f.id]; !ok || prev.Err != model.ErrNone && f.out.Err == model.ErrNone {
				outs[f.id] = f.out
			}
		case 2:
			txn[f.id] = true
		}
	}
	var acked, failed int64
	for _, id := range ids {
		if got := a.copies(id); got != copies[id] {
			t.Errorf("%v: %d copies, want %d", id, got, copies[id])
		}
		if got := a.txnCommitted(id); got != txn[id] {
			t.Errorf("%v: txn committed %v, want %v", id, got, txn[id])
		}
		o := outs[id]
		got, ok := a.ackFor(id)
		if ok != (o.Err == model.ErrNone) {
			t.Fatalf("%v: acknowledged %v, outcome %+v", id, ok, o)
		}
		if ok {
			acked++
			if want := (ack{id: id, part: o.Partition, offset: o.Offset, at: o.At, digest: o.Digest, txn: o.Txn}); got != want {
				t.Errorf("%v: %+v, want %+v", id, got, want)
			}
		} else {
			failed++
		}
	}
	if a.acked != acked || a.failed != failed {
		t.Errorf("acked %d failed %d, want %d %d", a.acked, a.failed, acked, failed)
	}
	if a.copies(model.RecordID{App: 9, N: 9}) != 0 || a.txnCommitted(model.RecordID{App: 0, N: 2}) {
		t.Error("a record never seen has facts")
	}
	// The same facts, record by record in reverse, into a used table.
	var b recTable
	b.reset()
	apply(&b, facts[:len(facts)/2])
	b.reset()
	for k := len(ids) - 1; k >= 0; k-- {
		var mine []fact
		for _, f := range facts {
			if f.id == ids[k] {
				mine = append(mine, f)
			}
		}
		apply(&b, mine)
	}
	if !reflect.DeepEqual(a.pages, b.pages) || !maps.Equal(a.copiesOver, b.copiesOver) || !maps.Equal(a.digests, b.digests) || a.acked != b.acked {
		t.Error("the same facts in another order make another table")
	}
}
