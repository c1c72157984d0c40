package storage

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// marker is a step appending a marker for pid at epoch.
func marker(pid model.ProducerID, epoch int16, m model.MarkerType) step {
	return step{b: model.Batch{PID: pid, Epoch: epoch}, marker: m}
}

// plainData is a step appending a batch without a producer id.
func plainData(n int) step {
	return step{b: model.Batch{PID: model.NoProducerID, Epoch: model.NoEpoch, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Records: make([]model.Record, n)}}
}

// firstOffsets returns the entries' first offsets.
func firstOffsets(es []model.LogEntry) []int64 {
	out := []int64{}
	for _, e := range es {
		out = append(out, e.FirstOffset)
	}
	return out
}

func wantOffsets(t *testing.T, what string, got []model.LogEntry, want ...int64) {
	t.Helper()
	if want == nil {
		want = []int64{}
	}
	if g := firstOffsets(got); !slices.Equal(g, want) {
		t.Errorf("%s: read_committed batches at %v, want %v", what, g, want)
	}
}

// TestLSOInterleaved: one open transaction pins the LSO at its first
// offset and hides everything after it, other producers' committed data
// included (UnifiedLog.lastStableOffset); its ABORT releases the LSO and
// hides only its own producer's batches, interleaved as they are (the
// consumer's CompletedFetch filter).
func TestLSOInterleaved(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	run(t, p, []step{
		plainData(1),                     // 0
		txnData(1, 0, 0, 1),              // 1..2 pid 1 opens
		txnData(2, 0, 0, 0),              // 3    pid 2 opens
		plainData(2),                     // 4..5
		txnData(1, 0, 2, 2),              // 6
		txnData(2, 0, 1, 1),              // 7
		marker(2, 0, model.MarkerCommit), // 8
	})
	if got := p.LastStableOffset(); got != 1 {
		t.Fatalf("LSO %d with pid 1 open at 1, want 1", got)
	}
	if got := p.HighWatermark(); got != 9 {
		t.Fatalf("HW %d, want the log end 9", got)
	}
	if got := p.OngoingTxns(); !slices.Equal(got, []OngoingTxn{{PID: 1, FirstOffset: 1}}) {
		t.Fatalf("ongoing %v", got)
	}
	wantOffsets(t, "pid 1 open", p.ReadCommitted(0), 0)
	run(t, p, []step{marker(1, 0, model.MarkerAbort)}) // 9
	if got := p.LastStableOffset(); got != 10 {
		t.Fatalf("LSO %d after the abort, want the log end 10", got)
	}
	wantOffsets(t, "pid 1 aborted", p.ReadCommitted(0), 0, 3, 4, 7)
	if got := p.AbortedTxns(); !slices.Equal(got, []AbortedTxn{{PID: 1, FirstOffset: 1, LastOffset: 9, LastStableOffset: 10}}) {
		t.Errorf("aborted index %v", got)
	}
	if len(p.OngoingTxns()) != 0 {
		t.Errorf("ongoing %v after both markers", p.OngoingTxns())
	}
}

// TestAbortedTxnIndex: an ABORT adds an index entry only when it closes
// an open transaction, with the LSO it leaves (the oldest transaction of
// another producer id still open, ProducerStateManager.lastStableOffset);
// a COMMIT adds none.
func TestAbortedTxnIndex(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	run(t, p, []step{
		marker(5, 0, model.MarkerAbort),  // 0: nothing open for pid 5
		txnData(1, 0, 0, 0),              // 1
		txnData(2, 0, 0, 0),              // 2
		marker(2, 0, model.MarkerAbort),  // 3: pid 1 still open at 1
		marker(1, 0, model.MarkerCommit), // 4
		txnData(1, 0, 1, 1),              // 5
		marker(1, 0, model.MarkerAbort),  // 6
	})
	want := []AbortedTxn{{PID: 2, FirstOffset: 2, LastOffset: 3, LastStableOffset: 1}, {PID: 1, FirstOffset: 5, LastOffset: 6, LastStableOffset: 7}}
	if got := p.AbortedTxns(); !slices.Equal(got, want) {
		t.Errorf("aborted index %v, want %v", got, want)
	}
	wantOffsets(t, "abort, commit, abort", p.ReadCommitted(0), 1)
}

// TestReadCommittedSamePID: the same producer id aborts, commits, then
// aborts again: the consumer's set of aborted producer ids takes the pid
// in before each aborted transaction and lets it out at its ABORT, so the
// committed transaction between them is read.
func TestReadCommittedSamePID(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	run(t, p, []step{
		txnData(1, 0, 0, 1),              // 0..1
		marker(1, 0, model.MarkerAbort),  // 2
		txnData(1, 0, 2, 2),              // 3
		txnData(1, 0, 3, 3),              // 4
		marker(1, 0, model.MarkerCommit), // 5
		txnData(1, 0, 4, 4),              // 6
		marker(1, 0, model.MarkerAbort),  // 7
		plainData(1),                     // 8
	})
	wantOffsets(t, "from 0", p.ReadCommitted(0), 3, 4, 8)
	// From the middle of the first aborted transaction: its entry in the
	// index still applies (LastOffset >= from).
	wantOffsets(t, "from 1", p.ReadCommitted(1), 3, 4, 8)
	wantOffsets(t, "from 4", p.ReadCommitted(4), 4, 8)
	wantOffsets(t, "from 7", p.ReadCommitted(7), 8)
	wantOffsets(t, "from the end", p.ReadCommitted(9))
}

