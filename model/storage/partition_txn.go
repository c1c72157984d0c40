package storage

import (
	"cmp"
	"github.com/idemsim/idemsim/model"
	"slices"
)

// The partition side of transactions: the open transactions, the
// aborted-transaction index, the last stable offset (LSO) and what a
// read_committed consumer reads. File and line citations are to
// apache/kafka@1eb7644349cb; LOG/ is
// storage/src/main/java/org/apache/kafka/storage/internals/log/.

// OngoingTxn is one open transaction on a partition: a producer id whose
// first transactional data batch of a transaction is in the log and whose
// transaction no marker has closed yet (Kafka's TxnMetadata in
// ProducerStateManager.ongoingTxns, added by
// ProducerAppendInfo.appendDataBatch, LOG/ProducerAppendInfo.java l.168).
type OngoingTxn struct {
	PID model.ProducerID
	// FirstOffset is the offset of the transaction's first batch on this
	// partition, 0..LogEndOffset-1.
	FirstOffset int64
}

// AbortedTxn is one entry of a partition's aborted-transaction index
// (LOG/AbortedTxn.java), written when an ABORT marker closes an open
// transaction (ProducerStateManager.completeTxn, LOG/
// ProducerStateManager.java l.546, through UnifiedLog.append,
// core/src/main/scala/kafka/log/UnifiedLog.scala l.914-918). An ABORT
// marker for a producer id with nothing open adds no entry.
type AbortedTxn struct {
	PID model.ProducerID
	// FirstOffset is the aborted transaction's first offset, LastOffset
	// the ABORT marker's offset (FirstOffset < LastOffset).
	FirstOffset, LastOffset int64
	// LastStableOffset is the LSO the marker left
	// (ProducerStateManager.lastStableOffset, l.527): the first offset of
	// the oldest transaction of another producer id still open, else the
	// marker's offset + 1.
	LastStableOffset int64
}

