package coordinator

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Classic consumer-group membership at the group coordinator, after
// apache/kafka 4.0's group-coordinator/src/main/java/org/apache/kafka/
// coordinator/group/classic/ClassicGroup.java (the group: members,
// generation, leader, state) and GroupMetadataManager.java (the
// protocol: classicGroupJoin, classicGroupSync, classicGroupHeartbeat,
// classicGroupLeave and their timers). Method names in the comments below
// are those classes' unless said otherwise.
//
// What is simplified: one protocol type (consumer); no group.max.size,
// no KIP-848
// consumer protocol; member ids are the client id (or group instance id)
// and a counter instead of a UUID; the group metadata record is "written"
// at once (no append that can fail).

// GroupState is a classic group's state (ClassicGroupState).
type GroupState uint8

// The classic group states.
const (
	GroupEmpty GroupState = iota
	GroupPreparingRebalance
	GroupCompletingRebalance
	GroupStable
	GroupDead
)

var groupStateNames = [...]string{"Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"}

func (s GroupState) String() string { return groupStateNames[s] }

// never is the time of a timer that is not set.
const never = sim.Time(math.MaxInt64)

// NewMemberJoinTimeout is classic.group.new.member.join.timeout.ms
// (GroupCoordinatorConfig, 5 minutes): how long a new member's JoinGroup
// may wait for the join phase before the member is dropped.
const NewMemberJoinTimeout = 5 * time.Minute

// GroupConfig is the group coordinator's configuration of classic groups.
type GroupConfig struct {
	// InitialRebalanceDelay is group.initial.rebalance.delay.ms (Kafka's
	// default 3 s): the join phase of a group's first rebalance (from
	// Empty) waits that long, extended while new members come, up to
	// the rebalance timeout. 0 completes it at the first wake-up.
	InitialRebalanceDelay time.Duration
	// MinSessionTimeout and MaxSessionTimeout are
	// group.min.session.timeout.ms and group.max.session.timeout.ms; 0
	// stands for Kafka's defaults, 6 s and 30 minutes.
	MinSessionTimeout, MaxSessionTimeout time.Duration
}

// sessionBounds returns the session timeouts a JoinGroup may ask for.
func (cfg GroupConfig) sessionBounds() (lo, hi time.Duration) {
	lo, hi = cfg.MinSessionTimeout, cfg.MaxSessionTimeout
	if lo <= 0 {
		lo = 6 * time.Second
	}
	if hi <= 0 {
		hi = 30 * time.Minute
	}
	return lo, hi
}

// groupMember is a ClassicGroupMember.
type groupMember struct {
	id, instance, clientID string
	protocols, topics      []string
	session, rebalance     time.Duration
	// hbAt is when the member's session expires (the heartbeat timer),
	// never when no timer is set.
	hbAt sim.Time
	// isNew marks a member whose first join has not completed.
	isNew bool
	// joining: the member awaits its JoinGroup answer (joinFrom,
	// joinCorr); syncing: its SyncGroup answer.
	joining, syncing   bool
	joinFrom, syncFrom model.Peer
	joinCorr, syncCorr int64
	pendingSync        bool
	assignment         []int32
}

// pendingJoin is a member id given with MEMBER_ID_REQUIRED whose owner
// has not joined with it yet (ClassicGroup.pendingJoinMembers), and its
// heartbeat timer.
type pendingJoin struct {
	id string
	at sim.Time
}

// classicGroup is a ClassicGroup.
type classicGroup struct {
	id          string
	state, prev GroupState
	generation  int32
	protocol    string
	leader      string
	// members, sorted by member id.
	members []*groupMember
	pending []pendingJoin
	// joinAt is the join phase's timer; initial marks the initial
	// rebalance's delayed join (tryCompleteInitialRebalanceElseSchedule)
	// with its delay and remaining time.
	joinAt           sim.Time
	initial          bool
	delay, remaining time.Duration
	// syncAt is the pending-sync timer (expirePendingSync).
	syncAt         sim.Time
	newMemberAdded bool
	// stored is the group as last written to __consumer_offsets (its
	// GroupMetadata record): what a coordinator failover loads.
	stored storedGroup
}

// storedGroup is a classic group's GroupMetadata record.
type storedGroup struct {
	generation       int32
	protocol, leader string
	members          []groupMember
}

func newClassicGroup(id string) *classicGroup {
	return &classicGroup{id: id, prev: GroupDead, joinAt: never, syncAt: never}
}

func (c *classicGroup) transition(s GroupState) { c.prev, c.state = c.state, s }

func (c *classicGroup) member(id string) *groupMember {
	i, ok := slices.BinarySearchFunc(c.members, id, func(m *groupMember, id string) int { return cmp.Compare(m.id, id) })
	if !ok {
		return nil
	}
	return c.members[i]
}

