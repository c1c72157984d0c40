package storage

import "github.com/idemsim/idemsim/model"

// A consumer's read of a partition (the broker's side of a Fetch with
// replica id -1): the entries up to the isolation's bound and the
// aborted transactions that overlap them. apache/kafka:
// core/src/main/scala/kafka/log/UnifiedLog.scala (read, with
// FetchIsolation HIGH_WATERMARK or TXN_COMMITTED),
// storage/src/main/java/org/apache/kafka/storage/internals/log/
// TransactionIndex.java (collectAbortedTxns).

// ReadEntries appends to dst the log entries from the one holding offset
// from (or the first after it) whose first offset is below upper, at most
// max of them when max > 0, and returns dst. The high watermark and the
// LSO, the bounds a consumer reads up to, are entry boundaries. The
// entries' records are carved from the partition's slab and never
// written again.
func (p *Partition) ReadEntries(from, upper int64, max int, dst []model.LogEntry) []model.LogEntry {
	log := &p.log
	lo, hi := log.search(from), log.search(upper)
	if hi < log.len() && log.firstOffset(hi) < upper {
		hi++ // upper inside an entry: that entry starts below it
	}
	if max > 0 {
		hi = min(hi, lo+max)
	}
	if lo >= hi {
		return dst
	}
	buf := p.spare.recs.Slice(log.records(lo, hi))
	ri := log.run(lo)
	for i := lo; i < hi; i++ {
		for int(log.runs[ri].from+log.runs[ri].n) <= i {
			ri++
		}
		run := &log.runs[ri]
		dst = append(dst, log.entryOf(run, int32(i)-run.from, &buf))
	}
	return dst
}

// AbortedOverlapping appends to dst the aborted transactions whose ABORT
// marker is at or above from and whose first offset is below end, in
// marker order (TransactionIndex.collectAbortedTxns: lastOffset >=
// fetchOffset and firstOffset < upperBoundOffset), and returns dst.
func (p *Partition) AbortedOverlapping(from, end int64, dst []model.AbortedTransaction) []model.AbortedTransaction {
	for _, a := range p.aborted {
		if a.LastOffset >= from && a.FirstOffset < end {
			dst = append(dst, model.AbortedTransaction{PID: a.PID, FirstOffset: a.FirstOffset})
		}
	}
	return dst
}
