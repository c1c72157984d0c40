package check

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/storage"
	"github.com/idemsim/idemsim/sim"
)

// Node ids of the transaction tests' world: two producer instances, a
// broker and the coordinator.
const (
	instP1, instP2, nodeB1, nodeC1 = 0, 1, 2, 3
)

var txnNames = Config{Names: []string{"p1", "p2", "b1", "c1"}}

// tb is a transactional batch of pid on partition p for transaction ord
// of its instance, with records a0:ns.
func tb(p int32, pid model.ProducerID, ord int32, first int32, ns ...int64) model.Batch {
	b := txn(p, pid, first, ns...)
	b.Txn = ord
	return b
}

// appendFrom observes b from instance inst (request reqNo on its link to
// b1) appended at the partition's next offset.
func (r *run) appendFrom(at sim.Time, inst int32, reqNo int64, b model.Batch) {
	first := r.offset(b.Partition, len(b.Records))
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Node, o.Peer, o.N, o.Batch = model.ObsVerdict, at, nodeB1, inst, reqNo, b
		o.Result = model.AppendResult{FirstOffset: first, LastOffset: first + int64(len(b.Records)) - 1}
	})
}

// sentProduce observes instance inst putting produce request reqNo on the
// wire to b1.
func (r *run) sentProduce(at sim.Time, inst int32, reqNo int64) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Node, o.Peer, o.N, o.Msg = model.ObsSent, at, inst, nodeB1, reqNo, &model.ProduceRequest{}
	})
}

// sentEndTxn observes instance inst putting an EndTxn for its
// transaction ord on the wire.
func (r *run) sentEndTxn(at sim.Time, inst, ord int32, commit bool) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Node, o.Peer, o.Msg = model.ObsSent, at, inst, nodeC1, &model.EndTxnRequest{Commit: commit, Txn: ord}
	})
}

// txnOutcome observes instance inst telling its application that its
// transaction ord ended ("committed", "aborted" or "failed") with the
// acknowledged records a0:ns.
func (r *run) txnOutcome(at sim.Time, inst, ord int32, verb string, ns ...int64) {
	var ids []model.RecordID
	for _, n := range ns {
		ids = append(ids, model.RecordID{N: n})
	}
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Node, o.Txn, o.Text, o.Flag, o.IDs = model.ObsTxnOutcome, at, inst, ord, verb, verb == "committed", ids
		o.N = int64(len(ids))
	})
}

// coord observes the coordinator installing state st for transactional id
// id: pid at epoch, partitions parts.
func (r *run) coord(at sim.Time, id string, pid model.ProducerID, epoch int16, st model.TxnState, parts ...int32) {
	r.emit(func(o *model.Obs) {
		o.Kind, o.At, o.Node, o.Text, o.PID, o.Epoch, o.N, o.Parts = model.ObsTxnState, at, nodeC1, id, pid, epoch, int64(st), parts
	})
}

func markerAt(r *run, at sim.Time, p int32, pid model.ProducerID, m model.MarkerType) {
	r.marker(at, p, pid, m)
}

// txnViolations ends the run and returns its INV-TXN, LIVE-LSO and
// INV-FENCE violations, in report order.
func txnViolations(r *run, at sim.Time) []Violation {
	_, vs := r.end(at, 0, "drained", 0)
	var out []Violation
	for _, v := range vs {
		if v.Invariant == InvTxn || v.Invariant == LiveLSO || v.Invariant == InvFence {
			out = append(out, v)
		}
	}
	return out
}