func (c *classicGroup) staticMember(instance string) *groupMember {
	for _, m := range c.members {
		if m.instance == instance {
			return m
		}
	}
	return nil
}

func (c *classicGroup) isPending(id string) bool {
	for _, p := range c.pending {
		if p.id == id {
			return true
		}
	}
	return false
}

func (c *classicGroup) removePending(id string) {
	c.pending = slices.DeleteFunc(c.pending, func(p pendingJoin) bool { return p.id == id })
}

func (c *classicGroup) sortMembers() {
	slices.SortFunc(c.members, func(a, b *groupMember) int { return cmp.Compare(a.id, b.id) })
}

// add is ClassicGroup.add: the first member is the leader.
func (c *classicGroup) add(m *groupMember) {
	if c.leader == "" {
		c.leader = m.id
	}
	c.members = append(c.members, m)
	c.sortMembers()
	c.removePending(m.id)
}

// remove is ClassicGroup.remove: a removed leader is replaced by the
// first member (by member id; Kafka takes its map's first).
func (c *classicGroup) remove(id string) *groupMember {
	i := slices.IndexFunc(c.members, func(m *groupMember) bool { return m.id == id })
	var m *groupMember
	if i >= 0 {
		m = c.members[i]
		c.members = slices.Delete(c.members, i, i+1)
	}
	if c.leader == id {
		c.leader = ""
		if len(c.members) > 0 {
			c.leader = c.members[0].id
		}
	}
	c.removePending(id)
	return m
}

// hasAllJoined is ClassicGroup.hasAllMembersJoined.
func (c *classicGroup) hasAllJoined() bool {
	for _, m := range c.members {
		if !m.joining {
			return false
		}
	}
	return len(c.pending) == 0
}

// rebalanceTimeout is ClassicGroup.rebalanceTimeoutMs: the members' largest.
func (c *classicGroup) rebalanceTimeout() time.Duration {
	var d time.Duration
	for _, m := range c.members {
		d = max(d, m.rebalance)
	}
	return d
}

// supports is ClassicGroup.supportsProtocols: an empty group takes any
// non-empty list, else one of the protocols must be every member's.
func (c *classicGroup) supports(protocols []string) bool {
	if len(c.members) == 0 {
		return len(protocols) > 0
	}
	for _, p := range protocols {
		if c.allSupport(p) {
			return true
		}
	}
	return false
}

func (c *classicGroup) allSupport(p string) bool {
	for _, m := range c.members {
		if !slices.Contains(m.protocols, p) {
			return false
		}
	}
	return true
}

// selectProtocol is ClassicGroup.selectProtocol: each member votes for
// its first protocol that all members support; the most votes win (a tie
// goes to the smallest name; Kafka's goes to its map's order).
func (c *classicGroup) selectProtocol() string {
	best, votes := "", 0
	for _, m := range c.members {
		var vote string
		for _, p := range m.protocols {
			if c.allSupport(p) {
				vote = p
				break
			}
		}
		n := 0
		for _, o := range c.members {
			for _, p := range o.protocols {
				if c.allSupport(p) {
					if p == vote {
						n++
					}
					break
				}
			}
		}
		if n > votes || (n == votes && vote < best) {
			best, votes = vote, n
		}
	}
	return best
}

// store writes the group's GroupMetadata record.
func (c *classicGroup) store() {
	c.stored.generation, c.stored.protocol, c.stored.leader = c.generation, c.protocol, c.leader
	c.stored.members = c.stored.members[:0]
	for _, m := range c.members {
		c.stored.members = append(c.stored.members, groupMember{id: m.id, instance: m.instance, clientID: m.clientID, protocols: m.protocols, topics: m.topics,
			session: m.session, rebalance: m.rebalance, assignment: m.assignment})
	}
}

// load makes the group its stored record, as a coordinator loading
// __consumer_offsets does (ClassicGroup.fromRecord: Stable with members,
// else Empty), with every member's session starting at now
// (GroupMetadataManager.onLoaded). It reports whether the group exists.
func (c *classicGroup) load(now sim.Time) bool {
	st := c.stored
	if st.generation == 0 && len(st.members) == 0 {
		return false
	}
	*c = classicGroup{id: c.id, state: GroupEmpty, prev: GroupDead, generation: st.generation, protocol: st.protocol, leader: st.leader, joinAt: never, syncAt: never,
		members: c.members[:0], stored: st}
	for i := range st.members {
		m := st.members[i]
		m.hbAt = now.Add(m.session)
		c.members = append(c.members, &m)
	}
	if len(c.members) > 0 {
		c.state = GroupStable
	}
	return true
}

// groupOf returns the group with id, creating it (Empty) when create is
// set, else nil when there is none.
func (g *GroupCoordinator) groupOf(id string, create bool) *classicGroup {
	if c := g.groups[id]; c != nil || !create {
		return c
	}
	c := newClassicGroup(id)
	g.groups[id] = c
	i, _ := slices.BinarySearch(g.groupIDs, id)
	g.groupIDs = slices.Insert(g.groupIDs, i, id)
	return c
}