// TestReadCommittedCommitAfterLSO: a committed transaction is read only
// once the LSO passes it: pid 2 commits while pid 1's transaction, opened
// before it, is open.
func TestReadCommittedCommitAfterLSO(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	run(t, p, []step{
		txnData(1, 0, 0, 0),              // 0
		txnData(2, 0, 0, 0),              // 1
		marker(2, 0, model.MarkerCommit), // 2
	})
	wantOffsets(t, "pid 1 open", p.ReadCommitted(0))
	run(t, p, []step{marker(1, 0, model.MarkerCommit)}) // 3
	wantOffsets(t, "both committed", p.ReadCommitted(0), 0, 1)
}

// TestLSORestart: a restart rebuilds the open transactions (from the
// producer state) and the aborted-transaction index above the snapshot it
// loads, with or without a periodic snapshot in the middle of a
// transaction, clean or not; the LSO and the read_committed view do not
// change.
func TestLSORestart(t *testing.T) {
	steps := []step{
		txnData(1, 0, 0, 0),              // 0
		txnData(2, 0, 0, 0),              // 1
		plainData(1),                     // 2
		marker(1, 0, model.MarkerAbort),  // 3
		txnData(3, 0, 0, 1),              // 4..5
		txnData(1, 0, 1, 1),              // 6
		marker(1, 0, model.MarkerAbort),  // 7
		marker(2, 0, model.MarkerCommit), // 8
		txnData(2, 0, 1, 1),              // 9
		marker(2, 0, model.MarkerAbort),  // 10
	}
	for _, every := range []int{0, 1, 2, 3, 5} {
		for _, clean := range []bool{false, true} {
			p := NewPartition(0, PartitionConfig{SnapshotEvery: every})
			run(t, p, steps)
			lso, idx, rc, ongoing := p.LastStableOffset(), p.AbortedTxns(), p.ReadCommitted(0), p.OngoingTxns()
			if lso != 4 || len(idx) != 3 {
				t.Fatalf("every=%d: LSO %d, index %v before the restart", every, lso, idx)
			}
			p.Restart(100, clean)
			if got := p.LastStableOffset(); got != lso {
				t.Errorf("every=%d clean=%v: LSO %d after the restart, want %d", every, clean, got, lso)
			}
			if got := p.AbortedTxns(); !slices.Equal(got, idx) {
				t.Errorf("every=%d clean=%v: index %v after the restart, want %v", every, clean, got, idx)
			}
			if got := p.OngoingTxns(); !slices.Equal(got, ongoing) {
				t.Errorf("every=%d clean=%v: ongoing %v after the restart, want %v", every, clean, got, ongoing)
			}
			if got := firstOffsets(p.ReadCommitted(0)); !slices.Equal(got, firstOffsets(rc)) {
				t.Errorf("every=%d clean=%v: read_committed %v after the restart, want %v", every, clean, got, firstOffsets(rc))
			}
		}
	}
}

// TestLSORebuildFromScratch: an index lost above the snapshot (here: all
// of it, no snapshot) is found again by an unclean restart.
func TestLSORebuildFromScratch(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	run(t, p, []step{txnData(1, 0, 0, 0), txnData(2, 0, 0, 0), marker(1, 0, model.MarkerAbort), marker(2, 0, model.MarkerAbort)})
	want := p.AbortedTxns()
	p.aborted = nil
	p.Restart(1, false)
	if got := p.AbortedTxns(); !slices.Equal(got, want) || len(want) != 2 {
		t.Errorf("rebuilt index %v, want %v", got, want)
	}
}

