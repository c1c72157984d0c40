package tally

import (
	"time"

	"github.com/idemsim/idemsim/model"
)

// OffsetStall measures how long group members stay stuck on
// UNSTABLE_OFFSET_COMMIT: a member's stall starts at the first
// require_stable OffsetFetch the group coordinator answers
// UNSTABLE_OFFSET_COMMIT and ends at the next one it answers without
// error (a new owner of a partition that an open transaction's
// TxnOffsetCommit left pending: KIP-447). Max is the longest stall that
// ended, Total the sum of them, both simulated time (>= 0); a stall
// still open at the run's end is in neither (LIVE-OFFSET judges it).
type OffsetStall struct {
	// since holds each stalled member's stall start, by node id; its
	// entries are few (one per member) and looked up, never ranged over.
	since      []stallStart
	Max, Total time.Duration
	// N counts the stalls that ended.
	N int64
}

type stallStart struct {
	node int32
	at   int64 // simulated ns (model.Obs.At)
}

// Observe follows o, a group coordinator's model.ObsOffsets
// "offset-fetch" answer to member o.Peer.
func (s *OffsetStall) Observe(o *model.Obs) {
	if o.Text != "offset-fetch" {
		return
	}
	i := 0
	for i < len(s.since) && s.since[i].node != o.Peer {
		i++
	}
	switch {
	case o.Err == model.ErrUnstableOffsetCommit:
		if i == len(s.since) {
			s.since = append(s.since, stallStart{node: o.Peer, at: int64(o.At)})
		}
	case o.Err == model.ErrNone && i < len(s.since):
		d := time.Duration(int64(o.At) - s.since[i].at)
		s.Max, s.Total, s.N = max(s.Max, d), s.Total+d, s.N+1
		s.since = append(s.since[:i], s.since[i+1:]...)
	}
}

// MaxMillis is Max in whole milliseconds, rounded down.
func (s *OffsetStall) MaxMillis() int64 { return int64(s.Max) / 1e6 }