// joinGroup is classicGroupJoin (classicGroupJoinToClassicGroup): a
// session timeout out of bounds is INVALID_SESSION_TIMEOUT; a rebalance
// timeout of 0 (JoinGroup v0's -1) is the session timeout.
func (g *GroupCoordinator) joinGroup(now sim.Time, from model.Peer, m *model.JoinGroupRequest) {
	if lo, hi := g.cfg.sessionBounds(); m.SessionTimeout < lo || m.SessionTimeout > hi {
		g.joinError(from, m, model.ErrInvalidSessionTimeout)
		return
	}
	if m.RebalanceTimeout <= 0 {
		r := *m
		r.RebalanceTimeout = r.SessionTimeout
		m = &r
	}
	c := g.groupOf(m.GroupID, m.MemberID == "")
	switch {
	case c == nil:
		g.joinError(from, m, model.ErrUnknownMemberID)
	case c.state == GroupDead:
		g.joinError(from, m, model.ErrCoordinatorNotAvailable)
	case !c.supports(m.Protocols):
		g.joinError(from, m, model.ErrInconsistentGroupProtocol)
	case m.MemberID == "":
		g.joinNewMember(now, from, c, m)
	default:
		g.joinExistingMember(now, from, c, m)
	}
}

func (g *GroupCoordinator) joinError(from model.Peer, m *model.JoinGroupRequest, err model.ErrCode) {
	g.reply(from, model.Carve(&g.msgs.joinResps, model.JoinGroupResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: err, GenerationID: model.NoGeneration, MemberID: m.MemberID}))
}

// joinNewMember is classicGroupJoinNewMember: a static member joins at
// once (classicGroupJoinNewStaticMember); a dynamic one gets its member
// id with MEMBER_ID_REQUIRED and becomes a pending member, with a session
// timer (classicGroupJoinNewDynamicMember, JoinGroup v4+, KIP-394).
func (g *GroupCoordinator) joinNewMember(now sim.Time, from model.Peer, c *classicGroup, m *model.JoinGroupRequest) {
	g.nextMember++
	prefix := m.ClientID
	if m.GroupInstanceID != "" {
		prefix = m.GroupInstanceID
	}
	id := prefix + "-" + strconv.FormatInt(g.nextMember, 10)
	if m.GroupInstanceID != "" {
		if old := c.staticMember(m.GroupInstanceID); old != nil {
			g.replaceStaticMember(now, from, c, old, id, m)
			return
		}
		g.addMemberThenRebalanceOrCompleteJoin(now, from, c, id, m)
		return
	}
	c.pending = append(c.pending, pendingJoin{id: id, at: now.Add(m.SessionTimeout)})
	slices.SortFunc(c.pending, func(a, b pendingJoin) int { return cmp.Compare(a.id, b.id) })
	g.reply(from, model.Carve(&g.msgs.joinResps, model.JoinGroupResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: model.ErrMemberIDRequired, GenerationID: model.NoGeneration, MemberID: id}))
}

// joinExistingMember is classicGroupJoinExistingMember.
func (g *GroupCoordinator) joinExistingMember(now sim.Time, from model.Peer, c *classicGroup, m *model.JoinGroupRequest) {
	if c.isPending(m.MemberID) {
		g.addMemberThenRebalanceOrCompleteJoin(now, from, c, m.MemberID, m)
		return
	}
	if err := c.validateMember(m.MemberID, m.GroupInstanceID); err != model.ErrNone {
		g.joinError(from, m, err)
		return
	}
	mem := c.member(m.MemberID)
	switch c.state {
	case GroupPreparingRebalance:
		g.updateMemberThenRebalanceOrCompleteJoin(now, from, c, mem, m)
	case GroupCompletingRebalance:
		if mem.matches(m) {
			g.replyJoin(from, m.CorrelationID, c, mem)
			return
		}
		g.updateMemberThenRebalanceOrCompleteJoin(now, from, c, mem, m)
	case GroupStable:
		// The leader's join, or a member's with new metadata, starts a
		// rebalance; a follower's with the same metadata gets the
		// current generation.
		if c.leader == mem.id || !mem.matches(m) {
			g.updateMemberThenRebalanceOrCompleteJoin(now, from, c, mem, m)
			return
		}
		g.replyJoin(from, m.CorrelationID, c, mem)
	default:
		g.joinError(from, m, model.ErrUnknownMemberID)
	}
}

// matches is ClassicGroupMember.matches: the same protocols and
// subscription.
func (mem *groupMember) matches(m *model.JoinGroupRequest) bool {
	return slices.Equal(mem.protocols, m.Protocols) && slices.Equal(mem.topics, m.Topics)
}

