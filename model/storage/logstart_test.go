package storage

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// timed returns pid's batch of one record at seq, created at ts.
func timed(pid model.ProducerID, seq int32, ts sim.Time) model.Batch {
	b := mk(model.SeqSpace{}, pid, 0, seq, seq, false)
	b.Records[0].CreateTime = ts
	return b
}

// TestRetentionBySize: retention.bytes (in offsets) deletes the oldest
// entries while the log keeps at least that many without them, and the
// log start moves to the first entry kept.
func TestRetentionBySize(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	for i := range int32(10) {
		p.Append(0, timed(1, i, 0))
	}
	start, cause, ok := p.DeleteOldEntries(0, &Retention{Ms: -1, Records: 4})
	if !ok || start != 6 || cause != CauseRetentionRecords || p.LogStartOffset() != 6 {
		t.Fatalf("DeleteOldEntries = %d %q %v, log start %d; want 6 retention.bytes true", start, cause, ok, p.LogStartOffset())
	}
	if _, _, ok := p.DeleteOldEntries(0, &Retention{Ms: -1, Records: 4}); ok {
		t.Fatal("a second check deleted more than retention.bytes allows")
	}
	if got := p.ReadEntries(p.LogStartOffset(), p.HighWatermark(), 0, nil); len(got) != 4 || got[0].FirstOffset != 6 {
		t.Fatalf("read from the log start: %d entries from %d, want 4 from 6", len(got), got[0].FirstOffset)
	}
}

// TestRetentionByTime: an entry whose newest timestamp is more than
// retention.ms old goes; the next time retention is due is the oldest
// kept entry's timestamp plus retention.ms.
func TestRetentionByTime(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	for i := range int32(5) {
		p.Append(sim.Time(i)*sim.Time(time.Second), timed(1, i, sim.Time(i)*sim.Time(time.Second)))
	}
	r := &Retention{Ms: 10 * time.Second, Records: -1}
	if at, ok := p.NextRetention(0, r); !ok || at != sim.Time(10*time.Second)+1 {
		t.Fatalf("NextRetention = %v %v, want 10s+1ns", at, ok)
	}
	if _, _, ok := p.DeleteOldEntries(sim.Time(10*time.Second), r); ok {
		t.Fatal("deleted an entry exactly retention.ms old (Kafka deletes only older)")
	}
	start, cause, ok := p.DeleteOldEntries(sim.Time(12*time.Second)+1, r)
	if !ok || start != 3 || cause != CauseRetentionMs {
		t.Fatalf("DeleteOldEntries at 12s = %d %q %v, want 3 retention.ms true", start, cause, ok)
	}
}

// TestRetentionWaitsForHighWatermark: a replica's entries at or above
// its high watermark are not deleted.
func TestRetentionWaitsForHighWatermark(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	rl := NewReplicaLog(p)
	for i := range int32(4) {
		p.Append(0, timed(1, i, 0))
	}
	rl.MaybeIncrementHighWatermark(2)
	if start, _, _ := p.DeleteOldEntries(0, &Retention{Ms: -1, Records: 0}); start != 2 {
		t.Fatalf("log start %d, want 2 (the high watermark)", start)
	}
}

// TestLogStartKeepsProducerState: KIP-360 (Kafka 2.4): a producer whose
// batches are all deleted keeps its state, so the retry of its last
// batch is still answered as a duplicate and its next batch is in
// sequence. An unclean restart keeps it too (the deleted entries stand
// for the snapshot Kafka takes at every segment roll).
func TestLogStartKeepsProducerState(t *testing.T) {
	p := NewPartition(0, PartitionConfig{})
	for i := range int32(3) {
		p.Append(0, timed(7, i, 0))
	}
	p.Append(0, timed(8, 0, 0))
	if !p.IncrementLogStart(3) || p.IncrementLogStart(2) {
		t.Fatal("IncrementLogStart moved backwards or not at all")
	}
	r := p.Append(0, timed(7, 2, 0))
	if r.Err != model.ErrNone || !r.Duplicate || r.FirstOffset != 2 {
		t.Fatalf("retry after deletion: %v dup=%v at %d, want a duplicate at 2", r.Err, r.Duplicate, r.FirstOffset)
	}
	if r := p.Append(0, timed(7, 5, 0)); r.Err != model.ErrOutOfOrderSequenceNumber {
		t.Fatalf("a gap after deletion: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER (the state is kept)", r.Err)
	}
	p.Restart(0, false)
	if p.Producer(7) == nil || p.Producer(8) == nil || p.StateDiff(0) != "" {
		t.Fatalf("after an unclean restart: pid 7 %v, pid 8 %v (want both kept), diff %q", p.Producer(7), p.Producer(8), p.StateDiff(0))
	}
	if r := p.Append(0, timed(7, 2, 0)); !r.Duplicate {
		t.Fatalf("retry after the restart: %v dup=%v, want a duplicate", r.Err, r.Duplicate)
	}
	if p.LastStableOffset() < p.LogStartOffset() {
		t.Fatalf("LSO %d below the log start %d", p.LastStableOffset(), p.LogStartOffset())
	}
}
