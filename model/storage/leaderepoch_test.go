package storage

import (
	"slices"
	"testing"

	"github.com/idemsim/idemsim/model"
)

func cacheOf(es ...EpochEntry) *LeaderEpochCache {
	c := &LeaderEpochCache{}
	for _, e := range es {
		c.Assign(e.Epoch, e.StartOffset)
	}
	return c
}

func TestEpochCacheAssign(t *testing.T) {
	c := &LeaderEpochCache{}
	c.Assign(0, 0)
	c.Assign(0, 5) // same epoch, later start: no-op
	c.Assign(2, 10)
	c.Assign(3, 20)
	want := []EpochEntry{{0, 0}, {2, 10}, {3, 20}}
	if !slices.Equal(c.Entries(), want) {
		t.Fatalf("entries %v, want %v", c.Entries(), want)
	}
	// Same latest epoch at a lower start replaces it (isUpdateNeeded).
	c.Assign(3, 15)
	want = []EpochEntry{{0, 0}, {2, 10}, {3, 15}}
	if !slices.Equal(c.Entries(), want) {
		t.Fatalf("entries %v, want %v", c.Entries(), want)
	}
	// A lower epoch removes every newer entry (non-monotonic truncation).
	c.Assign(1, 12)
	want = []EpochEntry{{0, 0}, {1, 12}}
	if !slices.Equal(c.Entries(), want) {
		t.Fatalf("entries %v, want %v", c.Entries(), want)
	}
	// A higher epoch at a start not above the latest removes it.
	c.Assign(4, 12)
	want = []EpochEntry{{0, 0}, {4, 12}}
	if !slices.Equal(c.Entries(), want) {
		t.Fatalf("entries %v, want %v", c.Entries(), want)
	}
	c.TruncateFromEnd(12)
	if !slices.Equal(c.Entries(), []EpochEntry{{0, 0}}) {
		t.Fatalf("after TruncateFromEnd(12): %v", c.Entries())
	}
}

func TestEpochCacheEndOffsetFor(t *testing.T) {
	c := cacheOf(EpochEntry{1, 0}, EpochEntry{3, 50}, EpochEntry{5, 90})
	const leo = 120
	for _, tc := range []struct {
		ask     int32
		wantE   int32
		wantEnd int64
		comment string
	}{
		{-1, model.UndefinedEpoch, model.UndefinedEpochOffset, "undefined epoch"},
		{5, 5, leo, "latest epoch ends at the log end"},
		{6, model.UndefinedEpoch, model.UndefinedEpochOffset, "no epoch above"},
		{3, 3, 90, "known epoch ends where the next starts"},
		{4, 3, 90, "unknown epoch: largest below, next start above (KIP-279)"},
		{0, 0, 0, "below every epoch: asked epoch, first start"},
		{2, 1, 50, "gap"},
	} {
		e, end := c.EndOffsetFor(tc.ask, leo)
		if e != tc.wantE || end != tc.wantEnd {
			t.Errorf("%s: EndOffsetFor(%d) = (%d, %d), want (%d, %d)", tc.comment, tc.ask, e, end, tc.wantE, tc.wantEnd)
		}
	}
	var empty LeaderEpochCache
	if e, end := empty.EndOffsetFor(0, 10); e != model.UndefinedEpoch || end != model.UndefinedEpochOffset {
		t.Errorf("empty cache: (%d, %d)", e, end)
	}
	for o, want := range map[int64]int32{0: 1, 49: 1, 50: 3, 89: 3, 90: 5, 1000: 5} {
		if got := c.EpochFor(o); got != want {
			t.Errorf("EpochFor(%d) = %d, want %d", o, got, want)
		}
	}
}

// TestTruncationOffsetR39 checks the follower's decision
// (AbstractFetcherThread#getOffsetTruncationState), including a worked
// example: A led epoch 5 to 120, B leads epoch 6 from 100; B answers (5, 100);
// A truncates to 100.
func TestTruncationOffsetR39(t *testing.T) {
	a := cacheOf(EpochEntry{4, 0}, EpochEntry{5, 90})
	if off, done := a.TruncationOffset(5, 100, 120, 120); off != 100 || !done {
		t.Errorf("example: (%d, %v), want (100, true)", off, done)
	}
	if off, done := a.TruncationOffset(5, model.UndefinedEpochOffset, 120, 110); off != 110 || !done {
		t.Errorf("undefined end: (%d, %v), want fetch offset (110, true)", off, done)
	}
	if off, done := a.TruncationOffset(model.UndefinedEpoch, 95, 120, 120); off != 95 || !done {
		t.Errorf("undefined epoch: (%d, %v), want (95, true)", off, done)
	}
	// Leader names epoch 3, which A lacks: A's answer for 3 is (3, 0)
	// (below every epoch), so fe == 3: min(0, 60, 120).
	if off, done := a.TruncationOffset(3, 60, 120, 120); off != 0 || !done {
		t.Errorf("epoch below all: (%d, %v), want (0, true)", off, done)
	}
	// A has 2 and 5, leader names 4: A's largest <= 4 is 2, ending at 90:
	// truncate to 90, not complete.
	b := cacheOf(EpochEntry{2, 0}, EpochEntry{5, 90})
	if off, done := b.TruncationOffset(4, 100, 120, 120); off != 90 || done {
		t.Errorf("unknown epoch: (%d, %v), want (90, false)", off, done)
	}
	// Own answer undefined (leader names an epoch above all of A's).
	if off, done := b.TruncationOffset(7, 130, 120, 120); off != 120 || !done {
		t.Errorf("own undefined: (%d, %v), want (120, true)", off, done)
	}
}