// replyJoin answers member mem's JoinGroup with the group's current
// generation; the leader gets the member list.
func (g *GroupCoordinator) replyJoin(to model.Peer, corr int64, c *classicGroup, mem *groupMember) {
	r := model.Carve(&g.msgs.joinResps, model.JoinGroupResponse{CorrelationID: corr, GroupID: c.id, GenerationID: c.generation, ProtocolName: c.protocol, Leader: c.leader, MemberID: mem.id})
	if c.leader == mem.id {
		r.Members = c.memberList()
	}
	g.reply(to, r)
}

// memberList is ClassicGroup.currentClassicGroupMembers, by member id.
func (c *classicGroup) memberList() []model.JoinGroupMember {
	ms := make([]model.JoinGroupMember, len(c.members))
	for i, o := range c.members {
		ms[i] = model.JoinGroupMember{MemberID: o.id, GroupInstanceID: o.instance, Topics: o.topics}
	}
	return ms
}

// addMemberThenRebalanceOrCompleteJoin adds a new member awaiting its
// join; its session timer is the new-member join timeout.
func (g *GroupCoordinator) addMemberThenRebalanceOrCompleteJoin(now sim.Time, from model.Peer, c *classicGroup, id string, m *model.JoinGroupRequest) {
	mem := &groupMember{id: id, instance: m.GroupInstanceID, clientID: m.ClientID, protocols: m.Protocols, topics: m.Topics, session: m.SessionTimeout, rebalance: m.RebalanceTimeout,
		isNew: true, joining: true, joinFrom: from, joinCorr: m.CorrelationID, hbAt: now.Add(NewMemberJoinTimeout)}
	c.add(mem)
	if c.state == GroupPreparingRebalance && c.prev == GroupEmpty {
		c.newMemberAdded = true
	}
	g.maybePrepareRebalanceOrCompleteJoin(now, c)
}

// updateMemberThenRebalanceOrCompleteJoin: the member's new metadata,
// and its join awaits the join phase.
func (g *GroupCoordinator) updateMemberThenRebalanceOrCompleteJoin(now sim.Time, from model.Peer, c *classicGroup, mem *groupMember, m *model.JoinGroupRequest) {
	mem.protocols, mem.topics, mem.session, mem.rebalance = m.Protocols, m.Topics, m.SessionTimeout, m.RebalanceTimeout
	mem.joining, mem.joinFrom, mem.joinCorr = true, from, m.CorrelationID
	g.maybePrepareRebalanceOrCompleteJoin(now, c)
}

// replaceStaticMember is updateStaticMemberThenRebalanceOrCompleteJoin
// with ClassicGroup.replaceStaticMember: the old member id's awaited
// JoinGroup and SyncGroup are answered FENCED_INSTANCE_ID, and the new id
// takes the member's place (its assignment, leadership and, unlike
// Kafka's pendingSyncMembers, its pending sync) with the request's
// metadata. In Stable, unless the group's protocol would change, the
// member is answered at once with the current generation (JoinGroup v9+:
// the leader with the member list and skipAssignment); in
// CompletingRebalance a rebalance starts; in PreparingRebalance the join
// phase may complete.
func (g *GroupCoordinator) replaceStaticMember(now sim.Time, from model.Peer, c *classicGroup, mem *groupMember, id string, m *model.JoinGroupRequest) {
	if mem.joining {
		g.reply(mem.joinFrom, model.Carve(&g.msgs.joinResps, model.JoinGroupResponse{CorrelationID: mem.joinCorr, GroupID: c.id, Err: model.ErrFencedInstanceID, GenerationID: model.NoGeneration, MemberID: mem.id}))
		mem.joining = false
	}
	if mem.syncing {
		g.reply(mem.syncFrom, model.Carve(&g.msgs.syncResps, model.SyncGroupResponse{CorrelationID: mem.syncCorr, GroupID: c.id, Err: model.ErrFencedInstanceID}))
		mem.syncing = false
	}
	if c.leader == mem.id {
		c.leader = id
	}
	mem.id, mem.clientID = id, m.ClientID
	c.sortMembers()
	mem.hbAt = now.Add(mem.session)
	mem.protocols, mem.topics, mem.session, mem.rebalance = m.Protocols, m.Topics, m.SessionTimeout, m.RebalanceTimeout
	switch c.state {
	case GroupStable:
		if c.selectProtocol() == c.protocol {
			c.store()
			r := model.Carve(&g.msgs.joinResps, model.JoinGroupResponse{CorrelationID: m.CorrelationID, GroupID: c.id, GenerationID: c.generation, ProtocolName: c.protocol, Leader: c.leader, MemberID: id})
			if c.leader == id {
				r.Members, r.SkipAssignment = c.memberList(), true
			}
			g.reply(from, r)
			return
		}
		mem.joining, mem.joinFrom, mem.joinCorr = true, from, m.CorrelationID
		g.maybePrepareRebalanceOrCompleteJoin(now, c)
	case GroupCompletingRebalance:
		mem.joining, mem.joinFrom, mem.joinCorr = true, from, m.CorrelationID
		g.prepareRebalance(now, c)
	default:
		mem.joining, mem.joinFrom, mem.joinCorr = true, from, m.CorrelationID
		g.maybeCompleteJoinPhase(now, c)
	}
}

