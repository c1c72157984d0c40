package consumer

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// The consumer's side of a classic consumer group (Config.Protocol =
// ProtocolClassic), after apache/kafka's
// clients/src/main/java/org/apache/kafka/clients/consumer/internals/
// AbstractCoordinator.java (the membership: JoinGroup, SyncGroup, the
// heartbeat thread, LeaveGroup) and ConsumerCoordinator.java (the
// consumer's part: the assignment, the commits, onJoinPrepare and
// onJoinComplete). The consumer finds its group coordinator with
// FindCoordinator before it joins, and again after it moved
// (coordlookup.go).

// Member states (AbstractCoordinator.MemberState).
const (
	// memUnjoined: not in the group, or a rejoin is due.
	memUnjoined uint8 = iota
	// memPreparing: the JoinGroup is in flight (PREPARING_REBALANCE).
	memPreparing
	// memCompleting: the SyncGroup is in flight (COMPLETING_REBALANCE).
	memCompleting
	// memStable: the member holds its assignment (STABLE).
	memStable
)

// inputTopic names the subscribed topic in a JoinGroup: the world has one
// input topic, whose partitions Config.Leaders lists.
const inputTopic = "in"

// hbBit marks the heartbeat thread's timer tokens; the poll loop's
// tokens count up from 1 and never reach it.
const hbBit uint64 = 1 << 63

// member is the consumer's group membership.
type member struct {
	state uint8
	// memberID, generation and protocol are AbstractCoordinator
	// .generation; generation -1 (model.NoGeneration) is none.
	memberID   string
	generation int32
	protocol   string
	// genSeq counts the changes of the generation, so that a response
	// can tell whether the generation it was sent with is still the
	// current one (CoordinatorResponseHandler.generationUnchanged).
	genSeq uint64
	// rejoin is AbstractCoordinator.rejoinNeeded.
	rejoin bool
	// prepCommit: onJoinPrepare's auto-commit is in flight; the JoinGroup
	// waits for its answer.
	prepCommit bool
	// meta is ConsumerCoordinator.groupMetadata: set by onJoinComplete,
	// reset with the generation.
	meta model.GroupMetadata
	// lastPoll is when the application last polled (Heartbeat.pollTimer);
	// nextHeartbeat when the heartbeat thread sends the next heartbeat.
	lastPoll, nextHeartbeat sim.Time
	// hbToken is the heartbeat thread's current timer; hbOn: the thread
	// is enabled (between a JoinGroup answer and a reset).
	hbToken uint64
	hbOn    bool
	// muteUntil: the heartbeat thread is starved and sends nothing
	// before it ([Consumer.MuteHeartbeat]).
	muteUntil sim.Time
	// assignSeq counts the assignments, so that a committed-offsets
	// answer for an older one is dropped.
	assignSeq uint64
	// joinAt: no (re)join before it (a JoinGroup or SyncGroup refused
	// for the coordinator's move or load waits retry.backoff.ms,
	// joinGroupIfNeeded's timer.sleep(retryBackoffMs)).
	joinAt sim.Time
	// revoking: the application's onPartitionsRevoked runs
	// (Config.AppRevoke); the JoinGroup waits for [Consumer.Revoked].
	revoking bool
	// fatal is the error that ended the consumer (FENCED_INSTANCE_ID, or
	// a JoinGroup error Kafka treats as fatal); ErrNone while it runs.
	fatal model.ErrCode
	stats GroupStats
}

// GroupStats counts a group member's events.
type GroupStats struct {
	// Joins counts the JoinGroup requests, Syncs the assignments taken,
	// Heartbeats the heartbeats sent, Leaves the LeaveGroup requests.
	Joins, Syncs, Heartbeats, Leaves int
	// CommitsFailed counts the commits that failed on the group
	// (CommitFailedException or RebalanceInProgressException to the
	// application), sent or refused before sending.
	CommitsFailed int
	// Unstable counts the OffsetFetch answers UNSTABLE_OFFSET_COMMIT.
	Unstable int
}

func (c *Consumer) grouped() bool { return c.cfg.Protocol == ProtocolClassic }

// groupDefaults fills the group timeouts' defaults.
func groupDefaults(cfg *Config) {
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = 3 * time.Second
	}
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = 45 * time.Second
	}
	if cfg.MaxPollInterval <= 0 {
		cfg.MaxPollInterval = 300 * time.Second
	}
}

