package broker

import (
	"time"

	"github.com/idemsim/idemsim/model"
)

// Quiet replication (docs/replication.md "Idle replication"): a world
// whose replication has nothing to do (every follower caught up and in
// the ISR, nothing waiting for it) carries it across a span where nothing
// else happens in one step, by moving its timers and messages later and
// its recorded times with them ([Broker.ShiftReplTimes]). These are the
// broker's parts of that.

// IsReplTimer reports whether token is one of a replicated broker's
// replication timers (heartbeat, ISR shrink check, leader deadline,
// fetcher timer), as opposed to its expiry check or a verification's
// timeout.
func IsReplTimer(token uint64) bool { return token&tokVerify == 0 && token&tokRepl != 0 }

// ReplQuiet reports whether the broker's own replication state is quiet:
// no acks=all answer held, no unclean restart still to report, every
// partition it leads quiet (no acks=all wait, no ISR change in flight,
// the ISR all replicas, every follower's last fetch at the log end and the
// high watermark there), and every partition it follows with a fetch in
// flight or parked at the leader. The world checks what spans brokers
// (each follower's log against its leader's, [Broker.Following]).
func (b *Broker) ReplQuiet() bool {
	if !b.Replicated() || len(b.pending) > 0 || b.uncleanRestart {
		return false
	}
	for _, r := range b.reps {
		if r == nil {
			continue
		}
		if r.ls.IsLeader() {
			if !r.ls.quiet() {
				return false
			}
			continue
		}
		if r.fet.State() != FetcherFetching {
			return false
		}
	}
	return true
}

// Following returns the leader and leader epoch that the broker's
// replica of partition id fetches from, and whether it is fetching
// (false also when the broker hosts no replica of id or leads it).
func (b *Broker) Following(id int32) (leader, epoch int32, fetching bool) {
	r := b.rep(id)
	if r == nil || r.fet.State() != FetcherFetching {
		return -1, -1, false
	}
	leader, epoch = r.fet.Leader()
	return leader, epoch, true
}

// LeaderRegistration returns the registration the broker applied as the
// leader of partition id, and false when it does not lead it.
func (b *Broker) LeaderRegistration(id int32) (model.PartitionState, bool) {
	r := b.rep(id)
	if r == nil || !r.ls.IsLeader() {
		return model.PartitionState{}, false
	}
	return r.ls.State(), true
}

// MetadataOffset returns the offset of the latest controller publication
// the broker applied.
func (b *Broker) MetadataOffset() int64 { return b.metaOffset }

// ShiftReplTimes moves every time the broker's replication recorded d
// later: the leader wake-ups it armed, its followers' last fetch and
// caught-up times, parked fetches' and acks=all waits' deadlines. The
// world moves the timers and messages themselves ([sim.Loop.Shift]);
// with both moved, the replication runs on exactly as it would have from
// where it was, d later.
func (b *Broker) ShiftReplTimes(d time.Duration) {
	for _, r := range b.reps {
		if r == nil {
			continue
		}
		if r.deadline >= 0 {
			r.deadline = r.deadline.Add(d)
		}
		r.ls.shiftTimes(d)
	}
}

// quiet reports whether the partition, if led, has nothing to do: no
// acks=all wait, no ISR change in flight, the committed ISR all replicas,
// the high watermark at the log end and every follower's last fetch
// there (so it stays caught up whatever the time, RS#isCaughtUp).
func (l *LeaderState) quiet() bool {
	if !l.leader || len(l.waits) > 0 || l.pending != isrCommitted ||
		len(l.st.ISR) != len(l.st.Replicas) || len(l.maximal) != len(l.st.ISR) {
		return false
	}
	leo := l.log.LogEndOffset()
	if l.log.HighWatermark() != leo {
		return false
	}
	for i := range l.remotes {
		if l.remotes[i].LogEndOffset != leo {
			return false
		}
	}
	return true
}

// shiftTimes moves the recorded times d later (never stays never).
func (l *LeaderState) shiftTimes(d time.Duration) {
	for i := range l.remotes {
		r := &l.remotes[i]
		if r.LastFetchTime != never {
			r.LastFetchTime = r.LastFetchTime.Add(d)
		}
		if r.LastCaughtUpTime != never {
			r.LastCaughtUpTime = r.LastCaughtUpTime.Add(d)
		}
	}
	for i := range l.parked {
		l.parked[i].deadline = l.parked[i].deadline.Add(d)
	}
	for i := range l.waits {
		l.waits[i].deadline = l.waits[i].deadline.Add(d)
	}
}

// HeartbeatInterval returns broker.heartbeat.interval.ms.
func (b *Broker) HeartbeatInterval() time.Duration { return b.heartbeatInterval() }