// maybePrepareRebalanceOrCompleteJoin starts a rebalance when the state
// allows one (ClassicGroup.canRebalance: Stable, CompletingRebalance,
// Empty), else completes the join phase if it can.
func (g *GroupCoordinator) maybePrepareRebalanceOrCompleteJoin(now sim.Time, c *classicGroup) {
	switch c.state {
	case GroupStable, GroupCompletingRebalance, GroupEmpty:
		g.prepareRebalance(now, c)
	default:
		g.maybeCompleteJoinPhase(now, c)
	}
}

// maybeCompleteJoinPhase completes the join phase once every member has
// rejoined, except in the initial rebalance, which waits for its delay.
func (g *GroupCoordinator) maybeCompleteJoinPhase(now sim.Time, c *classicGroup) {
	if c.state == GroupPreparingRebalance && c.hasAllJoined() && c.prev != GroupEmpty {
		g.completeJoin(now, c)
	}
}

// prepareRebalance: members awaiting their SyncGroup are answered
// REBALANCE_IN_PROGRESS (resetAndPropagateAssignmentWithError), the
// pending-sync timer goes, and the group enters PreparingRebalance; an
// initial rebalance waits group.initial.rebalance.delay.ms, another
// completes at once if all members have joined, else at the rebalance
// timeout (maybeCompleteJoinElseSchedule).
func (g *GroupCoordinator) prepareRebalance(now sim.Time, c *classicGroup) {
	if c.state == GroupCompletingRebalance {
		for _, mem := range c.members {
			mem.assignment = nil
			if mem.syncing {
				mem.syncing = false
				g.reply(mem.syncFrom, model.Carve(&g.msgs.syncResps, model.SyncGroupResponse{CorrelationID: mem.syncCorr, GroupID: c.id, Err: model.ErrRebalanceInProgress}))
				mem.hbAt = now.Add(mem.session)
			}
		}
	}
	for _, mem := range c.members {
		mem.pendingSync = false
	}
	c.syncAt = never
	initial := c.state == GroupEmpty
	c.transition(GroupPreparingRebalance)
	if initial {
		d := g.cfg.InitialRebalanceDelay
		c.joinAt, c.initial, c.delay, c.remaining = now.Add(d), true, d, max(c.rebalanceTimeout()-d, 0)
		return
	}
	if c.hasAllJoined() {
		g.completeJoin(now, c)
		return
	}
	c.joinAt, c.initial = now.Add(c.rebalanceTimeout()), false
}

// joinTimer runs the join phase's timer: the initial rebalance's delay
// is extended while new members come and time remains
// (tryCompleteInitialRebalanceElseSchedule); otherwise the join phase
// completes.
func (g *GroupCoordinator) joinTimer(now sim.Time, c *classicGroup) {
	c.joinAt = never
	if c.initial && c.newMemberAdded && c.remaining != 0 {
		c.newMemberAdded = false
		d := min(g.cfg.InitialRebalanceDelay, c.remaining)
		c.remaining = max(c.remaining-c.delay, 0)
		c.delay = d
		c.joinAt = now.Add(d)
		return
	}
	g.completeJoin(now, c)
}

// completeJoin is completeClassicGroupJoin: dynamic members that did not
// rejoin are removed; if no member rejoined, the join phase waits another
// rebalance timeout; else the next generation starts
// (ClassicGroup.initNextGeneration): every member that awaits its
// JoinGroup is answered (the leader with the member list), its session
// restarts, and all must send SyncGroup within the rebalance timeout
// (schedulePendingSync); a group left without members is Empty.
func (g *GroupCoordinator) completeJoin(now sim.Time, c *classicGroup) {
	c.joinAt, c.initial = never, false
	for i := 0; i < len(c.members); {
		if mem := c.members[i]; !mem.joining && mem.instance == "" {
			c.remove(mem.id)
			continue
		}
		i++
	}
	if c.state == GroupDead {
		return
	}
	if !c.electJoinedLeader() && len(c.members) > 0 {
		c.joinAt = now.Add(c.rebalanceTimeout())
		return
	}
	c.generation++
	if len(c.members) == 0 {
		c.protocol = ""
		c.transition(GroupEmpty)
		c.store()
		return
	}
	c.protocol = c.selectProtocol()
	c.transition(GroupCompletingRebalance)
	for _, mem := range c.members {
		if mem.joining {
			mem.joining = false
			g.replyJoin(mem.joinFrom, mem.joinCorr, c, mem)
		}
		mem.hbAt = now.Add(mem.session)
		mem.isNew = false
		mem.pendingSync = true
	}
	c.syncAt = now.Add(c.rebalanceTimeout())
}