// GroupMetadata returns the consumer's group metadata
// (KafkaConsumer.groupMetadata, ConsumerCoordinator.groupMetadata): the
// member id and generation of its last completed join, and its group
// instance id; the zero value (no metadata) before any join, and
// generation -1 after the generation was reset.
func (c *Consumer) GroupMetadata() model.GroupMetadata { return c.grp.meta }

// Generation returns the consumer's current generation and member id
// (AbstractCoordinator.generation), and whether it is Stable.
func (c *Consumer) Generation() (gen int32, memberID string, stable bool) {
	return c.grp.generation, c.grp.memberID, c.grp.state == memStable
}

// Assigned returns the partitions the consumer holds, in order.
func (c *Consumer) Assigned() []int32 {
	out := make([]int32, 0, len(c.parts))
	for _, ps := range c.parts {
		out = append(out, ps.part)
	}
	return out
}

// Fatal returns the error that stopped the consumer, ErrNone if none.
func (c *Consumer) Fatal() model.ErrCode { return c.grp.fatal }

// Stats returns the group member's counters.
func (c *Consumer) Stats() GroupStats { return c.grp.stats }

// startGroup starts the membership: no assignment yet, a join is due
// (KafkaConsumer.subscribe, then the first poll).
func (c *Consumer) startGroup(now sim.Time) {
	hb := c.grp.hbToken
	c.grp = member{generation: model.NoGeneration, rejoin: true, lastPoll: now, hbToken: hb + 1}
	c.parts = c.parts[:0]
	c.offsets = c.offsets[:0]
	c.needOffsets = false
}

// setGeneration changes the generation.
func (c *Consumer) setGeneration(gen int32, memberID, protocol string) {
	c.grp.generation, c.grp.memberID, c.grp.protocol = gen, memberID, protocol
	c.grp.genSeq++
}

// resetGeneration is AbstractCoordinator.resetStateAndRejoin: the state
// goes back to UNJOINED, the generation to none (the member id too if
// resetMember), a rejoin is due; the heartbeat thread stops.
func (c *Consumer) resetGeneration(resetMember bool) {
	id := c.grp.memberID
	if resetMember {
		id = ""
	}
	c.setGeneration(model.NoGeneration, id, "")
	c.grp.state = memUnjoined
	c.grp.rejoin = true
	c.grp.hbOn = false
	if !c.grp.meta.None() {
		c.grp.meta.GenerationID = model.NoGeneration
		c.grp.meta.MemberID = id
	}
}

// groupPoll is ConsumerCoordinator.poll, run at the start of each poll
// turn: it records the poll (Heartbeat.poll) and starts a rejoin that is
// due (AbstractCoordinator.joinGroupIfNeeded). It reports whether the
// consumer may return records and fetch (the member is Stable and no
// rejoin is pending).
func (c *Consumer) groupPoll(now sim.Time) bool {
	c.grp.lastPoll = now
	if c.grp.rejoin && c.grp.state != memPreparing && c.grp.state != memCompleting && !c.grp.prepCommit && !c.grp.revoking && now >= c.grp.joinAt {
		// ConsumerCoordinator.poll: coordinatorUnknownAndUnreadySync
		// first; a rejoin waits for the lookup.
		if _, ok := c.coordReady(now); ok {
			c.joinPrepare(now)
		}
	}
	return c.grp.state == memStable && !c.grp.rejoin
}

// joinPrepare is ConsumerCoordinator.onJoinPrepare: with auto-commit
// and a generation still valid, the positions are committed first and
// the JoinGroup waits for the answer; then every partition is revoked
// (the eager protocol: onPartitionsRevoked, or onPartitionsLost when
// the generation was reset) and its position dropped; then the
// JoinGroup goes (AbstractCoordinator.initiateJoinGroup).
func (c *Consumer) joinPrepare(now sim.Time) {
	if c.cfg.AutoCommit && c.cfg.Commits && c.grp.state == memStable && c.grp.generation != model.NoGeneration && len(c.parts) > 0 && !c.committing {
		c.commit(now)
		if c.committing {
			c.grp.prepCommit = true
			return
		}
	}
	if c.cfg.AppRevoke && len(c.parts) > 0 {
		// ConsumerCoordinator.onJoinPrepare calls the application's
		// onPartitionsRevoked (or onPartitionsLost) before the JoinGroup.
		c.grp.revoking = true
		return
	}
	c.revokeAll()
	c.sendJoin(now)
}

