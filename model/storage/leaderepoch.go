package storage

import "github.com/idemsim/idemsim/model"

// Leader epochs (KIP-101, KIP-279). Citations
// are to apache/kafka@1eb7644349cb:
// storage/src/main/java/org/apache/kafka/storage/internals/epoch/LeaderEpochFileCache.java
// (LEC) and core/src/main/scala/kafka/server/AbstractFetcherThread.scala
// (AFT).

// EpochEntry is one leader epoch and the first offset written in it
// (LEC's EpochEntry).
type EpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// LeaderEpochCache is a replica's leader-epoch cache (LEC): epochs and their
// start offsets, both strictly increasing. The zero value is empty. Entries
// are written by a new leader for its epoch at its log end
// (Partition.makeLeader) and by every appended batch, on leader and follower
// alike (UnifiedLog.append); the epoch of the batch at offset o is therefore
// the epoch of the last entry starting at or before o
// ([LeaderEpochCache.EpochFor]).
type LeaderEpochCache struct {
	entries []EpochEntry
}

// Entries returns the cache, oldest first. The caller must not modify it.
func (c *LeaderEpochCache) Entries() []EpochEntry { return c.entries }

// Latest returns the newest entry, and false when the cache is empty.
func (c *LeaderEpochCache) Latest() (EpochEntry, bool) {
	if len(c.entries) == 0 {
		return EpochEntry{model.UndefinedEpoch, model.UndefinedEpochOffset}, false
	}
	return c.entries[len(c.entries)-1], true
}

// LatestEpoch returns the newest epoch, or UndefinedEpoch.
func (c *LeaderEpochCache) LatestEpoch() int32 {
	e, _ := c.Latest()
	return e.Epoch
}

// Assign records that epoch starts at offset start (LEC#assign:105). It
// is a no-op when epoch is the latest epoch and start is not below its
// start offset (isUpdateNeeded); otherwise every entry at the newest end
// with an epoch >= epoch or a start >= start is removed first
// (LEC#maybeTruncateNonMonotonicEntries:152), so the cache stays
// monotonic. Negative arguments panic, as Kafka throws.
func (c *LeaderEpochCache) Assign(epoch int32, start int64) {
	if epoch < 0 || start < 0 {
		panic("model: LeaderEpochCache.Assign with a negative epoch or offset")
	}
	if last, ok := c.Latest(); ok && last.Epoch == epoch && start >= last.StartOffset {
		return
	}
	n := len(c.entries)
	for n > 0 && (c.entries[n-1].Epoch >= epoch || c.entries[n-1].StartOffset >= start) {
		n--
	}
	c.entries = append(c.entries[:n], EpochEntry{Epoch: epoch, StartOffset: start})
}

// TruncateFromEnd removes every entry starting at or above end
// (LEC#truncateFromEndAsyncFlush:337, called by UnifiedLog.truncateTo).
func (c *LeaderEpochCache) TruncateFromEnd(end int64) {
	n := len(c.entries)
	for n > 0 && c.entries[n-1].StartOffset >= end {
		n--
	}
	c.entries = c.entries[:n]
}

// EndOffsetFor answers "where does epoch end" for a log whose end offset is
// leo (LEC#endOffsetFor:286): the largest epoch <= epoch this cache knows and
// the start offset of the first epoch above it, or leo when epoch is the
// latest. Both results are undefined (UndefinedEpoch, UndefinedEpochOffset)
// for epoch -1 or when no epoch above epoch is known; when none at or below is
// known the answer is (epoch, start of the first epoch above it). A leader
// serves this in Fetch (Partition.readRecords) and in OffsetsForLeaderEpoch.
func (c *LeaderEpochCache) EndOffsetFor(epoch int32, leo int64) (int32, int64) {
	if epoch == model.UndefinedEpoch {
		return model.UndefinedEpoch, model.UndefinedEpochOffset
	}
	if last, ok := c.Latest(); ok && last.Epoch == epoch {
		return epoch, leo
	}
	hi := -1
	for i := range c.entries {
		if c.entries[i].Epoch > epoch {
			hi = i
			break
		}
	}
	if hi < 0 {
		return model.UndefinedEpoch, model.UndefinedEpochOffset
	}
	if hi == 0 {
		return epoch, c.entries[0].StartOffset
	}
	return c.entries[hi-1].Epoch, c.entries[hi].StartOffset
}

// EpochFor returns the epoch of the batch at offset o: the epoch of the
// last entry starting at or before o, or UndefinedEpoch.
func (c *LeaderEpochCache) EpochFor(o int64) int32 {
	for i := len(c.entries) - 1; i >= 0; i-- {
		if c.entries[i].StartOffset <= o {
			return c.entries[i].Epoch
		}
	}
	return model.UndefinedEpoch
}

// TruncationOffset is the follower's truncation decision
// (AFT#getOffsetTruncationState:583) for a leader's answer
// (leaderEpoch, leaderEnd) to "where does my last epoch end", given this
// follower's cache, its log end leo and its current fetch offset. It
// returns the offset to truncate to and whether truncation is complete;
// when it is not, the follower has truncated to the end of an epoch the
// leader did not name and must ask again with its new latest epoch (with
// truncation on fetch: its next Fetch carries the new LastFetchedEpoch).
//
//  1. leaderEnd undefined: the fetch offset (legacy high-watermark
//     fallback), complete;
//  2. leaderEpoch undefined: min(leaderEnd, leo), complete;
//  3. own (fe, fend) := EndOffsetFor(leaderEpoch): undefined gives
//     min(leaderEnd, leo), complete; fe != leaderEpoch gives min(fend,
//     leo), not complete; fe == leaderEpoch gives min(fend, leaderEnd,
//     leo), complete.
func (c *LeaderEpochCache) TruncationOffset(leaderEpoch int32, leaderEnd, leo, fetchOffset int64) (int64, bool) {
	switch {
	case leaderEnd == model.UndefinedEpochOffset:
		return fetchOffset, true
	case leaderEpoch == model.UndefinedEpoch:
		return min(leaderEnd, leo), true
	}
	fe, fend := c.EndOffsetFor(leaderEpoch, leo)
	switch {
	case fend == model.UndefinedEpochOffset:
		return min(leaderEnd, leo), true
	case fe != leaderEpoch:
		return min(fend, leo), false
	}
	return min(fend, leaderEnd, leo), true
}