// electJoinedLeader is ClassicGroup.maybeElectNewJoinedLeader: a leader
// that did not rejoin is replaced by the first member that did.
func (c *classicGroup) electJoinedLeader() bool {
	if c.leader == "" {
		return false
	}
	if l := c.member(c.leader); l != nil && l.joining {
		return true
	}
	for _, mem := range c.members {
		if mem.joining {
			c.leader = mem.id
			return true
		}
	}
	return false
}

// validateMember is ClassicGroup.validateMember: a group instance id must
// belong to the member id (else FENCED_INSTANCE_ID, or UNKNOWN_MEMBER_ID
// when it is no member's), and the member id must be a member.
func (c *classicGroup) validateMember(id, instance string) model.ErrCode {
	if instance != "" {
		mem := c.staticMember(instance)
		if mem == nil {
			return model.ErrUnknownMemberID
		}
		if mem.id != id {
			return model.ErrFencedInstanceID
		}
	}
	if c.member(id) == nil {
		return model.ErrUnknownMemberID
	}
	return model.ErrNone
}

// syncGroup is classicGroupSync with validateSyncGroup.
func (g *GroupCoordinator) syncGroup(now sim.Time, from model.Peer, m *model.SyncGroupRequest) {
	c := g.groupOf(m.GroupID, false)
	err := model.ErrNone
	switch {
	case c == nil:
		err = model.ErrUnknownMemberID
	case c.state == GroupDead:
		err = model.ErrCoordinatorNotAvailable
	default:
		if err = c.validateMember(m.MemberID, m.GroupInstanceID); err == model.ErrNone {
			if m.GenerationID != c.generation {
				err = model.ErrIllegalGeneration
			} else if m.ProtocolName != "" && m.ProtocolName != c.protocol {
				err = model.ErrInconsistentGroupProtocol
			}
		}
	}
	if err == model.ErrNone {
		switch c.state {
		case GroupEmpty:
			err = model.ErrUnknownMemberID
		case GroupPreparingRebalance:
			err = model.ErrRebalanceInProgress
		}
	}
	if err != model.ErrNone {
		g.reply(from, model.Carve(&g.msgs.syncResps, model.SyncGroupResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: err}))
		return
	}
	mem := c.member(m.MemberID)
	mem.pendingSync = false
	if c.state == GroupStable {
		mem.hbAt = now.Add(mem.session)
		g.reply(from, model.Carve(&g.msgs.syncResps, model.SyncGroupResponse{CorrelationID: m.CorrelationID, GroupID: c.id, ProtocolName: c.protocol, Partitions: mem.assignment}))
	} else {
		// CompletingRebalance: wait for the leader's assignment.
		mem.syncing, mem.syncFrom, mem.syncCorr = true, from, m.CorrelationID
		if c.leader == mem.id {
			for _, o := range c.members {
				o.assignment = nil
				for _, a := range m.Assignments {
					if a.MemberID == o.id {
						o.assignment = a.Partitions
					}
				}
			}
			c.store()
			g.propagateAssignment(now, c)
			c.transition(GroupStable)
		}
	}
	if !slices.ContainsFunc(c.members, func(o *groupMember) bool { return o.pendingSync }) {
		c.syncAt = never
	}
}

// propagateAssignment answers every member awaiting its SyncGroup with
// its partitions and restarts its session.
func (g *GroupCoordinator) propagateAssignment(now sim.Time, c *classicGroup) {
	for _, mem := range c.members {
		if mem.syncing {
			mem.syncing = false
			g.reply(mem.syncFrom, model.Carve(&g.msgs.syncResps, model.SyncGroupResponse{CorrelationID: mem.syncCorr, GroupID: c.id, ProtocolName: c.protocol, Partitions: mem.assignment}))
			mem.hbAt = now.Add(mem.session)
		}
	}
}

// heartbeat is classicGroupHeartbeat with validateClassicGroupHeartbeat:
// a member of the current generation stays alive; during
// PreparingRebalance it is told REBALANCE_IN_PROGRESS, to rejoin.
func (g *GroupCoordinator) heartbeat(now sim.Time, from model.Peer, m *model.HeartbeatRequest) {
	c := g.groupOf(m.GroupID, false)
	err := model.ErrNone
	switch {
	case c == nil:
		err = model.ErrUnknownMemberID
	case c.state == GroupDead:
		err = model.ErrCoordinatorNotAvailable
	default:
		if err = c.validateMember(m.MemberID, m.GroupInstanceID); err == model.ErrNone && m.GenerationID != c.generation {
			err = model.ErrIllegalGeneration
		}
	}
	if err == model.ErrNone {
		switch c.state {
		case GroupEmpty:
			err = model.ErrUnknownMemberID
		case GroupPreparingRebalance:
			err = model.ErrRebalanceInProgress
			fallthrough
		default:
			mem := c.member(m.MemberID)
			mem.hbAt = now.Add(mem.session)
		}
	}
	g.reply(from, model.Carve(&g.msgs.hbResps, model.HeartbeatResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID, Err: err}))
}