// Revoking reports whether the consumer waits for the application's
// onPartitionsRevoked (Config.AppRevoke) before it rejoins.
func (c *Consumer) Revoking() bool { return c.grp.revoking }

// Revoked ends the application's onPartitionsRevoked: the partitions are
// revoked and the JoinGroup goes.
func (c *Consumer) Revoked(now sim.Time) []model.Out {
	c.begin()
	if c.grp.revoking && c.running {
		c.grp.revoking = false
		c.revokeAll()
		c.sendJoin(now)
	}
	c.flushObs()
	return c.out
}

// Rewind seeks every assigned partition to the group's committed offset
// (the application's resetToLastCommittedPositions after
// abortTransaction: consumer.committed(consumer.assignment()), an
// OffsetFetch, then seek; apache/kafka examples/src/main/java/kafka/
// examples/ExactlyOnceMessageProcessor.java): positions and buffered
// records go, and no record is returned until the fetch is answered.
func (c *Consumer) Rewind(now sim.Time) []model.Out {
	c.begin()
	if c.running && c.cfg.Commits && len(c.parts) > 0 {
		for i := range c.parts {
			ps := &c.parts[i]
			ps.state, ps.position = stInit, -1
			ps.buf.reset()
		}
		c.grp.assignSeq++ // an OffsetFetch in flight is for the old positions
		for i := range c.inflight {
			if c.inflight[i].kind == reqFetch {
				c.inflight[i].part = -1
			}
		}
		for i := range c.parts {
			c.parts[i].busy = false
		}
		c.needOffsets = true
	}
	c.flushObs()
	return c.out
}

// Grouped reports whether the consumer is a group member (Config.Protocol).
func (c *Consumer) Grouped() bool { return c.grouped() }

// revokeAll drops the assignment and its positions.
func (c *Consumer) revokeAll() {
	c.parts = c.parts[:0]
	c.offsets = c.offsets[:0]
	c.needOffsets = false
	c.held, c.syncWait = false, false
	c.rr = 0
	c.grp.assignSeq++
	for i := range c.inflight {
		c.inflight[i].part = -1
	}
}

// sendJoin sends the JoinGroup (AbstractCoordinator.sendJoinGroupRequest):
// its client-side timeout is the rebalance timeout plus 5 s, at least
// request.timeout.ms.
func (c *Consumer) sendJoin(now sim.Time) {
	tag, ok := c.coordReady(now)
	if !ok {
		c.grp.state, c.grp.rejoin = memUnjoined, true // after the lookup
		return
	}
	c.grp.state = memPreparing
	c.grp.stats.Joins++
	m := &model.JoinGroupRequest{CorrelationID: c.corr(), GroupID: c.cfg.GroupID, MemberID: c.grp.memberID, GroupInstanceID: c.cfg.GroupInstanceID,
		ClientID: c.cfg.ClientID, Protocols: []string{model.RangeAssignorName}, Topics: []string{inputTopic},
		SessionTimeout: c.cfg.SessionTimeout, RebalanceTimeout: c.cfg.MaxPollInterval, Coord: tag}
	c.send(now, reqJoin, model.DestGroupCoordinator, -1, m)
	c.inflight[len(c.inflight)-1].deadline = now.Add(max(c.cfg.RequestTimeout, c.cfg.MaxPollInterval+5*time.Second))
	c.inflight[len(c.inflight)-1].seq = c.grp.genSeq
}