// TestTxnHolds: interleaved producers on two partitions; p1 aborts its
// first transaction and commits its second, p2 commits; a committed
// transaction of p2 becomes visible only once p1's earlier transaction on
// the partition ends. Nothing is reported.
func TestTxnHolds(t *testing.T) {
	r := newRun(txnNames)
	r.coord(1, "t1", 7, 0, model.TxnOngoing, 0, 1)
	r.coord(1, "t2", 8, 0, model.TxnOngoing, 0)
	r.appendFrom(2, instP1, 1, tb(0, 7, 1, 0, 1))   // p0 0
	r.appendFrom(2, instP2, 1, tb(0, 8, 1, 0, 10))  // p0 1
	r.appendFrom(3, instP1, 2, tb(1, 7, 1, 1, 2))   // p1 0
	r.appendFrom(3, instP2, 2, tb(0, 8, 1, 1, 11))  // p0 2
	markerAt(r, 4, 0, 8, model.MarkerCommit)        // p0 3: p2's commit, hidden behind p1's open transaction
	r.txnOutcome(4, instP2, 1, "committed", 10, 11) // ... reported before it is visible
	markerAt(r, 5, 0, 7, model.MarkerAbort)         // p0 4
	markerAt(r, 5, 1, 7, model.MarkerAbort)         // p1 1
	r.txnOutcome(5, instP1, 1, "aborted", 1, 2)     //
	r.appendFrom(6, instP1, 3, tb(0, 7, 2, 2, 3))   // p0 5
	r.appendFrom(6, instP1, 4, tb(1, 7, 2, 3, 4))   // p1 2
	markerAt(r, 7, 0, 7, model.MarkerCommit)        // p0 6
	markerAt(r, 7, 1, 7, model.MarkerCommit)        // p1 3
	r.txnOutcome(7, instP1, 2, "committed", 3, 4)   //
	r.coord(7, "t1", 7, 0, model.TxnCompleteCommit) //
	r.coord(7, "t2", 8, 0, model.TxnCompleteCommit) //
	wantViolations(t, txnViolations(r, 9), nil)
}

// TestTxnCommittedAboveLSO: a transaction reported committed whose records
// wait above an LSO pinned by another producer's open transaction is no
// INV-TXN violation; while the coordinator holds that transaction Ongoing
// with the partition it is no LIVE-LSO violation either; once the
// coordinator has completed it (a hanging transaction, -bug Z19) LIVE-LSO
// reports the stuck LSO and the committed records waiting above it.
func TestTxnCommittedAboveLSO(t *testing.T) {
	for _, tc := range []struct {
		name  string
		st    model.TxnState
		parts []int32
		want  []Violation
	}{
		{"ongoing", model.TxnOngoing, []int32{0}, nil},
		{"complete", model.TxnCompleteAbort, nil, []Violation{{LiveLSO, "p0: the LSO is stuck at offset 0, 4 below the high watermark 4, by the open transaction of pid 7 (p1 transaction 1) that no coordinator will mark: the coordinator holds t1 (pid 7, epoch 0) in CompleteAbort with partitions []; 2 records reported committed wait above it", 9}}},
	} {
		r := newRun(txnNames)
		r.coord(1, "t1", 7, 0, model.TxnOngoing, 0)
		r.coord(1, "t2", 8, 0, model.TxnOngoing, 0)
		r.appendFrom(2, instP1, 1, tb(0, 7, 1, 0, 1))
		r.appendFrom(2, instP2, 1, tb(0, 8, 1, 0, 10, 11))
		markerAt(r, 4, 0, 8, model.MarkerCommit)
		r.txnOutcome(4, instP2, 1, "committed", 10, 11)
		r.coord(4, "t2", 8, 0, model.TxnCompleteCommit)
		r.coord(5, "t1", 7, 0, tc.st, tc.parts...)
		wantViolations(t, txnViolations(r, 9), tc.want)
	}
}

// TestTxnAbortedRead: a COMMIT makes visible a transaction its
// application was told aborted, or failed without asking to commit; one
// that failed after its EndTxn(COMMIT) went on the wire may have
// committed.
func TestTxnAbortedRead(t *testing.T) {
	for _, tc := range []struct {
		verb        string
		commitAsked bool
		want        []Violation
	}{
		{"aborted", false, []Violation{{InvTxn, "aborted read: p1 transaction 1 was reported aborted, but 3 of its records are visible to read_committed: a0:1 visible at p0 offset 0 (COMMIT at offset 3) first", 6}}},
		{"failed", false, []Violation{{InvTxn, "aborted read: p1 transaction 1 was reported failed without asking to commit, but 3 of its records are visible to read_committed: a0:1 visible at p0 offset 0 (COMMIT at offset 3) first", 6}}},
		{"failed", true, nil},
	} {
		r := newRun(txnNames)
		r.appendFrom(2, instP1, 1, tb(0, 7, 1, 0, 1, 2))
		r.appendFrom(3, instP1, 2, tb(0, 7, 1, 2, 3))
		if tc.commitAsked {
			r.sentEndTxn(3, instP1, 1, true)
		}
		r.txnOutcome(4, instP1, 1, tc.verb) // nothing acknowledged
		markerAt(r, 6, 0, 7, model.MarkerCommit)
		wantViolations(t, txnViolations(r, 9), tc.want)
	}
}