// leaveGroup is classicGroupLeave (classicGroupLeaveToClassicGroup) for
// one member: an unknown group is UNKNOWN_MEMBER_ID; a request with no
// member id removes the static member of its group instance id; a
// pending member just goes; else the member must be valid
// (validateMember). A member left: the group rebalances, or completes
// its join phase.
func (g *GroupCoordinator) leaveGroup(now sim.Time, from model.Peer, m *model.LeaveGroupRequest) {
	r := model.Carve(&g.msgs.leaveResps, model.LeaveGroupResponse{CorrelationID: m.CorrelationID, GroupID: m.GroupID})
	c := g.groupOf(m.GroupID, false)
	switch {
	case c == nil:
		r.Err = model.ErrUnknownMemberID
	case c.state == GroupDead:
		r.Err = model.ErrCoordinatorNotAvailable
	case m.MemberID == "":
		if mem := c.staticMember(m.GroupInstanceID); m.GroupInstanceID != "" && mem != nil {
			g.removeCurrentMember(c, mem)
		} else {
			r.MemberErr = model.ErrUnknownMemberID
		}
	case c.isPending(m.MemberID):
		c.removePending(m.MemberID)
	default:
		if r.MemberErr = c.validateMember(m.MemberID, m.GroupInstanceID); r.MemberErr == model.ErrNone {
			g.removeCurrentMember(c, c.member(m.MemberID))
		}
	}
	g.reply(from, r)
	if r.Err != model.ErrNone || r.MemberErr != model.ErrNone {
		return
	}
	switch c.state {
	case GroupStable, GroupCompletingRebalance:
		g.maybePrepareRebalanceOrCompleteJoin(now, c)
	case GroupPreparingRebalance:
		g.maybeCompleteJoinPhase(now, c)
	}
}

// removeCurrentMember is removeCurrentMemberFromClassicGroup: a member
// awaiting its JoinGroup is answered UNKNOWN_MEMBER_ID, then removed.
func (g *GroupCoordinator) removeCurrentMember(c *classicGroup, mem *groupMember) {
	if mem.joining {
		g.reply(mem.joinFrom, model.Carve(&g.msgs.joinResps, model.JoinGroupResponse{CorrelationID: mem.joinCorr, GroupID: c.id, Err: model.ErrUnknownMemberID, GenerationID: model.NoGeneration}))
	}
	c.remove(mem.id)
}

// removeMemberAndUpdate is removeMemberAndUpdateClassicGroup: a member
// awaiting its JoinGroup is answered UNKNOWN_MEMBER_ID; then the group
// rebalances, or completes its join phase if the member was the last
// awaited.
func (g *GroupCoordinator) removeMemberAndUpdate(now sim.Time, c *classicGroup, mem *groupMember) {
	g.removeCurrentMember(c, mem)
	switch c.state {
	case GroupStable, GroupCompletingRebalance:
		g.maybePrepareRebalanceOrCompleteJoin(now, c)
	case GroupPreparingRebalance:
		if c.hasAllJoined() {
			g.completeJoin(now, c)
		}
	}
}

// hasSatisfiedHeartbeat is ClassicGroupMember.hasSatisfiedHeartbeat: a
// member awaiting a rebalance's answer needs no heartbeat, unless it is
// new.
func (mem *groupMember) hasSatisfiedHeartbeat() bool {
	return !mem.isNew && (mem.joining || mem.syncing)
}

// groupTimers runs every group timer due at now, earliest first (ties in
// group id order, then join, pending sync, pending members' and members'
// sessions by member id), as Kafka's timer would one by one.
func (g *GroupCoordinator) groupTimers(now sim.Time) {
	for {
		var due *classicGroup
		var kind int
		var id string
		at := now + 1
		for _, gid := range g.groupIDs {
			c := g.groups[gid]
			if c.joinAt < at {
				due, kind, at = c, 0, c.joinAt
			}
			if c.syncAt < at {
				due, kind, at = c, 1, c.syncAt
			}
			for _, p := range c.pending {
				if p.at < at {
					due, kind, id, at = c, 2, p.id, p.at
				}
			}
			for _, mem := range c.members {
				if mem.hbAt < at {
					due, kind, id, at = c, 3, mem.id, mem.hbAt
				}
			}
		}
		if due == nil {
			return
		}
		c := due
		switch kind {
		case 0:
			g.joinTimer(now, c)
		case 1:
			g.expirePendingSync(now, c)
		case 2:
			// A pending member that never joined (removePendingMemberAndUpdateClassicGroup).
			c.removePending(id)
			g.maybeCompleteJoinPhase(now, c)
		case 3:
			mem := c.member(id)
			mem.hbAt = never
			if !mem.hasSatisfiedHeartbeat() {
				g.removeMemberAndUpdate(now, c, mem)
			}
		}
	}
}