// joined handles the JoinGroup answer (JoinGroupResponseHandler.handle).
func (c *Consumer) joined(now sim.Time, r request, m *model.JoinGroupResponse) {
	if c.grp.state != memPreparing {
		return
	}
	c.grp.state = memUnjoined
	switch m.Err {
	case model.ErrNone:
		tag, ok := c.coordReady(now)
		if !ok {
			c.grp.rejoin = true // the coordinator was forgotten meanwhile
			return
		}
		c.grp.state = memCompleting
		c.setGeneration(m.GenerationID, m.MemberID, m.ProtocolName)
		c.enableHeartbeat(now)
		sync := &model.SyncGroupRequest{CorrelationID: c.corr(), GroupID: c.cfg.GroupID, ProtocolName: m.ProtocolName, Coord: tag,
			GroupMetadata: model.GroupMetadata{MemberID: m.MemberID, GroupInstanceID: c.cfg.GroupInstanceID, GenerationID: m.GenerationID}}
		if m.Leader == m.MemberID && !m.SkipAssignment {
			// onLeaderElected: ConsumerCoordinator.onLeaderElected runs
			// the assignor (RangeAssignor) over the members'
			// subscriptions.
			n := int32(len(c.cfg.Leaders))
			if c.cfg.TopicPartitions != nil {
				n = int32(len(c.cfg.TopicPartitions))
			}
			sync.Assignments = model.RangeAssign(m.Members, n)
			if c.cfg.TopicPartitions != nil {
				for _, a := range sync.Assignments {
					for i, p := range a.Partitions {
						a.Partitions[i] = c.cfg.TopicPartitions[p]
					}
				}
			}
		}
		c.send(now, reqSync, model.DestGroupCoordinator, -1, sync)
		c.inflight[len(c.inflight)-1].seq = c.grp.genSeq
	case model.ErrMemberIDRequired:
		// Rejoin at once with the given member id (KIP-394).
		c.setGeneration(model.NoGeneration, m.MemberID, "")
		c.sendJoin(now)
	case model.ErrUnknownMemberID:
		if r.seq == c.grp.genSeq {
			c.resetGeneration(true)
		}
		c.sendJoin(now)
	case model.ErrRebalanceInProgress:
		// joinGroupIfNeeded retries this one at once too.
		c.sendJoin(now)
	case model.ErrFencedInstanceID, model.ErrInconsistentGroupProtocol, model.ErrInvalidSessionTimeout:
		c.fail(m.Err)
	default:
		// COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR,
		// COORDINATOR_LOAD_IN_PROGRESS (after retry.backoff.ms), ...:
		// retry at the next poll turn.
		c.grp.rejoin = true
		if c.coordAnswer(now, "JoinGroup", m.Err) {
			c.grp.joinAt = now.Add(c.cfg.RetryBackoff)
		}
	}
}

// synced handles the SyncGroup answer (SyncGroupResponseHandler.handle,
// then ConsumerCoordinator.onJoinComplete).
func (c *Consumer) synced(now sim.Time, r request, m *model.SyncGroupResponse) {
	if c.grp.state != memCompleting {
		return
	}
	switch m.Err {
	case model.ErrNone:
		c.grp.state = memStable
		c.grp.rejoin = false
		c.grp.stats.Syncs++
		c.grp.meta = model.GroupMetadata{MemberID: c.grp.memberID, GroupInstanceID: c.cfg.GroupInstanceID, GenerationID: c.grp.generation}
		c.assign(now, m.Partitions)
	case model.ErrFencedInstanceID:
		c.fail(m.Err)
	case model.ErrUnknownMemberID, model.ErrIllegalGeneration:
		if r.seq == c.grp.genSeq {
			c.resetGeneration(m.Err != model.ErrIllegalGeneration)
		}
		c.grp.state, c.grp.rejoin = memUnjoined, true
	default:
		// REBALANCE_IN_PROGRESS and the rest: rejoin; after the
		// coordinator's move or load, after retry.backoff.ms.
		c.grp.state, c.grp.rejoin = memUnjoined, true
		if c.coordAnswer(now, "SyncGroup", m.Err) {
			c.grp.joinAt = now.Add(c.cfg.RetryBackoff)
		}
	}
}

// assign takes the assignment (onJoinComplete: SubscriptionState
// .assignFromSubscribed): the partitions' positions come from the
// committed offsets (OffsetFetch) or auto.offset.reset; the auto-commit
// timer restarts.
func (c *Consumer) assign(now sim.Time, parts []int32) {
	c.revokeAll()
	sorted := slices.Clone(parts)
	slices.Sort(sorted)
	for _, p := range sorted {
		st := stReset
		if c.cfg.Commits {
			st = stInit
		}
		c.parts = append(c.parts, partState{part: p, state: st, position: -1, hw: -1, lso: -1})
		c.offsets = append(c.offsets, -1)
	}
	c.needOffsets = c.cfg.Commits && len(c.parts) > 0
	c.nextAutoCommit = now.Add(c.cfg.AutoCommitInterval)
	c.lastChange = now
}