// TestTxnLostWrite: records of a transaction reported committed that an
// ABORT discarded, or that are in no log, are lost; a copy visible
// elsewhere saves a record.
func TestTxnLostWrite(t *testing.T) {
	r := newRun(txnNames)
	r.appendFrom(2, instP1, 1, tb(0, 7, 1, 0, 1, 2)) // p0 0..1
	r.appendFrom(2, instP1, 2, tb(1, 7, 1, 0, 3))    // p1 0
	markerAt(r, 5, 0, 7, model.MarkerAbort)          // p0 2
	r.appendFrom(6, instP2, 1, tb(1, 8, 1, 0, 2))    // p1 1: another copy of a0:2
	markerAt(r, 7, 1, 8, model.MarkerCommit)         // p1 2 (p1 0 stays open)
	r.appendFrom(6, instP2, 2, plain(2, 0, 4))       // p2 0
	r.txnOutcome(4, instP1, 1, "committed", 1, 2, 3, 9)
	r.txnOutcome(8, instP2, 1, "committed", 2)
	// a0:2's other copy, on p1, is committed but above p1's LSO (pid 7
	// is open at 0 there), and a0:3 is open: both wait, and are not lost.
	wantViolations(t, txnViolations(r, 9), []Violation{
		{InvTxn, "lost committed write: p1 transaction 1 was reported committed, but 2 of its 4 acknowledged records are not visible to read_committed: a0:1 aborted at p0 offset 0 (ABORT at offset 2) first", 5},
	})
}

// TestTxnLostNotInLog: a committed transaction's acknowledged record that
// no log holds is lost, at the outcome's time.
func TestTxnLostNotInLog(t *testing.T) {
	r := newRun(txnNames)
	r.appendFrom(2, instP1, 1, tb(0, 7, 1, 0, 1))
	markerAt(r, 3, 0, 7, model.MarkerCommit)
	r.txnOutcome(4, instP1, 1, "committed", 1, 5)
	wantViolations(t, txnViolations(r, 9), []Violation{
		{InvTxn, "lost committed write: p1 transaction 1 was reported committed, but 1 of its 2 acknowledged records are not visible to read_committed: a0:5 is in no log first", 4},
	})
}

// TestTxnTornPartitions: one transaction's partitions decided differently
// (a stale ABORT reaching one of them, as in KAFKA-17754).
func TestTxnTornPartitions(t *testing.T) {
	r := newRun(txnNames)
	r.appendFrom(2, instP1, 1, tb(0, 7, 1, 0, 1))
	r.appendFrom(2, instP1, 2, tb(1, 7, 1, 0, 2, 3))
	markerAt(r, 4, 1, 7, model.MarkerAbort)
	markerAt(r, 5, 0, 7, model.MarkerCommit)
	r.sentEndTxn(3, instP1, 1, true)
	r.txnOutcome(6, instP1, 1, "failed")
	wantViolations(t, txnViolations(r, 9), []Violation{
		{InvTxn, "torn transaction: p1 transaction 1 has 1 records visible to read_committed and 2 aborted: a0:1 visible at p0 offset 0 (COMMIT at offset 1), a0:2 aborted at p1 offset 0 (ABORT at offset 2)", 5},
	})
}