// OngoingTxns returns the partition's open transactions, oldest first
// (increasing FirstOffset). They are derived from the producer state
// (each entry's TxnFirstOffset), which Kafka keeps in step with
// ongoingTxns, so that a restart's rebuild of the producer state rebuilds
// them too.
func (p *Partition) OngoingTxns() []OngoingTxn {
	var out []OngoingTxn
	for pid, e := range p.producers {
		if e.TxnFirstOffset >= 0 {
			out = append(out, OngoingTxn{PID: pid, FirstOffset: e.TxnFirstOffset})
		}
	}
	slices.SortFunc(out, func(a, b OngoingTxn) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	return out
}

// completedTxn is a transaction a marker at LastOffset closed whose
// marker is not yet below the high watermark (Kafka's TxnMetadata in
// ProducerStateManager.unreplicatedTxns, moved there by completeTxn, LOG/
// ProducerStateManager.java l.546).
type completedTxn struct {
	FirstOffset, LastOffset int64
}

// FirstUnstableOffset returns the first offset of the oldest transaction
// that is open or whose marker is not yet below the high watermark, and
// false when there is none (ProducerStateManager.firstUnstableOffset,
// LOG/ProducerStateManager.java l.247: the smaller of the first
// unreplicated and the first ongoing transaction's first offset). Without
// replication the high watermark is the log end offset, so no completed
// transaction waits.
func (p *Partition) FirstUnstableOffset() (int64, bool) {
	first, ok := int64(0), false
	for _, e := range p.producers {
		if e.TxnFirstOffset >= 0 && (!ok || e.TxnFirstOffset < first) {
			first, ok = e.TxnFirstOffset, true
		}
	}
	for _, t := range p.unreplicated {
		if !ok || t.FirstOffset < first {
			first, ok = t.FirstOffset, true
		}
	}
	return first, ok
}

// HighWatermark returns the partition's high watermark, 0..LogEndOffset.
// A replicated partition's is its [ReplicaLog]'s: on the leader the
// smallest log end offset of the ISR's replicas as the leader tracks them
// (core/src/main/scala/kafka/cluster/Partition.scala
// maybeIncrementLeaderHW), on a follower the value its last fetch
// response carried. Without replication every append is on every
// replica at once, so the high watermark is the log end offset.
func (p *Partition) HighWatermark() int64 {
	if p.replica {
		return p.hw
	}
	return p.nextOffset
}

// setHighWatermark is the [ReplicaLog]'s update of the high watermark
// (ProducerStateManager.onHighWatermarkUpdated, LOG/
// ProducerStateManager.java l.265): the completed transactions whose
// marker is now below it are no longer unstable.
func (p *Partition) setHighWatermark(hw int64) {
	p.replica, p.hw = true, hw
	p.dropUnreplicatedBelow(hw)
}

// dropUnreplicatedBelow forgets the completed transactions whose marker
// is below off: a high watermark past them, or a log start that deleted
// them.
func (p *Partition) dropUnreplicatedBelow(off int64) {
	n := 0
	for _, t := range p.unreplicated {
		if t.LastOffset >= off {
			p.unreplicated[n] = t
			n++
		}
	}
	p.unreplicated = p.unreplicated[:n]
}

// completeTxn runs before a marker of pid at off updates the producer
// state of a replicated partition: a transaction it closes waits as
// unreplicated until the high watermark passes the marker
// (ProducerStateManager.completeTxn).
func (p *Partition) completeTxn(pid model.ProducerID, off int64) {
	e := p.producers[pid]
	if !p.replica || e == nil || e.TxnFirstOffset < 0 || off < p.hw {
		return
	}
	p.unreplicated = append(p.unreplicated, completedTxn{FirstOffset: e.TxnFirstOffset, LastOffset: off})
}

// dropTxnsFrom forgets the aborted-transaction index entries and the
// unreplicated transactions whose marker is at or above end, as a
// truncation to end removes their markers (LogSegment.truncateTo
// truncates the transaction index; UnifiedLog.truncateTo reloads the
// producer state, whose replay reopens those transactions).
func (p *Partition) dropTxnsFrom(end int64) {
	keep := 0
	for keep < len(p.aborted) && p.aborted[keep].LastOffset < end {
		keep++
	}
	p.aborted = p.aborted[:keep]
	n := 0
	for _, t := range p.unreplicated {
		if t.LastOffset < end {
			p.unreplicated[n] = t
			n++
		}
	}
	p.unreplicated = p.unreplicated[:n]
}

// LastStableOffset returns the LSO: the first unstable offset when there is
// one below the high watermark, else the high watermark
// (UnifiedLog.lastStableOffset, core/src/main/scala/kafka/log/
// UnifiedLog.scala l.425). Hence LSO <= HW <= LEO. A read_committed consumer
// reads only below it (FetchIsolation TXN_COMMITTED), so one open transaction
// hides everything after its first offset, other producers' data included.
func (p *Partition) LastStableOffset() int64 {
	hw := p.HighWatermark()
	if first, ok := p.FirstUnstableOffset(); ok && first < hw {
		// Never below the log start (UnifiedLog.
		// maybeIncrementFirstUnstableOffset).
		return max(first, p.logStart)
	}
	return hw
}

// AbortedTxns returns the aborted-transaction index, in marker order
// (increasing LastOffset). The caller owns the returned slice.
func (p *Partition) AbortedTxns() []AbortedTxn { return slices.Clone(p.aborted) }

// indexMarker runs before an appended marker at offset off updates the
// producer state: an ABORT that closes pid's open transaction adds it to
// the aborted-transaction index, with the LSO it leaves.
func (p *Partition) indexMarker(pid model.ProducerID, m model.MarkerType, off int64) {
	e := p.producers[pid]
	if e == nil || e.TxnFirstOffset < 0 || m != model.MarkerAbort {
		return
	}
	p.aborted = append(p.aborted, AbortedTxn{PID: pid, FirstOffset: e.TxnFirstOffset, LastOffset: off, LastStableOffset: p.stableAfter(pid, off)})
}

// stableAfter is ProducerStateManager.lastStableOffset (l.527) for a
// marker of pid at off: the first offset of the oldest transaction of
// another producer id still open, else off + 1.
func (p *Partition) stableAfter(pid model.ProducerID, off int64) int64 {
	lso := off + 1
	for id, e := range p.producers {
		if id != pid && e.TxnFirstOffset >= 0 && e.TxnFirstOffset < lso {
			lso = e.TxnFirstOffset
		}
	}
	return lso
}

// rebuildAbortedTxns rebuilds the aborted-transaction index of the log
// from offset from on, as Kafka's recovery of the segments above the
// recovery point rebuilds their transaction indexes (LogSegment.recover
// with ProducerStateManager.completeTxn): the entries whose marker is at
// or above from are dropped and found again by walking the log from
// there, starting from the open transactions of the snapshot the restart
// loaded (nil: none). The index below from is kept, as Kafka keeps the
// transaction index files of flushed segments. The unreplicated
// transactions are rebuilt the same way: those whose marker the walk
// finds at or above the high watermark.
func (p *Partition) rebuildAbortedTxns(from int64, snap *ProducerSnapshot) {
	p.dropTxnsFrom(from)
	open := map[model.ProducerID]int64{}
	if snap != nil {
		for _, se := range snap.Entries {
			if se.TxnFirstOffset >= 0 {
				open[se.PID] = se.TxnFirstOffset
			}
		}
	}
	for le := range p.log.heads(p.log.search(from)) {
		if le.LastOffset < from || !le.Batch.Idempotent() {
			continue
		}
		pid := le.Batch.PID
		first, isOpen := open[pid]
		switch {
		case le.Marker == model.MarkerNone:
			if le.Batch.Transactional && !isOpen {
				open[pid] = le.FirstOffset
			}
		default:
			if isOpen && p.replica && le.FirstOffset >= p.hw {
				p.unreplicated = append(p.unreplicated, completedTxn{FirstOffset: first, LastOffset: le.FirstOffset})
			}
			if isOpen && le.Marker == model.MarkerAbort {
				lso := le.FirstOffset + 1
				for id, f := range open {
					if id != pid && f < lso {
						lso = f
					}
				}
				p.aborted = append(p.aborted, AbortedTxn{PID: pid, FirstOffset: first, LastOffset: le.FirstOffset, LastStableOffset: lso})
			}
			delete(open, pid)
		}
	}
}

// ReadCommitted returns what a read_committed consumer fetching from
// offset from (0..LogEndOffset) gets, after its own filtering: the data
// batches that hold offsets at or above from and lie below the LSO,
// without control batches and without the batches of aborted
// transactions. A batch that holds from is returned whole; a consumer
// skips its records below from.
//
// The broker side (FetchIsolation TXN_COMMITTED): the log up to the
// LSO (UnifiedLog.read, UnifiedLog.scala l.1235) and the aborted
// transactions with LastOffset >= from and FirstOffset below the end of
// the returned data (TransactionIndex.collectAbortedTxns, LOG/
// TransactionIndex.java l.169; LocalLog.addAbortedTransactions,
// LocalLog.scala l.412). The consumer side (clients/src/main/java/
// org/apache/kafka/clients/consumer/internals/CompletedFetch.java
// l.207-222, l.355-390): a min-heap of aborted (pid, firstOffset) and a
// set of aborted producer ids; before each batch with a producer id, the
// heap's entries with firstOffset <= the batch's last offset join the
// set; an ABORT control batch removes its producer id; any other
// transactional batch of a producer id in the set is skipped. Control
// batches are never returned. Filtering is by producer id, not epoch.
func (p *Partition) ReadCommitted(from int64) []model.LogEntry {
	upper := p.LastStableOffset()
	var fetched []model.LogEntry
	for i := p.log.search(from); i < p.log.len() && p.log.firstOffset(i) < upper; i++ {
		fetched = append(fetched, p.log.entry(i))
	}
	end := upper
	if n := len(fetched); n > 0 {
		end = fetched[n-1].LastOffset + 1
	}
	var heap []AbortedTxn // sorted by FirstOffset: popped from the front
	for _, a := range p.aborted {
		if a.LastOffset >= from && a.FirstOffset < end {
			heap = append(heap, a)
		}
	}
	slices.SortStableFunc(heap, func(a, b AbortedTxn) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	abortedPIDs := map[model.ProducerID]bool{}
	var out []model.LogEntry
	for _, le := range fetched {
		if le.Batch.Idempotent() {
			for len(heap) > 0 && heap[0].FirstOffset <= le.LastOffset {
				abortedPIDs[heap[0].PID] = true
				heap = heap[1:]
			}
			if le.Marker == model.MarkerAbort {
				delete(abortedPIDs, le.Batch.PID)
			}
			if le.Marker != model.MarkerNone || le.Batch.Transactional && abortedPIDs[le.Batch.PID] {
				continue
			}
		}
		out = append(out, le)
	}
	return out
}
