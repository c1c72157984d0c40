package storage

import (
	"fmt"
	"strings"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// DropState forgets every producer's state while keeping the log, as a
// broker that restarts without snapshots and without rebuilding from its
// log would (the README's -bug Z08; not Kafka's behaviour, a what-if).
func (p *Partition) DropState() {
	p.producers = make(map[model.ProducerID]*ProducerStateEntry)
	p.dirtyExpiry()
}

// StateDiff compares the partition's producer state with what replaying its
// whole log through the replication path yields (the README's INV-STATE). It
// compares, per producer id, the epoch, the newest batch's sequence and
// offsets, and the open transaction; the older batches of the window are not
// compared, since Kafka's own snapshots keep only the newest
// (ProducerStateManager.writeSnapshot). It returns "" when they agree, else a
// description of the first differences.
//
// An entry that has expired by its timestamps (no open transaction and
// idle for producer.id.expiration.ms) may be present or absent: a rebuild
// drops such entries only from the snapshot it loads
// (storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
// loadFromSnapshot, line 304, filtering with isProducerExpired), while a
// batch it replays from the log re-creates the entry whatever its age
// (storage/src/main/java/org/apache/kafka/storage/internals/log/UnifiedLog.java
// rebuildProducerState, lines 57-139, which expires nothing). The entry
// then stays until the next periodic removeExpiredProducers
// (ProducerStateManager.java line 338). If present, it must still agree
// with the log.
func (p *Partition) StateDiff(now sim.Time) string {
	// The rebuild runs in a scratch partition p keeps, reset each time.
	ref := p.spare.ref
	if ref == nil {
		ref = &Partition{}
		p.spare.ref = ref
	}
	ref.Reset(p.ID, p.cfg)
	ref.replay(&p.log, 0)
	exp := p.cfg.expiration()
	var diffs []string
	seen := map[model.ProducerID]bool{}
	for _, pid := range append(ref.ProducerIDs(), p.ProducerIDs()...) {
		if seen[pid] {
			continue
		}
		seen[pid] = true
		want, got := ref.producers[pid], p.producers[pid]
		if got == nil && want != nil && want.TxnFirstOffset < 0 && now.Sub(want.LastTimestamp) >= exp {
			continue // expired: gone from the rebuilt state, as it may be
		}
		if d := entryDiff(want, got); d != "" {
			diffs = append(diffs, fmt.Sprintf("pid %d: %s", pid, d))
		}
	}
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("and %d more", len(diffs)-3))
	}
	return strings.Join(diffs, "; ")
}

func entryDiff(want, got *ProducerStateEntry) string {
	switch {
	case want == nil && got == nil:
		return ""
	case want == nil:
		return "state present but the log implies none"
	case got == nil:
		return fmt.Sprintf("state lost (log implies epoch %d, last seq %d)", want.Epoch, want.lastSeq())
	}
	var d []string
	if want.Epoch != got.Epoch {
		d = append(d, fmt.Sprintf("epoch %d, log implies %d", got.Epoch, want.Epoch))
	}
	if want.lastSeq() != got.lastSeq() {
		d = append(d, fmt.Sprintf("last seq %d, log implies %d", got.lastSeq(), want.lastSeq()))
	}
	if len(want.Batches) > 0 && len(got.Batches) > 0 {
		w, g := want.Batches[len(want.Batches)-1], got.Batches[len(got.Batches)-1]
		if w.LastOffset != g.LastOffset {
			d = append(d, fmt.Sprintf("last offset %d, log implies %d", g.LastOffset, w.LastOffset))
		}
	}
	if want.TxnFirstOffset != got.TxnFirstOffset {
		d = append(d, fmt.Sprintf("open txn at %d, log implies %d", got.TxnFirstOffset, want.TxnFirstOffset))
	}
	return strings.Join(d, ", ")
}

// EntryAt returns the log entry holding offset off, or nil: a new copy
// that shares nothing with the partition's state (its records are carved
// from the partition's slab, never written again).
func (p *Partition) EntryAt(off int64) *model.LogEntry {
	e, ok := p.FindEntry(off)
	if !ok {
		return nil
	}
	return &e
}

// FindEntry returns the log entry holding offset off and true, or false; as
// [Partition.EntryAt].
func (p *Partition) FindEntry(off int64) (model.LogEntry, bool) {
	i := p.log.search(off)
	if i >= p.log.len() || p.log.firstOffset(i) > off {
		return model.LogEntry{}, false
	}
	r := &p.log.runs[p.log.run(i)]
	if r.nrec == 0 {
		return p.log.entryOf(r, int32(i)-r.from, nil), true
	}
	buf := p.spare.recs.Slice(int(r.nrec))
	return p.log.entryOf(r, int32(i)-r.from, &buf), true
}