// TestTxnKafka17754: KAFKA-17754's delayed COMMIT on one partition under
// transaction version 1.
// Transaction 1 commits; transaction 2's first batch is appended; the
// delayed EndTxn of transaction 1 commits it; its second batch opens a
// new transaction on the partition, which the application's abort
// aborts. Transaction 2 is torn and an aborted read, its second batch
// arrived after a marker closed its transaction (INV-FENCE), and the
// COMMIT decided nothing of transaction 1's on this partition (so no
// mixed commit). Under transaction version 2 the stale EndTxn is fenced:
// the first COMMIT and last ABORT alone, nothing reported.
func TestTxnKafka17754(t *testing.T) {
	for _, tv1 := range []bool{true, false} {
		r := newRun(txnNames)
		r.appendFrom(1, instP1, 1, tb(0, 7, 1, 0, 1))
		markerAt(r, 2, 0, 7, model.MarkerCommit)      // offset 1
		r.txnOutcome(2, instP1, 1, "committed", 1)    //
		r.appendFrom(3, instP1, 2, tb(0, 7, 2, 1, 2)) // offset 2
		if tv1 {
			markerAt(r, 4, 0, 7, model.MarkerCommit) // offset 3: the delayed EndTxn of transaction 1
		}
		r.appendFrom(5, instP1, 3, tb(0, 7, 2, 2, 3)) // offset 4 (3 under TV2)
		markerAt(r, 6, 0, 7, model.MarkerAbort)       //
		r.txnOutcome(6, instP1, 2, "aborted", 2, 3)   //
		want := []Violation(nil)
		if tv1 {
			want = []Violation{
				{InvFence, "p0 pid=7 e=0 seq=2..2 txn n=1 [a0:3] of p1 transaction 2 appended at offset 4 after the marker at offset 3 closed that transaction or a later one of its instance", 5},
				{InvTxn, "aborted read: p1 transaction 2 was reported aborted, but 1 of its records are visible to read_committed: a0:2 visible at p0 offset 2 (COMMIT at offset 3) first", 6},
				{InvTxn, "torn transaction: p1 transaction 2 has 1 records visible to read_committed and 1 aborted: a0:2 visible at p0 offset 2 (COMMIT at offset 3), a0:3 aborted at p0 offset 4 (ABORT at offset 5)", 6},
			}
		}
		wantViolations(t, txnViolations(r, 9), want)
	}
}

// TestTxnMixedCommit: a late batch of transaction 1 (a delayed Produce)
// joins transaction 2 on a partition, and transaction 2's COMMIT decides
// both.
// Transaction 1 was aborted: an aborted read, too.
func TestTxnMixedCommit(t *testing.T) {
	r := newRun(txnNames)
	r.appendFrom(1, instP1, 1, tb(1, 7, 1, 0, 1)) // p1 0
	markerAt(r, 2, 1, 7, model.MarkerAbort)       // p1 1
	r.txnOutcome(2, instP1, 1, "aborted", 1)
	r.appendFrom(3, instP1, 3, tb(0, 7, 2, 0, 3)) // p0 0
	r.appendFrom(4, instP1, 2, tb(0, 7, 1, 1, 2)) // p0 1: transaction 1's delayed batch
	markerAt(r, 5, 0, 7, model.MarkerCommit)      // p0 2
	r.txnOutcome(5, instP1, 2, "committed", 3)
	wantViolations(t, txnViolations(r, 9), []Violation{
		{InvTxn, "aborted read: p1 transaction 1 was reported aborted, but 1 of its records are visible to read_committed: a0:2 visible at p0 offset 1 (COMMIT at offset 2) first", 5},
		{InvTxn, "torn transaction: p1 transaction 1 has 1 records visible to read_committed and 1 aborted: a0:2 visible at p0 offset 1 (COMMIT at offset 2), a0:1 aborted at p1 offset 0 (ABORT at offset 1)", 5},
		{InvTxn, "mixed commit: the COMMIT for pid 7 at p0 offset 2 decided batches of 2 transactions: p1 transaction 1 (first at offset 1), p1 transaction 2 (first at offset 0)", 5},
	})
}

