package consumer

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// The consumer's lookup of its group coordinator, after the Java
// consumer's AbstractCoordinator (clients/src/main/java/org/apache/kafka/
// clients/consumer/internals/AbstractCoordinator.java), the same in every
// release the simulator has (3.0 to 4.1):
//
//   - a consumer with a group id that talks to its group coordinator (a
//     group member, or a consumer that commits or fetches committed
//     offsets) finds it with FindCoordinator (key type GROUP, the group
//     id) before its first request to it: ensureCoordinatorReady, which
//     ConsumerCoordinator.poll runs before a (re)join and
//     commitOffsetsSync and fetchCommittedOffsets before theirs;
//     lookupCoordinator sends it to NetworkClient.leastLoadedNode, and
//     FindCoordinatorResponseHandler keeps the answer;
//   - NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE in the answer to a
//     JoinGroup, SyncGroup, Heartbeat, OffsetCommit or OffsetFetch
//     (JoinGroupResponseHandler, SyncGroupResponseHandler,
//     HeartbeatResponseHandler, ConsumerCoordinator
//     .OffsetCommitResponseHandler, OffsetFetchResponseHandler), and the
//     break of the connection to the coordinator
//     (CoordinatorResponseHandler.onFailure with a DisconnectException),
//     forget the coordinator (markCoordinatorUnknown): the next request
//     to it waits for a new lookup; COORDINATOR_LOAD_IN_PROGRESS keeps
//     it, and the request is retried after retry.backoff.ms
//     (joinGroupIfNeeded's timer.sleep(retryBackoffMs), commitOffsetsSync,
//     fetchCommittedOffsets; the heartbeat thread's failHeartbeat);
//   - a failed FindCoordinator (COORDINATOR_NOT_AVAILABLE) is sent again
//     after retry.backoff.ms (ensureCoordinatorReady).
//
// The knowledge itself is the producer's kind ([model.CoordLookup]); the
// trace notes read as the producer's:
// "JoinGroup NOT_COORDINATOR: looking the group coordinator up again (was b1)".
//
// Simplified: the broker asked is chosen in turn (the first, then the next
// after each failed lookup), not as leastLoadedNode chooses; a heartbeat
// and an auto-commit that waited for the lookup go at the heartbeat
// thread's next turn (retry.backoff.ms) and the next poll turn;
// ensureCoordinatorReady's wait for a metadata update after a failed
// lookup is the retry.backoff.ms wait.

// lookups reports whether the consumer finds its group coordinator with
// FindCoordinator: it has a group id and talks to the coordinator (a
// group member, or one that commits or fetches committed offsets).
func (c *Consumer) lookups() bool {
	return c.cfg.GroupID != "" && (c.cfg.Commits || c.grouped())
}

// coordReady returns the tag for a request to the group coordinator and
// true when it is known (or the consumer does not look it up); otherwise
// it sends FindCoordinator if none is on the wire and returns false.
func (c *Consumer) coordReady(now sim.Time) (int32, bool) {
	if !c.lookups() {
		return 0, true
	}
	l := &c.coord
	if l.Known {
		return l.Tag, true
	}
	if !l.Due(now) {
		return 0, false
	}
	dest := l.Dest(c.cfg.Brokers, c.cfg.Leaders)
	l.Busy = true
	c.send(now, reqFind, dest, -1, &model.FindCoordinatorRequest{CorrelationID: c.corr(), KeyType: model.CoordKeyGroup, Key: c.cfg.GroupID})
	return 0, false
}

// found takes a FindCoordinator answer. Once the coordinator is known,
// what waited for it goes at once, as after ensureCoordinatorReady
// returns in the call that waited: the committed offsets' fetch, a
// commitSync's commit, a due (re)join.
func (c *Consumer) found(now sim.Time, m *model.FindCoordinatorResponse) {
	if !c.coord.Found(now, m, c.cfg.RetryBackoff) {
		c.note(model.NoteRetry, "FindCoordinator "+m.Err.String()+", retrying")
		return
	}
	if c.needOffsets && !c.pending(reqOffsets) && now >= c.offsetsAt {
		c.sendOffsetFetch(now)
	}
	stable := !c.grouped() || c.grp.state == memStable && !c.grp.rejoin
	if c.syncWait && !c.committing && stable && now >= c.commitAt {
		c.commit(now)
	}
	if c.grouped() && c.grp.rejoin && c.grp.state != memPreparing && c.grp.state != memCompleting && !c.grp.prepCommit && !c.grp.revoking && now >= c.grp.joinAt {
		c.joinPrepare(now)
	}
}

// coordAnswer handles a group coordinator's answer err to the request op:
// NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE forget the coordinator and
// send the lookup at once (markCoordinatorUnknown, then the next
// ensureCoordinatorReady). It reports whether err asks for the request
// again after retry.backoff.ms (those two and COORDINATOR_LOAD_IN_PROGRESS).
func (c *Consumer) coordAnswer(now sim.Time, op string, err model.ErrCode) bool {
	if !model.CoordMoved(err) {
		return err == model.ErrCoordinatorLoadInProgress
	}
	if !c.lookups() {
		return true
	}
	if was, known := c.coord.Forget(); known {
		c.note(model.NoteRetry, op+" "+err.String()+": looking the group coordinator up again (was "+string(model.AppendCoordName(nil, was, model.CoordKeyGroup))+")")
	}
	c.coordReady(now)
	return true
}

// coordDisconnected forgets the coordinator after its connection broke
// (CoordinatorResponseHandler.onFailure); the lookup goes with the next
// request to it.
func (c *Consumer) coordDisconnected() {
	if c.lookups() {
		c.coord.Forget()
	}
}

func (c *Consumer) note(k model.NoteKind, s string) {
	c.out = append(c.out, model.Out{Kind: model.OutNote, NoteKind: k, Note: s})
}
