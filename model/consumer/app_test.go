package consumer

import (
	"slices"
	"testing"
	"time"
)

// TestStartAt: started at given positions, the consumer fetches no
// committed offsets and reads from there, skipping the aborted
// transaction read_committed.
func TestStartAt(t *testing.T) {
	w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, ReadCommitted: true, MaxPollRecords: 100, AutoCommit: false})
	txnLog(t, w.part(0, 0))
	w.c.cfg.Commits = false
	w.consumerOuts(w.c.StartAt(w.now, []int64{1}))
	w.runUntil(ms(500))
	if got, want := w.returned(), []int64{1, 20, 21, 2}; !slices.Equal(got, want) {
		t.Fatalf("returned %v, want %v (from offset 1, read_committed: pid 1's aborted 10 and 11 skipped, below pid 3's open transaction)", got, want)
	}
	if w.sent["COff"] != 0 {
		t.Errorf("OffsetFetch sent %d times, want 0", w.sent["COff"])
	}
}

// TestAppCommits: with AppCommits the consumer returns one poll, then
// nothing until the application calls CommitSync, which commits the
// position after that poll; then it polls again.
func TestAppCommits(t *testing.T) {
	w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, MaxPollRecords: 1, AppCommits: true, Reset: ResetEarliest})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 3)))
	w.start()
	w.runUntil(ms(300))
	if got := w.returned(); !slices.Equal(got, []int64{0}) || !w.c.Held() {
		t.Fatalf("before CommitSync: returned %v, held %v; want [0] and held", got, w.c.Held())
	}
	if c := w.group.ConsumerCommitted("r1", 0); c != -1 {
		t.Fatalf("committed %d before CommitSync, want none", c)
	}
	w.consumerOuts(w.c.CommitSync(w.now))
	w.runUntil(w.now.Add(5 * time.Millisecond))
	if c := w.group.ConsumerCommitted("r1", 0); c != 1 {
		t.Fatalf("committed %d after CommitSync, want 1", c)
	}
	w.runUntil(w.now.Add(100 * time.Millisecond))
	if got := w.returned(); !slices.Equal(got, []int64{0, 1}) {
		t.Fatalf("after CommitSync: returned %v, want [0 1]", got)
	}
}

// TestAppOffsets: with AppOffsets the consumer polls on without holding
// and commits nothing itself; CommitOffsets commits the application's
// offset, not the position, and a lower one later does not move it back.
func TestAppOffsets(t *testing.T) {
	w := newCWorld(t, []int32{0}, 1, Config{Partitions: []int32{0}, MaxPollRecords: 1, Commits: true, AppOffsets: true, Reset: ResetEarliest})
	mustAppend(t, w.part(0, 0).Append(0, batch(-1, false, 0, 0, 5)))
	w.start()
	w.runUntil(ms(400))
	if got := w.returned(); len(got) < 3 || w.c.Held() {
		t.Fatalf("returned %v, held %v; want 3 or more polls and no hold", got, w.c.Held())
	}
	if c := w.group.ConsumerCommitted("r1", 0); c != -1 {
		t.Fatalf("committed %d before CommitOffsets, want none", c)
	}
	w.consumerOuts(w.c.CommitOffsets(w.now, []int64{2}))
	w.runUntil(w.now.Add(5 * time.Millisecond))
	if c := w.group.ConsumerCommitted("r1", 0); c != 2 {
		t.Fatalf("committed %d after CommitOffsets(2), want 2 (not the position %d)", c, w.c.Position(0))
	}
	w.consumerOuts(w.c.CommitOffsets(w.now, []int64{1}))
	w.runUntil(w.now.Add(5 * time.Millisecond))
	if c := w.group.ConsumerCommitted("r1", 0); c != 2 {
		t.Fatalf("committed %d after CommitOffsets(1), want still 2", c)
	}
}