// fail ends the consumer with a fatal group error: the application's
// poll throws, and the consumer stops.
func (c *Consumer) fail(e model.ErrCode) {
	c.grp.fatal = e
	c.grp.hbOn = false
	c.running = false
	c.pollToken++
}

// enableHeartbeat starts the heartbeat thread (HeartbeatThread.enable,
// Heartbeat.resetTimeouts): the first heartbeat is due one interval on.
func (c *Consumer) enableHeartbeat(now sim.Time) {
	c.grp.hbOn = true
	c.grp.nextHeartbeat = now.Add(c.cfg.HeartbeatInterval)
	c.scheduleHeartbeat()
}

// scheduleHeartbeat asks for the heartbeat thread's next wake-up: the
// next heartbeat, or the end of the poll interval if sooner.
func (c *Consumer) scheduleHeartbeat() {
	c.grp.hbToken++
	at := max(min(c.grp.nextHeartbeat, c.grp.lastPoll.Add(c.cfg.MaxPollInterval)), c.grp.muteUntil)
	c.out = append(c.out, model.Out{Kind: model.OutWake, At: at, Timer: hbBit | c.grp.hbToken})
}

// heartbeatWake is one turn of the heartbeat thread (HeartbeatThread
// .run): disabled outside COMPLETING_REBALANCE and STABLE; a poll
// timeout (no poll for max.poll.interval.ms, Heartbeat.pollTimeoutExpired)
// leaves the group (handlePollTimeoutExpiry); else a heartbeat every
// heartbeat.interval.ms.
func (c *Consumer) heartbeatWake(now sim.Time, token uint64) {
	if token != hbBit|c.grp.hbToken || !c.grp.hbOn {
		return
	}
	if c.grp.state != memCompleting && c.grp.state != memStable {
		c.grp.hbOn = false
		return
	}
	if now < c.grp.muteUntil {
		c.scheduleHeartbeat() // starved: it wakes at the mute's end
		return
	}
	if now >= c.grp.lastPoll.Add(c.cfg.MaxPollInterval) {
		c.leaveGroup(now)
		return
	}
	if now >= c.grp.nextHeartbeat {
		if tag, ok := c.coordReady(now); !ok {
			// HeartbeatThread.run: coordinatorUnknown, lookupCoordinator,
			// then a wait of retry.backoff.ms.
			c.grp.nextHeartbeat = now.Add(c.cfg.RetryBackoff)
		} else {
			c.grp.nextHeartbeat = now.Add(c.cfg.HeartbeatInterval)
			c.grp.stats.Heartbeats++
			c.send(now, reqHeartbeat, model.DestGroupCoordinator, -1, &model.HeartbeatRequest{CorrelationID: c.corr(), GroupID: c.cfg.GroupID,
				GroupMetadata: model.GroupMetadata{MemberID: c.grp.memberID, GroupInstanceID: c.cfg.GroupInstanceID, GenerationID: c.grp.generation}, Coord: tag})
			c.inflight[len(c.inflight)-1].seq = c.grp.genSeq
		}
	}
	c.scheduleHeartbeat()
}

// heartbeatAnswered handles a heartbeat's answer
// (HeartbeatResponseHandler.handle): REBALANCE_IN_PROGRESS asks a Stable
// member to rejoin; ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID and
// FENCED_INSTANCE_ID for the current generation reset it (the member id
// too, except for ILLEGAL_GENERATION) and ask for a rejoin;
// FENCED_INSTANCE_ID is then fatal (HeartbeatThread.run's failure).
func (c *Consumer) heartbeatAnswered(now sim.Time, r request, m *model.HeartbeatResponse) {
	if c.coordAnswer(now, "Heartbeat", m.Err) && c.grp.hbOn {
		// Heartbeat.failHeartbeat: the next one after retry.backoff.ms.
		c.grp.nextHeartbeat = min(c.grp.nextHeartbeat, now.Add(c.cfg.RetryBackoff))
		c.scheduleHeartbeat()
	}
	switch m.Err {
	case model.ErrRebalanceInProgress:
		if c.grp.state == memStable {
			c.grp.rejoin = true
		}
	case model.ErrIllegalGeneration, model.ErrUnknownMemberID, model.ErrFencedInstanceID:
		if r.seq == c.grp.genSeq {
			c.resetGeneration(m.Err != model.ErrIllegalGeneration)
			if m.Err == model.ErrFencedInstanceID {
				c.fail(m.Err)
			}
		}
	}
}

