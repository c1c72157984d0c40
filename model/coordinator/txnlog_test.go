package coordinator

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// TestTxnLogCompaction: a long run of transitions leaves a log of about a
// record per id, not one per transition, and a replay of it gives what a
// replay of the whole history gives (the last record per id, a tombstone
// deleting).
func TestTxnLogCompaction(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	states := []model.TxnState{model.TxnEmpty, model.TxnOngoing, model.TxnPrepareCommit, model.TxnCompleteCommit, model.TxnPrepareAbort, model.TxnCompleteAbort, model.TxnDead}
	var l txnLog
	var pool model.Slab[int32]
	var history []TxnLogRecord
	for i := range 20_000 {
		m := &TxnMetadata{TransactionalID: fmt.Sprintf("t%d", rng.IntN(5)), ProducerID: model.ProducerID(rng.IntN(3)), ProducerEpoch: int16(i),
			State: states[rng.IntN(len(states))], Partitions: []int32{int32(rng.IntN(4))}, LastUpdate: sim.Time(i)}
		if l.append(m, &pool) {
			history = append(history, recordOf(m, slices.Clone(m.Partitions)))
		}
		if len(l.records) > 2*5+txnLogCompactMin+1 {
			t.Fatalf("after %d transitions the log holds %d records for %d ids", i+1, len(l.records), len(l.last))
		}
	}
	want := txnLog{records: history, last: map[string]int{}}
	for i, r := range history {
		want.last[r.TransactionalID] = i
	}
	got, exp := l.load(), want.load()
	if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(exp))) {
		t.Fatalf("ids %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(exp)))
	}
	for id, m := range exp {
		if g := got[id]; fmt.Sprint(*g) != fmt.Sprint(*m) {
			t.Errorf("%s: %+v, want %+v", id, *g, *m)
		}
	}
	for id, i := range l.last {
		if r := l.records[i]; r.TransactionalID != id || r.State != model.TxnDead && !r.sameAs(exp[id]) {
			t.Errorf("%s: last record %+v", id, r)
		}
	}
}