// TestTxnIncarnations: a restarted instance numbers its transactions from
// 1 again; its first incarnation's transaction 1 (aborted) and its second
// incarnation's (committed) are told apart, a batch sent before the
// restart and appended after it included.
func TestTxnIncarnations(t *testing.T) {
	r := newRun(txnNames)
	r.sentProduce(1, instP1, 1)
	r.appendFrom(1, instP1, 1, tb(0, 7, 1, 0, 1)) // p0 0
	r.sentProduce(1, instP1, 2)                   // delayed
	markerAt(r, 2, 0, 7, model.MarkerAbort)       // p0 1
	r.txnOutcome(2, instP1, 1, "aborted", 1)
	r.crash(3, instP1)
	r.restart(4, instP1)
	r.sentProduce(5, instP1, 3)
	r.appendFrom(5, instP1, 3, tb(0, 7, 1, 0, 5)) // p0 2: incarnation 1's transaction 1
	r.appendFrom(6, instP1, 2, tb(0, 7, 1, 1, 2)) // p0 3: incarnation 0's, late
	markerAt(r, 7, 0, 7, model.MarkerCommit)      // p0 4
	r.txnOutcome(7, instP1, 1, "committed", 5)
	wantViolations(t, txnViolations(r, 9), []Violation{
		{InvFence, "p0 pid=7 e=0 seq=1..1 txn n=1 [a0:2] of p1 transaction 1 appended at offset 3 after the marker at offset 1 closed that transaction or a later one of its instance", 6},
		{InvTxn, "aborted read: p1 transaction 1 was reported aborted, but 1 of its records are visible to read_committed: a0:2 visible at p0 offset 3 (COMMIT at offset 4) first", 7},
		{InvTxn, "torn transaction: p1 transaction 1 has 1 records visible to read_committed and 1 aborted: a0:2 visible at p0 offset 3 (COMMIT at offset 4), a0:1 aborted at p0 offset 0 (ABORT at offset 1)", 7},
		{InvTxn, "mixed commit: the COMMIT for pid 7 at p0 offset 4 decided batches of 2 transactions: p1 transaction 1 (first at offset 3), p1 transaction 1 (after restart 1) (first at offset 2)", 7},
	})
}

// TestLiveLSO: the open transaction pinning a partition's LSO is hanging
// when the coordinator does not know its pid, or holds it in no open
// transaction with the partition; not when it holds it Ongoing or
// Prepare* with the partition, and never judged without coordinator
// states.
func TestLiveLSO(t *testing.T) {
	const stuck = "p1: the LSO is stuck at offset 2, 1 below the high watermark 3, by the open transaction of pid 7 (p1 transaction 2) that no coordinator will mark: "
	for _, tc := range []struct {
		name  string
		coord func(r *run)
		want  string
	}{
		{"no coordinator states", func(r *run) {}, ""},
		{"unknown pid", func(r *run) { r.coord(1, "t2", 8, 0, model.TxnOngoing, 1) }, "pid 7 is unknown to the coordinator"},
		{"ongoing with the partition", func(r *run) { r.coord(1, "t1", 7, 1, model.TxnOngoing, 0, 1) }, ""},
		{"prepare commit", func(r *run) { r.coord(1, "t1", 7, 0, model.TxnPrepareCommit, 1) }, ""},
		{"ongoing without the partition", func(r *run) { r.coord(1, "t1", 7, 0, model.TxnOngoing, 0, 2) }, "the coordinator holds t1 (pid 7, epoch 0) in Ongoing with partitions [p0 p2]"},
		{"complete", func(r *run) {
			r.coord(1, "t1", 7, 0, model.TxnOngoing, 1)
			r.coord(2, "t1", 7, 0, model.TxnCompleteCommit)
		}, "the coordinator holds t1 (pid 7, epoch 0) in CompleteCommit with partitions []"},
	} {
		r := newRun(txnNames)
		r.appendFrom(1, instP1, 1, tb(1, 7, 1, 0, 1)) // p1 0
		markerAt(r, 1, 1, 7, model.MarkerCommit)      // p1 1
		r.appendFrom(2, instP1, 2, tb(1, 7, 2, 1, 2)) // p1 2: opens
		tc.coord(r)
		var want []Violation
		if tc.want != "" {
			want = []Violation{{LiveLSO, stuck + tc.want + "; 0 records reported committed wait above it", 9}}
		}
		t.Run(tc.name, func(t *testing.T) { wantViolations(t, txnViolations(r, 9), want) })
	}
}

