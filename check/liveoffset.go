package check

import (
	"fmt"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// LiveOffset is a group member's progress past pending transactional
// offsets: a require_stable OffsetFetch is not answered
// UNSTABLE_OFFSET_COMMIT for longer than a bound (unstable.bound.ms).
// A new owner of a partition waits, by Kafka's design (KIP-447), until the
// transaction that holds the partition's pending offset ends: at the
// latest when its coordinator aborts it, transaction.timeout.ms after it
// began plus up to one abort cleanup interval. The default bound is that
// plus 5 s (params.Config.OffsetStallBound), so a stall past it is a
// transaction nothing ends.
const LiveOffset = "LIVE-OFFSET"

// liveOffset follows the group coordinators' answers to members'
// require_stable offset fetches ([model.ObsOffsets] "offset-fetch", Peer
// the member): a member's stall starts at its first
// UNSTABLE_OFFSET_COMMIT answer and ends at its next answer without
// error. A stall longer than the bound (at its end, or at the run's end)
// is reported once.
type liveOffset struct {
	bound  time.Duration
	names  []string
	lv     *logView
	stalls []offsetStall
	out    []Violation
}

// offsetStall is one member's open stall: since its first
// UNSTABLE_OFFSET_COMMIT answer, n answers so far.
type offsetStall struct {
	node  int32
	since sim.Time
	n     int64
}

func newLiveOffset() invariant { return &liveOffset{} }

func (l *liveOffset) reset(cfg Config, lv *logView) {
	l.bound, l.names, l.lv = cfg.UnstableBound, cfg.Names, lv
	if l.bound <= 0 {
		l.bound = 90 * time.Second
	}
	l.stalls, l.out = truncated(l.stalls), truncated(l.out)
}

func (l *liveOffset) Name() string { return LiveOffset }

func (l *liveOffset) reads() []model.ObsKind { return []model.ObsKind{model.ObsOffsets} }

func (l *liveOffset) Observe(o *model.Obs) {
	if o.Kind != model.ObsOffsets || o.Text != "offset-fetch" {
		return
	}
	i := 0
	for i < len(l.stalls) && l.stalls[i].node != o.Peer {
		i++
	}
	switch {
	case o.Err == model.ErrUnstableOffsetCommit && i == len(l.stalls):
		l.stalls = append(l.stalls, offsetStall{node: o.Peer, since: o.At, n: 1})
	case o.Err == model.ErrUnstableOffsetCommit:
		l.stalls[i].n++
	case i < len(l.stalls):
		l.judge(&l.stalls[i], o.At, "until its fetch succeeded")
		l.stalls = append(l.stalls[:i], l.stalls[i+1:]...)
	}
}

// judge reports s if it lasted longer than the bound until end.
func (l *liveOffset) judge(s *offsetStall, end sim.Time, how string) {
	if d := end.Sub(s.since); d > l.bound {
		name := fmt.Sprintf("node %d", s.node)
		if s.node >= 0 && int(s.node) < len(l.names) {
			name = l.names[s.node]
		}
		l.out = append(l.out, violation(LiveOffset, s.since, fmt.Sprintf("%s's require_stable offset fetches were answered UNSTABLE_OFFSET_COMMIT for %v (bound %v, %d answers) %s: a transaction held its group's pending offsets",
			name, d, l.bound, s.n, how)))
	}
}

func (l *liveOffset) Finish() []Violation {
	for i := range l.stalls {
		l.judge(&l.stalls[i], l.lv.end, "until the run's end")
	}
	return l.out
}