// leaveGroup is AbstractCoordinator.maybeLeaveGroup on a poll timeout: a
// dynamic member with a member id sends LeaveGroup (once, unanswered
// errors ignored); a static member does not, its session ends instead.
// Either way the generation and member id are reset and a rejoin is due
// at the next poll (resetGenerationOnLeaveGroup).
func (c *Consumer) leaveGroup(now sim.Time) {
	if c.cfg.GroupInstanceID == "" && c.grp.state != memUnjoined && c.grp.memberID != "" && (c.coord.Known || !c.lookups()) {
		c.grp.stats.Leaves++
		c.send(now, reqLeave, model.DestGroupCoordinator, -1, &model.LeaveGroupRequest{CorrelationID: c.corr(), GroupID: c.cfg.GroupID, MemberID: c.grp.memberID,
			Coord: c.coord.Tag})
	}
	c.resetGeneration(true)
}

// groupMetadataForCommit is the generation an OffsetCommit carries
// (ConsumerCoordinator.sendOffsetCommitRequest: generationIfStable); ok
// is false when the member is not Stable: the commit fails at once.
func (c *Consumer) groupMetadataForCommit() (model.GroupMetadata, bool) {
	if c.grp.state != memStable {
		return model.GroupMetadata{}, false
	}
	return model.GroupMetadata{MemberID: c.grp.memberID, GroupInstanceID: c.cfg.GroupInstanceID, GenerationID: c.grp.generation}, true
}

// groupCommitted handles a member's commit answer
// (OffsetCommitResponseHandler.handle); it reports whether the commit
// failed for good (the application's commitSync throws): REBALANCE_IN_PROGRESS
// asks for a rejoin (RebalanceInProgressException); UNKNOWN_MEMBER_ID and
// ILLEGAL_GENERATION reset the generation (the member id for
// UNKNOWN_MEMBER_ID) and ask for a rejoin (CommitFailedException),
// unless the generation changed meanwhile and a rebalance is under way.
func (c *Consumer) groupCommitted(r request, e model.ErrCode) bool {
	switch e {
	case model.ErrRebalanceInProgress:
		c.grp.rejoin = true
	case model.ErrUnknownMemberID, model.ErrIllegalGeneration:
		if !(r.seq != c.grp.genSeq && c.grp.state == memPreparing) {
			c.resetGeneration(e != model.ErrIllegalGeneration)
		}
	default:
		return false
	}
	c.grp.stats.CommitsFailed++
	return true
}

// groupFailDest handles a broken connection to the group coordinator for
// the group's requests: a JoinGroup or SyncGroup in flight is retried
// with a rejoin at the next poll turn.
func (c *Consumer) groupFailDest(k reqKind) {
	if (k == reqJoin && c.grp.state == memPreparing) || (k == reqSync && c.grp.state == memCompleting) {
		c.grp.state, c.grp.rejoin = memUnjoined, true
	}
}

// Process is the application's processing step: its next poll is d from
// now (after the records of the last poll are processed). The heartbeat
// thread goes on meanwhile; a step longer than max.poll.interval.ms
// makes the member leave the group.
func (c *Consumer) Process(now sim.Time, d time.Duration) []model.Out {
	c.begin()
	if c.running {
		c.pollToken++
		c.out = append(c.out, model.Out{Kind: model.OutWake, At: now.Add(d), Timer: c.pollToken, Owed: true})
	}
	c.flushObs()
	return c.out
}

// MuteHeartbeat starves the heartbeat thread until until: it sends no
// heartbeat (and does not check the poll timer) before then, while the
// application polls, sends and commits on. The group coordinator removes
// the member once session.timeout.ms passes without a heartbeat (or a
// join or sync); the member learns it from the answer to its next
// heartbeat or commit (UNKNOWN_MEMBER_ID, or ILLEGAL_GENERATION after a
// rebalance without it: heartbeatAnswered, groupCommitted, and for a
// transactional commit the producer's TxnOffsetCommit), resets its
// generation and rejoins at its next poll. A heartbeat due meanwhile goes
// at the mute's end (HeartbeatThread.run then finds it due). A crash ends
// the mute (startGroup).
func (c *Consumer) MuteHeartbeat(until sim.Time) {
	c.grp.muteUntil = max(c.grp.muteUntil, until)
}
