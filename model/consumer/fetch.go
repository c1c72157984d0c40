package consumer

import (
	"cmp"
	"slices"

	"github.com/idemsim/idemsim/model"
)

// completedFetch is one partition's fetch response being returned to
// the application (apache/kafka clients/src/main/java/org/apache/kafka/
// clients/consumer/internals/CompletedFetch.java): its entries, the next
// entry to read, and for read_committed the aborted transactions not yet
// reached (a min-heap by first offset, here a slice sorted by it) and
// the producer ids of aborted transactions being skipped.
type completedFetch struct {
	entries     []model.LogEntry
	next        int
	aborted     []model.AbortedTransaction
	abortedPIDs []model.ProducerID
	committed   bool
}

func (f *completedFetch) reset() {
	f.entries, f.next, f.aborted, f.abortedPIDs = nil, 0, f.aborted[:0], f.abortedPIDs[:0]
}

// pending reports whether entries are left to read.
func (f *completedFetch) pending() bool { return f.next < len(f.entries) }

// init takes a fetch response's entries and aborted transactions.
func (f *completedFetch) init(m *model.ConsumerFetchResponse, readCommitted bool) {
	f.reset()
	f.entries, f.committed = m.Entries, readCommitted
	if readCommitted {
		f.aborted = append(f.aborted, m.Aborted...)
		slices.SortStableFunc(f.aborted, func(a, b model.AbortedTransaction) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	}
}

// skip reports whether entry e is not returned (CompletedFetch
// .nextFetchedRecord, isBatchAborted, consumeAbortedTransactionsUpTo;
// l.207-222 and l.355-390 at apache/kafka@1eb7644349cb): control batches never are; with read_committed, before a
// batch with a producer id the aborted transactions starting at or below
// its last offset join the aborted set, an ABORT marker takes its
// producer id out, and a transactional batch of a producer id in the set
// is skipped.
func (f *completedFetch) skip(e *model.LogEntry) bool {
	if f.committed && e.Batch.Idempotent() {
		for len(f.aborted) > 0 && f.aborted[0].FirstOffset <= e.LastOffset {
			f.abortedPIDs = append(f.abortedPIDs, f.aborted[0].PID)
			f.aborted = f.aborted[1:]
		}
		if e.Marker == model.MarkerAbort {
			f.abortedPIDs = slices.DeleteFunc(f.abortedPIDs, func(p model.ProducerID) bool { return p == e.Batch.PID })
		}
		if e.Marker == model.MarkerNone && e.Batch.Transactional && slices.Contains(f.abortedPIDs, e.Batch.PID) {
			return true
		}
	}
	return e.Marker != model.MarkerNone
}

// take returns up to max records at or above position, appending their
// ids to ids and their entries (records trimmed to those returned) to
// log, and the position after them: past every entry it read or skipped
// (CompletedFetch.nextFetchOffset).
func (f *completedFetch) take(position int64, max int, ids []model.RecordID, log []model.LogEntry) (int64, int, []model.RecordID, []model.LogEntry) {
	got := 0
	for got < max && f.pending() {
		e := &f.entries[f.next]
		if e.LastOffset < position {
			f.next++
			continue
		}
		if f.skip(e) {
			position = e.LastOffset + 1
			f.next++
			continue
		}
		lo := position - e.FirstOffset
		if lo < 0 {
			lo = 0
		}
		hi := min(int64(len(e.Batch.Records)), lo+int64(max-got))
		part := *e
		part.Batch.Records = e.Batch.Records[lo:hi:hi]
		part.FirstOffset, part.LastOffset = e.FirstOffset+lo, e.FirstOffset+hi-1
		log = append(log, part)
		for _, r := range part.Batch.Records {
			ids = append(ids, r.ID)
		}
		got += int(hi - lo)
		position = e.FirstOffset + hi
		if position > e.LastOffset {
			f.next++
		}
	}
	return position, got, ids, log
}