// TestReadCommittedReference compares ReadCommitted with a direct reading
// of the rules on random logs of three transactional producers and plain
// data: below the LSO, a transactional batch is read iff its producer's
// next marker after it is a COMMIT; the LSO is the first offset of the
// oldest transaction with no marker yet.
func TestReadCommittedReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	for trial := range 300 {
		p := NewPartition(0, PartitionConfig{})
		seq := map[model.ProducerID]int32{}
		var steps []step
		for range 1 + rng.IntN(25) {
			pid := model.ProducerID(1 + rng.IntN(3))
			switch rng.IntN(4) {
			case 0:
				steps = append(steps, plainData(1+rng.IntN(2)))
			case 1:
				steps = append(steps, marker(pid, 0, model.MarkerType(1+rng.IntN(2))))
			default:
				n := int32(1 + rng.IntN(2))
				steps = append(steps, txnData(pid, 0, seq[pid], seq[pid]+n-1))
				seq[pid] += n
			}
		}
		run(t, p, steps)
		log := p.Log()
		lso := p.LogEndOffset()
		for i := range log {
			e := &log[i]
			if e.Marker != model.MarkerNone || !e.Batch.Transactional {
				continue
			}
			ended := false
			for j := i + 1; j < len(log); j++ {
				if log[j].Marker != model.MarkerNone && log[j].Batch.PID == e.Batch.PID {
					ended = true
					break
				}
			}
			if !ended {
				lso = min(lso, e.FirstOffset)
			}
		}
		if got := p.LastStableOffset(); got != lso {
			t.Fatalf("trial %d: LSO %d, reference %d", trial, got, lso)
		}
		for _, from := range []int64{0, p.LogEndOffset() / 2} {
			var want []int64
			for i := range log {
				e := &log[i]
				if e.Marker != model.MarkerNone || e.LastOffset < from || e.FirstOffset >= lso {
					continue
				}
				if e.Batch.Transactional {
					commit := false
					for j := i + 1; j < len(log); j++ {
						if log[j].Marker != model.MarkerNone && log[j].Batch.PID == e.Batch.PID {
							commit = log[j].Marker == model.MarkerCommit
							break
						}
					}
					if !commit {
						continue
					}
				}
				want = append(want, e.FirstOffset)
			}
			wantOffsets(t, "random log", p.ReadCommitted(from), want...)
		}
	}
}

// TestLSOReplicated: a replicated partition's high watermark is its
// ReplicaLog's, and a transaction whose marker is not yet below it stays
// unstable (ProducerStateManager.unreplicatedTxns), so the LSO is
// min(HW, first unstable offset). A truncation that removes a marker
// removes its aborted-index entry and reopens the transaction.
func TestLSOReplicated(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	r := NewReplicaLog(p)
	run(t, p, []step{
		txnData(1, 0, 0, 1),              // 0..1 pid 1 opens
		marker(1, 0, model.MarkerCommit), // 2
		plainData(1),                     // 3
	})
	if p.HighWatermark() != 0 || p.LastStableOffset() != 0 {
		t.Fatalf("HW %d LSO %d before any replica fetched, want 0 and 0", p.HighWatermark(), p.LastStableOffset())
	}
	r.MaybeIncrementHighWatermark(2)
	if first, ok := p.FirstUnstableOffset(); !ok || first != 0 || p.LastStableOffset() != 0 {
		t.Fatalf("HW 2, commit at 2: first unstable %d %v, LSO %d, want 0", first, ok, p.LastStableOffset())
	}
	wantOffsets(t, "commit not below the HW", p.ReadCommitted(0))
	r.MaybeIncrementHighWatermark(3)
	if _, ok := p.FirstUnstableOffset(); ok || p.LastStableOffset() != 3 {
		t.Fatalf("HW 3: LSO %d, want 3 with nothing unstable", p.LastStableOffset())
	}
	wantOffsets(t, "commit below the HW", p.ReadCommitted(0), 0)
	run(t, p, []step{
		txnData(2, 0, 0, 0),             // 4 pid 2 opens
		marker(2, 0, model.MarkerAbort), // 5
	})
	r.MaybeIncrementHighWatermark(6)
	if got := p.AbortedTxns(); len(got) != 1 || p.LastStableOffset() != 6 {
		t.Fatalf("after the abort: index %v LSO %d", got, p.LastStableOffset())
	}
	r.TruncateTo(0, 5)
	if got := p.AbortedTxns(); len(got) != 0 {
		t.Errorf("index %v after truncating the ABORT marker away", got)
	}
	if first, ok := p.FirstUnstableOffset(); !ok || first != 4 || p.HighWatermark() != 5 || p.LastStableOffset() != 4 {
		t.Errorf("after truncation to 5: first unstable %d %v, HW %d, LSO %d; want 4, 5, 4", first, ok, p.HighWatermark(), p.LastStableOffset())
	}
}

// TestPreloaded: a replica's log written before the run is committed in
// leader epoch 0: the high watermark and the LSO at the log end (the
// transaction's marker below it), epoch 0 from offset 0, and the first
// leader's BeginEpoch(0) at the log end keeps that start.
func TestPreloaded(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	r := NewReplicaLog(p)
	r.Preloaded() // an empty log: nothing to commit
	if r.HighWatermark() != 0 || len(r.Epochs.Entries()) != 0 {
		t.Fatalf("empty: HW %d, epochs %v, want 0 and none", r.HighWatermark(), r.Epochs.Entries())
	}
	run(t, p, []step{
		txnData(1, 0, 0, 1),             // 0..1 pid 1 opens
		marker(1, 0, model.MarkerAbort), // 2
		plainData(1),                    // 3
	})
	r.Preloaded()
	r.BeginEpoch(0)
	if r.HighWatermark() != 4 || p.LastStableOffset() != 4 {
		t.Fatalf("HW %d LSO %d, want 4 and 4", r.HighWatermark(), p.LastStableOffset())
	}
	if e := r.Epochs.Entries(); len(e) != 1 || e[0].Epoch != 0 || e[0].StartOffset != 0 {
		t.Fatalf("epochs %v, want epoch 0 from offset 0", e)
	}
}