// expirePendingSync removes the members that did not send SyncGroup in
// time and rebalances (GroupMetadataManager.expirePendingSync).
func (g *GroupCoordinator) expirePendingSync(now sim.Time, c *classicGroup) {
	c.syncAt = never
	if c.state != GroupCompletingRebalance && c.state != GroupStable {
		return
	}
	removed := false
	for i := 0; i < len(c.members); {
		if mem := c.members[i]; mem.pendingSync {
			c.remove(mem.id)
			removed = true
			continue
		}
		i++
	}
	if removed {
		g.maybePrepareRebalanceOrCompleteJoin(now, c)
	}
}

// scheduleGroups asks for a wake-up at the earliest group timer, unless
// one at or before it is already asked for. A wake-up that completes a
// join phase is owed to the members awaiting it.
func (g *GroupCoordinator) scheduleGroups() {
	at, owed := never, false
	for _, gid := range g.groupIDs {
		c := g.groups[gid]
		if c.joinAt < at {
			at, owed = c.joinAt, true
		}
		if c.syncAt < at {
			at, owed = c.syncAt, false
		}
		for _, p := range c.pending {
			if p.at < at {
				at, owed = p.at, false
			}
		}
		for _, mem := range c.members {
			if mem.hbAt < at {
				at, owed = mem.hbAt, false
			}
		}
	}
	if at == never || (g.wakeAt != never && g.wakeAt <= at) {
		return
	}
	g.wakeAt = at
	g.Outs = append(g.Outs, model.Out{Kind: model.OutWake, At: at, Timer: uint64(at), Owed: owed})
}

// Group returns group's state, generation, leader and members (sorted by
// member id) with their partitions, for tests and checks; ok is false
// when the coordinator has no such group.
func (g *GroupCoordinator) Group(group string) (st GroupState, generation int32, leader string, members []model.GroupAssignment, ok bool) {
	c := g.groups[group]
	if c == nil {
		return 0, 0, "", nil, false
	}
	for _, m := range c.members {
		members = append(members, model.GroupAssignment{MemberID: m.id, Partitions: m.assignment})
	}
	return c.state, c.generation, c.leader, members, true
}

func (g *GroupCoordinator) reply(to model.Peer, m model.Message) {
	g.Outs = append(g.Outs, model.Out{Kind: model.OutReply, Peer: to, Msg: m})
}

// validateOffsetCommit is OffsetMetadataManager.validateOffsetCommit and
// validateTransactionalOffsetCommit with ClassicGroup.validateOffsetCommit:
// a commit without group metadata (generation -1) is accepted when the
// group has no members (or does not exist: Kafka creates an empty
// "simple" group, idemsim keeps none); a commit with a generation to a
// group that does not exist is ILLEGAL_GENERATION (OffsetCommit v9+ says
// GROUP_ID_NOT_FOUND, not modelled); else the member must be the group's
// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) and of its generation
// (ILLEGAL_GENERATION, the check that fences a KIP-447 zombie); a
// non-transactional commit without metadata to a non-empty group is
// UNKNOWN_MEMBER_ID, and one during CompletingRebalance
// REBALANCE_IN_PROGRESS. An accepted OffsetCommit in Stable or
// PreparingRebalance restarts the member's session
// (OffsetMetadataManager.commitOffset).
func (g *GroupCoordinator) validateOffsetCommit(now sim.Time, group string, md model.GroupMetadata, txn bool) model.ErrCode {
	gen := md.Generation()
	c := g.groups[group]
	if c == nil {
		if gen < 0 {
			return model.ErrNone
		}
		return model.ErrIllegalGeneration
	}
	if c.state == GroupDead {
		return model.ErrCoordinatorNotAvailable
	}
	if gen < 0 && c.state == GroupEmpty {
		return model.ErrNone
	}
	if gen >= 0 || md.MemberID != "" || md.GroupInstanceID != "" {
		if err := c.validateMember(md.MemberID, md.GroupInstanceID); err != model.ErrNone {
			return err
		}
		if gen != c.generation {
			return model.ErrIllegalGeneration
		}
	} else if !txn && c.state != GroupEmpty {
		return model.ErrUnknownMemberID
	}
	if !txn && c.state == GroupCompletingRebalance {
		return model.ErrRebalanceInProgress
	}
	if !txn && (c.state == GroupStable || c.state == GroupPreparingRebalance) {
		if mem := c.member(md.MemberID); mem != nil {
			mem.hbAt = now.Add(mem.session)
		}
	}
	return model.ErrNone
}