// TestReadCommittedMatchesPartition: the checker's read_committed view of
// a log equals what storage.Partition.ReadCommitted returns for it, on
// random logs of three transactional producers and plain data, and its
// LSO is the partition's.
func TestReadCommittedMatchesPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 300 {
		p := storage.NewPartition(0, storage.PartitionConfig{})
		seq := map[model.ProducerID]int32{}
		for range 1 + rng.IntN(30) {
			pid := model.ProducerID(1 + rng.IntN(3))
			var res model.AppendResult
			switch rng.IntN(4) {
			case 0:
				res = p.Append(0, plain(0, 0, int64(rng.IntN(9))))
			case 1:
				res = p.AppendMarker(0, pid, 0, 0, model.MarkerType(1+rng.IntN(2)))
			default:
				b := txn(0, pid, seq[pid], 1)
				if rng.IntN(2) == 0 {
					b = txn(0, pid, seq[pid], 1, 2)
				}
				seq[pid] += int32(len(b.Records))
				res = p.Append(0, b)
			}
			if res.Err != model.ErrNone {
				t.Fatalf("trial %d: append: %v", trial, res.Err)
			}
		}
		log := p.Log()
		v := readCommitted(log)
		if v.lso != p.LastStableOffset() || v.leo != p.LogEndOffset() {
			t.Fatalf("trial %d: LSO %d, end %d; partition: %d, %d", trial, v.lso, v.leo, p.LastStableOffset(), p.LogEndOffset())
		}
		var got, want []int64
		for i := range log {
			if v.fate[i] == fateVisible {
				got = append(got, log[i].FirstOffset)
			}
		}
		for _, e := range p.ReadCommitted(0) {
			want = append(want, e.FirstOffset)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: visible %v, partition reads %v", trial, got, want)
		}
	}
}

// TestTxnStaleEndTxn: the EndTxn of p1's transaction 1, late, reaches the
// coordinator after p1's transaction 2 added its partition: it moves the
// coordinator to PrepareCommit, deciding transaction 2 (KAFKA-17754),
// although transaction 2 holds no record yet. The same EndTxn while the
// coordinator is between transactions (a retry answered from
// CompleteCommit, no Prepare*) and the current transaction's own EndTxn
// are no violation.
func TestTxnStaleEndTxn(t *testing.T) {
	endTxn := func(r *run, at sim.Time, ord int32) {
		r.emit(func(o *model.Obs) {
			o.Kind, o.At, o.Node, o.Peer = model.ObsTxnOp, at, nodeC1, instP1
			o.Msg = &model.EndTxnRequest{TransactionalID: "t1", PID: 7, Commit: true, Txn: ord}
		})
	}
	addParts := func(r *run, at sim.Time, ord int32) {
		r.emit(func(o *model.Obs) {
			o.Kind, o.At, o.Node, o.Peer = model.ObsTxnOp, at, nodeC1, instP1
			o.Msg = &model.AddPartitionsToTxnRequest{TransactionalID: "t1", PID: 7, Partitions: []int32{0}, Txn: ord}
		})
	}
	for _, tc := range []struct {
		name  string
		stale bool
	}{{"stale", true}, {"own", false}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRun(txnNames)
			addParts(r, 1, 1)
			r.coord(1, "t1", 7, 0, model.TxnOngoing, 0)
			endTxn(r, 2, 1) // transaction 1's own EndTxn
			r.coord(2, "t1", 7, 0, model.TxnPrepareCommit, 0)
			r.coord(2, "t1", 7, 0, model.TxnCompleteCommit)
			endTxn(r, 3, 1) // a retry, answered from CompleteCommit
			addParts(r, 4, 2)
			r.coord(4, "t1", 7, 0, model.TxnOngoing, 0)
			if tc.stale {
				endTxn(r, 5, 1)
			} else {
				endTxn(r, 5, 2)
			}
			r.coord(5, "t1", 7, 0, model.TxnPrepareCommit, 0)
			var want []Violation
			if tc.stale {
				want = []Violation{violation(InvTxn, 5, "stale EndTxn: p1's EndTxn(COMMIT) of its transaction 1 ended its transaction 2 (pid 7, epoch 0), which shares the producer id and epoch")}
			}
			wantViolations(t, txnViolations(r, 9), want)
		})
	}
}
