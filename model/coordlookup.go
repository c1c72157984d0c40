package model

import (
	"strconv"
	"time"

	"github.com/idemsim/idemsim/sim"
)

// CoordLookup is a client's knowledge of one coordinator, found with
// FindCoordinator: the producer's transaction and group coordinators
// (model/client, after TransactionManager.lookupCoordinator) and a
// consumer's group coordinator (model/consumer, after
// AbstractCoordinator.lookupCoordinator). The client owns the requests;
// CoordLookup keeps what the answers taught it. The zero value knows
// nothing and has nothing on the wire.
type CoordLookup struct {
	// Known: an answer is in hand; Tag is its [CoordTag], stamped on the
	// requests to that coordinator.
	Known bool
	Tag   int32
	// Busy: a FindCoordinator is on the wire; RetryAt is when a failed
	// one may be sent again; Tries counts the failed ones (they move the
	// lookup to the next broker, [CoordLookup.Dest]).
	Busy    bool
	RetryAt sim.Time
	Tries   int32
}

// Due reports whether a FindCoordinator should be sent at now: the
// coordinator is not known, none is on the wire, and a failed one's
// backoff has passed.
func (l *CoordLookup) Due(now sim.Time) bool {
	return !l.Known && !l.Busy && now >= l.RetryAt
}

// Dest is the broker index the next lookup goes to: the first, then the
// next after each failed lookup, among brokers brokers, or among the
// partition leaders leaders when brokers is 0 (a world whose clients
// know no broker count). Kafka sends it to NetworkClient.leastLoadedNode.
func (l *CoordLookup) Dest(brokers int, leaders []int32) int32 {
	if n := int32(brokers); n > 0 {
		return l.Tries % n
	}
	if len(leaders) == 0 {
		return 0
	}
	return leaders[int(l.Tries)%len(leaders)]
}

// Found takes a FindCoordinator answer r at now: with NONE the
// coordinator is known; an error (COORDINATOR_NOT_AVAILABLE) counts a
// failed lookup, sent again after backoff (retry.backoff.ms). It reports
// whether the coordinator is known.
func (l *CoordLookup) Found(now sim.Time, r *FindCoordinatorResponse, backoff time.Duration) bool {
	l.Busy = false
	if r.Err == ErrNone {
		l.Known, l.Tag = true, CoordTag(r.Node)
		return true
	}
	l.Tries++
	l.RetryAt = now.Add(backoff)
	return false
}

// LostFind forgets a FindCoordinator lost with its connection: the next
// lookup asks the next broker.
func (l *CoordLookup) LostFind() {
	l.Busy = false
	l.Tries++
}

// Forget forgets the coordinator (AbstractCoordinator
// .markCoordinatorUnknown, TransactionManager.lookupCoordinator) and
// returns the tag it had and whether it was known.
func (l *CoordLookup) Forget() (tag int32, known bool) {
	tag, known = l.Tag, l.Known
	l.Known = false
	return tag, known
}

// CoordMoved reports whether a coordinator's answer err says that it
// is not (or no longer) the coordinator, so that the client looks it up
// again: NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE.
func CoordMoved(err ErrCode) bool {
	return err == ErrNotCoordinator || err == ErrCoordinatorNotAvailable
}

// AppendCoordName appends the node a tag of key type t stands for, as
// the trace names it: b2 for a broker, else c1 or g1.
func AppendCoordName(b []byte, tag int32, t CoordKeyType) []byte {
	switch {
	case tag > 0:
		return strconv.AppendInt(append(b, 'b'), int64(tag), 10)
	case t == CoordKeyGroup:
		return append(b, "g1"...)
	}
	return append(b, "c1"...)
}
