package storage

import (
	"slices"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// ProducerSnapshot is a producer-state snapshot as Kafka writes it
// (ProducerStateManager.takeSnapshot / writeSnapshot): per
// producer only the newest batch survives, with the epoch, coordinator
// epoch, open-transaction offset and last timestamp.
type ProducerSnapshot struct {
	// Offset is the log end offset the snapshot was taken at; a rebuild
	// replays the log from here.
	Offset int64
	// Entries are the producers, in increasing PID order.
	Entries []SnapshotEntry
}

// SnapshotEntry is one producer in a [ProducerSnapshot].
type SnapshotEntry struct {
	PID              model.ProducerID
	Epoch            int16
	CoordinatorEpoch int32
	// TxnFirstOffset is the open transaction's first offset, or -1.
	TxnFirstOffset int64
	LastTimestamp  sim.Time
	// HasBatch is false when the window was empty (e.g. after a marker
	// that bumped the epoch); LastBatch is then the zero value.
	HasBatch  bool
	LastBatch BatchMetadata
}

// Snapshot takes a producer-state snapshot at the current log end offset,
// keeps it as the partition's newest snapshot (the one an unclean
// [Partition.Restart] starts from) and returns it. The returned value
// shares nothing with the partition.
func (p *Partition) Snapshot() ProducerSnapshot {
	s := ProducerSnapshot{Offset: p.nextOffset, Entries: make([]SnapshotEntry, 0, len(p.producers))}
	for _, id := range p.ProducerIDs() {
		e := p.producers[id]
		se := SnapshotEntry{PID: id, Epoch: e.Epoch, CoordinatorEpoch: e.CoordinatorEpoch, TxnFirstOffset: e.TxnFirstOffset, LastTimestamp: e.LastTimestamp}
		if len(e.Batches) > 0 {
			se.HasBatch, se.LastBatch = true, e.Batches[len(e.Batches)-1]
		}
		s.Entries = append(s.Entries, se)
	}
	kept := s
	kept.Entries = slices.Clone(s.Entries)
	p.snap = &kept
	p.sinceSnap = 0
	return s
}

// LastSnapshot returns the partition's newest snapshot and whether there is
// one.
func (p *Partition) LastSnapshot() (ProducerSnapshot, bool) {
	if p.snap == nil {
		return ProducerSnapshot{}, false
	}
	s := *p.snap
	s.Entries = slices.Clone(s.Entries)
	return s, true
}

// maybeSnapshot takes the periodic snapshot that stands in for the
// snapshot at a segment roll ([PartitionConfig.SnapshotEvery]).
func (p *Partition) maybeSnapshot() {
	if p.cfg.SnapshotEvery <= 0 {
		return
	}
	p.sinceSnap++
	if p.sinceSnap >= p.cfg.SnapshotEvery {
		p.Snapshot()
	}
}

// Restart models a broker restart of this partition's leader: the log and
// its offsets survive, the in-memory producer state is rebuilt
// (UnifiedLog.rebuildProducerState):
//
//   - clean (clean shutdown): a snapshot is taken at the log end first, so
//     nothing is replayed and every producer's window is its newest batch
//     only (ProducerStateManagerTest#testRecoverFromSnapshotUnfinishedTransaction);
//   - unclean (crash): the newest snapshot taken earlier (periodic,
//     [PartitionConfig.SnapshotEvery], or from an earlier restart or
//     [Partition.Snapshot]) is loaded, or nothing if there is none, and the
//     log after its offset is replayed.
//
// Loading drops snapshot entries that have expired by now (no open
// transaction and now - LastTimestamp >= producer.id.expiration.ms,
// ProducerStateManager.isProducerExpired).
// Replay uses the replication path: no epoch or sequence validation,
// batches enter the windows (capped at the window size), epochs change,
// and markers set the epoch, record the coordinator epoch and close
// transactions. Timestamps come from the log's append times. After the
// rebuild a new snapshot is taken at the log end, as Kafka does.
//
// Simplifications: there is no recovery point or truncation (the whole
// log survives either way), entries created by the replay are not expired
// until the next [Partition.ExpireProducers], and an entry removed by
// [Partition.ExpireProducer] can come back from an older snapshot or the
// replay if it has not expired by its timestamps (Kafka's snapshot files
// can resurrect it the same way).
func (p *Partition) Restart(now sim.Time, clean bool) {
	if clean {
		p.Snapshot()
	}
	p.verifying = nil // the verification entries are the broker's memory
	// Entries below the log start are replayed too: they stand for the
	// snapshot Kafka takes at every segment roll (UnifiedLog.roll), which
	// holds the producers whose batches retention deleted since, while
	// here every entry is a segment of its own (logstart.go) and
	// snapshots are rarer.
	from := p.loadSnapshot(now)
	// Replay from the first log entry at or after from.
	p.replay(&p.log, p.log.search(from))
	p.rebuildAbortedTxns(from, p.snap)
	p.Snapshot()
}

// replay applies the entries of log from index i on to the producer
// state through the replication path (UnifiedLog.rebuildProducerState
// step 3): no sequence validation, batches join the windows, markers move
// epochs and close transactions.
func (p *Partition) replay(log *logStore, i int) {
	for le, ts := range log.heads(i) {
		p.replayEntry(le, ts)
	}
}

// replayEntry applies one log entry, whose batch's max timestamp is ts
// (its records are not read), as [Partition.replay] does.
func (p *Partition) replayEntry(le *model.LogEntry, ts sim.Time) {
	if !le.Batch.Idempotent() {
		return
	}
	if le.Marker != model.MarkerNone {
		p.applyMarker(le.Batch.PID, le.Batch.Epoch, le.CoordinatorEpoch, le.AppendedAt)
		return
	}
	p.applyData(&le.Batch, ts, le.FirstOffset, le.LastOffset)
}

// loadSnapshot resets producer state to the newest snapshot's, leaving
// out entries expired by now (no open transaction and idle for
// producer.id.expiration.ms), and returns the offset to replay the log
// from: the snapshot's, or 0 without one.
func (p *Partition) loadSnapshot(now sim.Time) int64 {
	p.producers = make(map[model.ProducerID]*ProducerStateEntry)
	p.dirtyExpiry()
	if p.snap == nil {
		return 0
	}
	exp := p.cfg.expiration()
	for _, se := range p.snap.Entries {
		if se.TxnFirstOffset < 0 && now.Sub(se.LastTimestamp) >= exp {
			continue
		}
		e := &ProducerStateEntry{Epoch: se.Epoch, CoordinatorEpoch: se.CoordinatorEpoch, TxnFirstOffset: se.TxnFirstOffset, LastTimestamp: se.LastTimestamp}
		if se.HasBatch {
			e.Batches = append(make([]BatchMetadata, 0, p.cfg.window()), se.LastBatch)
		}
		p.producers[se.PID] = e
	}
	return p.snap.Offset
}
