// Package check judges a run against idemsim's invariants. It reads the
// world's one observation stream ([model.Obs]) and nothing else: no
// partition, producer or coordinator is ever asked for its state.
//
// Every invariant is one type behind the [Invariant] interface, in a file
// of its own (dup.go, loss.go, order.go, seq.go, dedup.go, fence.go,
// state.go, epoch.go, eos.go, txn.go, liveprod.go, lso.go), and one line of the registry
// (registry.go) puts it in the report, in report order. A [Suite] fans
// each observation out to every invariant and to the tally of [Counts],
// and judges the run once it ended:
//
//	s := check.NewSuite(check.Config{Seq: seq, MaxEpoch: maxEpoch, Names: names})
//	// the world calls s.Observe(o) for every observation, ObsRunEnd last
//	counts, violations := s.Finish()
//
// A sweep that runs seed after seed reuses one suite: s.Reset(cfg) makes
// it a new suite for the next run, keeping its memory (reuse.go).
//
// # The committed view
//
// The logs the invariants judge are rebuilt from the stream (logview.go):
// per partition, each appended data batch (an [model.ObsVerdict] that
// appended) and each transaction marker (an [model.ObsMarker] that was
// written), in the order observed, which is offset order. A consumer in
// read_committed mode sees non-transactional data at once and
// transactional data when its producer's next marker on the partition is a
// COMMIT; an ABORT discards it, and data of a transaction still open at
// the end is neither committed nor aborted. The view keeps each batch by
// value; its records are the slice the batch already carries, never
// copied.
//
// The invariants about transactions judge a stricter view at the run's
// end (txnview.go): what a read_committed consumer reads, below each
// partition's last stable offset (LSO: the first offset of the oldest
// transaction no marker closed, else the log end; no replication, so the
// high watermark is the log end) with the aborted transactions filtered
// out (Kafka's UnifiedLog.lastStableOffset and the consumer's
// CompletedFetch filter; rcView in txnview.go). Each transactional batch
// is attributed to its transaction: the sending instance (the verdict's peer), its
// incarnation (restarts the stream showed before it sent the request) and
// its transaction ordinal ([model.Batch.Txn]). INV-TXN (txn.go) finds
// aborted reads, lost committed writes, torn transactions and COMMIT
// markers that decided two transactions; INV-FENCE also refuses a batch
// appended after a marker closed its transaction; LIVE-LSO (lso.go)
// reports an LSO pinned by a transaction no coordinator will mark, from
// the coordinator's states ([model.ObsTxnState]), and judges nothing when
// the stream has none.
//
// What the applications were told is read from the same stream: each
// record's outcome ([model.ObsOutcome]; for a record sent in a
// transaction, its produce acknowledgement) and each transaction's end
// ([model.ObsTxnOutcome]: committed, aborted or failed, with the records
// it had acknowledged). INV-LOSS holds a transactional record to its
// commit only once the application was told its transaction committed.
//
// # Bounded reports
//
// A broken run can break an invariant thousands of times. Each invariant
// reports its first few violations and one closing line that counts the
// rest: INV-DUP its first 8 extra copies, INV-ORDER its first 8 reordered
// records, INV-LOSS and the acknowledged-offset half of INV-DEDUP their
// first 8 records, and the log-shape invariants (INV-SEQ, INV-DEDUP's
// duplicate answers, INV-FENCE, INV-STATE, INV-EPOCH) and INV-TXN their
// first 24 each.
//
// The package runs inside the simulated world's determinism rules: no
// wall clock, no randomness, no goroutines, and no map iteration order
// reaching a report (whatever is read from a map is sorted first).
package check
