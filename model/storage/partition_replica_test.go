package storage

import (
	"reflect"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

func testBatch(part int32, pid model.ProducerID, epoch int16, first, last int32, txn bool, at sim.Time) model.Batch {
	n := int(last-first) + 1
	if pid == model.NoProducerID {
		first, last = model.NoSequence, model.NoSequence
	}
	b := model.Batch{Partition: part, PID: pid, Epoch: epoch, FirstSeq: first, LastSeq: last, Transactional: txn, Records: make([]model.Record, n)}
	for i := range b.Records {
		b.Records[i].CreateTime = at
	}
	return b
}

// stateOf returns a comparable copy of every producer entry.
func stateOf(p *Partition) map[model.ProducerID]ProducerStateEntry {
	m := map[model.ProducerID]ProducerStateEntry{}
	for _, id := range p.ProducerIDs() {
		e := *p.Producer(id)
		e.Batches = append([]BatchMetadata{}, e.Batches...)
		m[id] = e
	}
	return m
}

func mustOK(t *testing.T, r model.AppendResult) model.AppendResult {
	t.Helper()
	if r.Err != model.ErrNone {
		t.Fatalf("append: %v (%s)", r.Err, r.Reason)
	}
	return r
}

// leaderLog builds a leader log with two producers, a transaction and its
// marker, and a non-idempotent batch.
func leaderLog(t *testing.T) *Partition {
	t.Helper()
	l := NewPartition(0, PartitionConfig{})
	mustOK(t, l.Append(1, testBatch(0, 7, 0, 0, 4, false, 1)))
	mustOK(t, l.Append(2, testBatch(0, 7, 0, 5, 9, false, 2)))
	mustOK(t, l.Append(3, testBatch(0, model.NoProducerID, model.NoEpoch, 0, 2, false, 3)))
	mustOK(t, l.Append(4, testBatch(0, 8, 3, 0, 0, true, 4)))
	mustOK(t, l.AppendMarker(5, 8, 3, 2, model.MarkerCommit))
	mustOK(t, l.Append(6, testBatch(0, 7, 1, 0, 1, false, 6)))
	return l
}

func TestAppendReplicaRebuildsLeaderState(t *testing.T) {
	l := leaderLog(t)
	f := NewPartition(0, PartitionConfig{})
	for _, e := range l.Log() {
		if err := f.AppendReplica(e); err != nil {
			t.Fatalf("AppendReplica(%d..%d): %v", e.FirstOffset, e.LastOffset, err)
		}
	}
	if f.LogEndOffset() != l.LogEndOffset() {
		t.Fatalf("follower LEO %d, leader %d", f.LogEndOffset(), l.LogEndOffset())
	}
	if got, want := stateOf(f), stateOf(l); !reflect.DeepEqual(got, want) {
		t.Fatalf("follower state\n%v\nleader state\n%v", got, want)
	}
	if d := f.StateDiff(10); d != "" {
		t.Fatalf("StateDiff: %s", d)
	}
	// The follower, now leader, recognises a retry of a replicated batch.
	r := f.Append(11, testBatch(0, 7, 1, 0, 1, false, 6))
	if !r.Duplicate || r.FirstOffset != 15 {
		t.Fatalf("retry on the new leader: %+v, want duplicate at 15", r)
	}
}

func TestAppendReplicaNoSequenceChecks(t *testing.T) {
	f := NewPartition(0, PartitionConfig{})
	entries := []model.LogEntry{
		{FirstOffset: 0, LastOffset: 0, Batch: testBatch(0, 9, 2, 5, 5, false, 1), CoordinatorEpoch: -1},
		// Gap in sequence, lower epoch, duplicate sequence: all accepted.
		{FirstOffset: 1, LastOffset: 1, Batch: testBatch(0, 9, 2, 9, 9, false, 2), CoordinatorEpoch: -1},
		{FirstOffset: 2, LastOffset: 2, Batch: testBatch(0, 9, 1, 0, 0, false, 3), CoordinatorEpoch: -1},
		{FirstOffset: 3, LastOffset: 3, Batch: testBatch(0, 9, 1, 0, 0, false, 4), CoordinatorEpoch: -1},
	}
	for _, e := range entries {
		if err := f.AppendReplica(e); err != nil {
			t.Fatalf("AppendReplica %d: %v", e.FirstOffset, err)
		}
	}
	e := f.Producer(9)
	if e.Epoch != 1 || len(e.Batches) != 2 || e.lastSeq() != 0 {
		t.Fatalf("state %+v", *e)
	}
	// Offsets must continue the log; malformed entries are refused.
	bad := []model.LogEntry{
		{FirstOffset: 5, LastOffset: 5, Batch: testBatch(0, 9, 1, 1, 1, false, 5)},
		{FirstOffset: 4, LastOffset: 5, Batch: testBatch(0, 9, 1, 1, 1, false, 5)},
		{FirstOffset: 4, LastOffset: 5, Marker: model.MarkerAbort, Batch: model.Batch{PID: 9, Epoch: 1}},
	}
	for i, b := range bad {
		if err := f.AppendReplica(b); err == nil {
			t.Errorf("bad entry %d accepted", i)
		}
	}
	if f.LogEndOffset() != 4 || len(f.Log()) != 4 {
		t.Fatalf("refused entries changed the log: LEO %d", f.LogEndOffset())
	}
}

func TestTruncateToRebuildsProducerState(t *testing.T) {
	l := leaderLog(t) // 0-4 pid7, 5-9 pid7, 10-12 none, 13 pid8 txn, 14 marker, 15-16 pid7 e1
	ref := NewPartition(0, PartitionConfig{})
	for _, e := range l.Log()[:4] {
		if err := ref.AppendReplica(e); err != nil {
			t.Fatal(err)
		}
	}
	if end := l.TruncateTo(20, 14); end != 14 {
		t.Fatalf("TruncateTo(14) = %d", end)
	}
	// pid 8's transaction is open again (its marker went), pid 7 back at
	// epoch 0 with both batches.
	if got, want := stateOf(l), stateOf(ref); !reflect.DeepEqual(got, want) {
		t.Fatalf("after truncation\n%v\nwant\n%v", got, want)
	}
	if e := l.Producer(8); e == nil || e.TxnFirstOffset != 13 {
		t.Fatalf("pid 8 should have its transaction open at 13: %+v", e)
	}
	// Inside a batch: the whole batch goes.
	if end := l.TruncateTo(20, 7); end != 5 {
		t.Fatalf("TruncateTo(7) = %d, want 5 (batch 5-9 removed)", end)
	}
	if l.Producer(8) != nil || l.Producer(7).lastSeq() != 4 {
		t.Fatalf("state after TruncateTo(7): %v", stateOf(l))
	}
	// At or above the end: nothing.
	if end := l.TruncateTo(20, 99); end != 5 {
		t.Fatalf("TruncateTo(99) = %d", end)
	}
	if d := l.StateDiff(20); d != "" {
		t.Fatalf("StateDiff: %s", d)
	}
	// Appends continue at the new end.
	if r := mustOK(t, l.Append(21, testBatch(0, 7, 0, 5, 9, false, 21))); r.FirstOffset != 5 || r.Duplicate {
		t.Fatalf("re-append: %+v", r)
	}
	if end := l.TruncateTo(22, 0); end != 0 || len(l.ProducerIDs()) != 0 {
		t.Fatalf("TruncateTo(0) = %d, producers %v", end, l.ProducerIDs())
	}
}

// TestTruncateToUsesSnapshot checks the rebuild from a snapshot below the
// truncation point: as in Kafka, only the snapshot's last batch plus the
// replayed batches come back, and a snapshot above the point is dropped.
func TestTruncateToUsesSnapshot(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	for i := int32(0); i < 4; i++ {
		mustOK(t, p.Append(1, testBatch(0, 7, 0, 2*i, 2*i+1, false, 1)))
	}
	p.Snapshot() // at 8: window 4 batches in memory, snapshot keeps the last
	mustOK(t, p.Append(2, testBatch(0, 7, 0, 8, 9, false, 2)))
	mustOK(t, p.Append(3, testBatch(0, 7, 0, 10, 11, false, 3)))
	p.TruncateTo(4, 10)
	if got := len(p.Producer(7).Batches); got != 2 {
		t.Fatalf("window after rebuild from snapshot at 8: %d batches, want 2 (snapshot's last + replayed)", got)
	}
	if s, ok := p.LastSnapshot(); !ok || s.Offset != 10 {
		t.Fatalf("rebuild should snapshot at the new end: %+v", s)
	}
	// Truncating below the snapshot drops it and replays from 0.
	p.TruncateTo(5, 4)
	if got := p.Producer(7); got == nil || len(got.Batches) != 2 || got.lastSeq() != 3 {
		t.Fatalf("after TruncateTo(4): %+v", got)
	}
}
