package controller

import (
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// The KRaft controller as one node. Citations are to
// apache/kafka@1eb7644349cb,
// metadata/src/main/java/org/apache/kafka/controller/:
// ReplicationControlManager.java (RCM), PartitionChangeBuilder.java (PCB),
// BrokerHeartbeatManager.java (BHM), QuorumController.java (QC),
// ClusterControlManager.java (CCM).

// Controller defaults.
const (
	// DefaultBrokerSessionTimeout is broker.session.timeout.ms (KRaft).
	DefaultBrokerSessionTimeout = 9 * time.Second
	// DefaultUncleanLeaderElectionInterval is
	// unclean.leader.election.interval.ms (3.9+).
	DefaultUncleanLeaderElectionInterval = 300 * time.Second
)

// ControllerConfig holds the controller's settings. The zero value is
// Kafka 4.0's defaults.
type ControllerConfig struct {
	// SessionTimeout is broker.session.timeout.ms (9000): a broker is
	// fenced once now > last heartbeat + SessionTimeout (BHM#hasValidSession:350).
	SessionTimeout time.Duration
	// UncleanLeaderElection is the topic's
	// unclean.leader.election.enable (default false since 0.11.0, KIP-106).
	UncleanLeaderElection bool
	// UncleanInterval is unclean.leader.election.interval.ms (300000):
	// with unclean election on, leaderless partitions are re-checked this
	// often (QC#maybeScheduleNextElectUncleanLeaders:1285).
	UncleanInterval time.Duration
	// Version is the controller's Kafka version as major*100+minor; 0
	// means 4.0. KRaft controllers before 3.9 (KAFKA-12670) ignore
	// UncleanLeaderElection: they never elect an out-of-sync replica
	// automatically (ConfigurationControlManager#uncleanLeaderElectionEnabledForTopic:511).
	Version int
	// ELR turns on eligible leader replicas (KIP-966: the
	// eligible.leader.replicas.version feature, finalized on clusters
	// formatted by 4.1): a replica removed from an ISR below MinISR joins
	// the partition's ELR, and when no ISR member can lead, an ELR member
	// is elected cleanly (PartitionChangeBuilder's ELR election). A
	// broker that comes back from an unclean shutdown leaves every ELR.
	ELR bool
	// MinISR is the topic's min.insync.replicas (at least 1).
	MinISR int
	// AutoLeaderRebalance is auto.leader.rebalance.enable: while some
	// partition's leader is not its preferred replica, the controller
	// elects preferred leaders every LeaderImbalanceCheckInterval
	// (operations.go).
	AutoLeaderRebalance bool
	// LeaderImbalanceCheckInterval is
	// leader.imbalance.check.interval.seconds (300 s).
	LeaderImbalanceCheckInterval time.Duration
	// Coordinators has the controller keep the coordinators' internal
	// partitions, both led by broker 0 at the start (coordparts.go).
	Coordinators bool
}

func (c ControllerConfig) session() time.Duration {
	if c.SessionTimeout <= 0 {
		return DefaultBrokerSessionTimeout
	}
	return c.SessionTimeout
}

func (c ControllerConfig) uncleanInterval() time.Duration {
	if c.UncleanInterval <= 0 {
		return DefaultUncleanLeaderElectionInterval
	}
	return c.UncleanInterval
}

// Unclean reports whether unclean election is in effect: enabled and the
// version honours it (3.9+).
func (c ControllerConfig) Unclean() bool {
	return c.UncleanLeaderElection && (c.Version == 0 || c.Version >= 309)
}

type brokerReg struct {
	lastContact sim.Time
	fenced      bool
	// metaOffset is the metadata offset the broker's last heartbeat
	// reported (BHM's BrokerHeartbeatState.metadataOffset).
	metaOffset int64
	// shutdownOffset is the publication that moved the broker's
	// leaderships when it entered controlled shutdown, -1 when it is not
	// in controlled shutdown (BHM's controlledShutdownOffset).
	shutdownOffset int64
}

// Controller is the KRaft controller for a cluster of brokers with indexes
// 0..n-1: it tracks broker liveness by heartbeats, fences a broker whose
// session expired and moves its partitions' leadership and ISR
// (RCM#handleBrokerFenced:1287, PCB#electAnyLeader:261), answers
// AlterPartition (RCM#validateAlterPartitionData:1150), and publishes every
// partition change as a [model.MetadataUpdate] to every broker. It is pure:
// requests and timers in, effects out (OutReply to a heartbeat or
// AlterPartition; OutSend of MetadataUpdate to broker indexes; OutWake for its
// timers; OutNote for fencing and elections). The returned slice is the
// controller's and valid until its next call. The controller itself never
// fails (a KRaft quorum); Crash and Restart exist for the [model.Server]
// interface.
//
// Simplifications: a fenced broker is unfenced by its next heartbeat
// (Kafka waits until it has replayed the metadata up to its registration,
// BHM#calculateNextBrokerState:535); brokers do not register (all are
// registered at Start); stale brokers are fenced in index order in one
// event rather than one per event (RCM#maybeFenceOneStaleBroker:1600);
// no last-known-leader recovery (KIP-966 part 2); metadata version >=
// 3.6, so ISR-only changes keep the leader epoch
// (PCB#triggerLeaderEpochBumpForIsrShrinkIfNeeded:387). The operator's
// preferred-leader election and reassignment are in operations.go.
type Controller struct {
	cfg     ControllerConfig
	brokers []brokerReg
	parts   []model.PartitionState

	fenceTok   uint64
	fenceAt    sim.Time
	uncleanTok uint64
	uncleanAt  sim.Time
	// balanceAt is when the armed preferred-leader check runs, -1 for
	// none (operations.go); balanceTok its timer.
	balanceTok uint64
	balanceAt  sim.Time
	// moves holds each partition's reassignment in progress, by index in
	// parts (operations.go).
	moves []move
	// coords are the coordinators' internal partitions, by
	// model.CoordLogIndex; nil without ControllerConfig.Coordinators
	// (coordparts.go). coordChanged: one changed since the last
	// publication.
	coords       []coordPart
	coordChanged bool

	changed []int
	// offset counts the publications.
	offset int64
	// fencing is true when a broker was fenced or unfenced since the last
	// publication (a broker registration change record).
	fencing bool
	out     []model.Out
}

// NewController returns a controller for brokers 0..brokers-1 and the
// given partitions (each with replicas, ISR, leader and epochs), which it
// copies. Call Start before anything else.
func NewController(cfg ControllerConfig, brokers int, parts []model.PartitionState) *Controller {
	c := &Controller{cfg: cfg, brokers: make([]brokerReg, brokers), fenceAt: -1, uncleanAt: -1, balanceAt: -1}
	for i := range c.brokers {
		c.brokers[i].shutdownOffset = -1
	}
	for _, p := range parts {
		c.parts = append(c.parts, p.Clone())
	}
	slices.SortFunc(c.parts, func(a, b model.PartitionState) int { return int(a.Partition) - int(b.Partition) })
	c.moves = make([]move, len(c.parts))
	if cfg.Coordinators {
		c.coords = make([]coordPart, model.CoordPartitions)
	}
	return c
}

// Partition returns the registration of partition id (zero value and
// false if unknown). The caller must not modify it.
func (c *Controller) Partition(id int32) (model.PartitionState, bool) {
	if i := c.part(id); i >= 0 {
		return c.parts[i], true
	}
	return model.PartitionState{}, false
}

// Fenced reports whether broker b is fenced.
func (c *Controller) Fenced(b int32) bool {
	return b >= 0 && int(b) < len(c.brokers) && c.brokers[b].fenced
}

func (c *Controller) part(id int32) int {
	for i := range c.parts {
		if c.parts[i].Partition == id {
			return i
		}
	}
	return -1
}

// active reports whether broker b may lead or join an ISR: unfenced and
// not in controlled shutdown (ClusterControlManager#isActive).
func (c *Controller) active(b int32) bool {
	return b >= 0 && int(b) < len(c.brokers) && !c.brokers[b].fenced && c.brokers[b].shutdownOffset < 0
}

// Start counts every broker as alive now, publishes every partition and
// arms the session check.
func (c *Controller) Start(now sim.Time) []model.Out {
	c.out = c.out[:0]
	for i := range c.brokers {
		c.brokers[i].lastContact = now
	}
	c.changed = c.changed[:0]
	for i := range c.parts {
		c.changed = append(c.changed, i)
	}
	c.publish()
	c.armFence()
	c.armUnclean(now)
	c.armBalance(now)
	return c.out
}

// Step handles a [model.BrokerHeartbeatRequest] or an
// [model.AlterPartitionRequest].
func (c *Controller) Step(now sim.Time, from model.Peer, m model.Message) []model.Out {
	c.out = c.out[:0]
	c.changed = c.changed[:0]
	switch m := m.(type) {
	case *model.BrokerHeartbeatRequest:
		b := m.BrokerID
		if b < 0 || int(b) >= len(c.brokers) {
			break
		}
		c.brokers[b].lastContact = now
		c.brokers[b].metaOffset = m.MetadataOffset
		if m.UncleanShutdown && c.cfg.ELR {
			c.dropFromELR(b)
			c.publish()
		}
		if m.MetadataOffset < c.offset {
			// The broker missed publications (it was cut off, paused or
			// restarted): it catches up on the whole registration.
			c.out = append(c.out, model.Out{Kind: model.OutSend, Dest: b, Msg: c.full()})
		}
		if m.WantShutDown {
			c.out = append(c.out, model.Out{Kind: model.OutReply, Peer: from, Msg: c.shutdown(b)})
			c.armFence()
			break
		}
		if r := &c.brokers[b]; r.fenced || r.shutdownOffset >= 0 {
			// A broker in controlled shutdown that heartbeats without
			// WantShutDown restarted (its new registration ends the
			// controlled shutdown): it is active again, as when unfenced.
			if r.fenced {
				c.note("b" + strconv.FormatInt(int64(b)+1, 10) + " unfenced")
			}
			r.fenced, r.shutdownOffset = false, -1
			c.fencing = true
			// RCM#handleBrokerUnfenced:1338: leaderless partitions may
			// now elect b.
			for i := range c.parts {
				p := &c.parts[i]
				if p.Leader < 0 && slices.Contains(p.Replicas, b) {
					c.change(i, p.ISR, -1)
				}
			}
			c.coordUnfenced(b)
			c.publish()
		}
		c.out = append(c.out, model.Out{Kind: model.OutReply, Peer: from, Msg: &model.BrokerHeartbeatResponse{BrokerID: b, Fenced: c.brokers[b].fenced}})
		c.armFence()
	case *model.AlterPartitionRequest:
		resp := c.alterPartition(m)
		c.out = append(c.out, model.Out{Kind: model.OutReply, Peer: from, Msg: resp})
		c.publish()
	}
	c.armBalance(now)
	return c.out
}

// shutdown handles a heartbeat with WantShutDown from broker b, as
// BrokerHeartbeatManager#calculateNextBrokerState:535 and
// ReplicationControlManager#processBrokerHeartbeat:1533 do:
//   - a fenced broker, or an unfenced one that leads nothing, may stop at
//     once (SHUTDOWN_NOW: it is fenced, RCM#handleBrokerFenced);
//   - an unfenced broker that leads something enters controlled shutdown
//     (RCM#handleBrokerInControlledShutdown:1363): it leaves every ISR and
//     its partitions elect new leaders (generateLeaderAndIsrUpdates with
//     brokerToRemove = b; a partition whose ISR is b alone keeps it and
//     has no leader), and it stops being active, so it is neither elected
//     nor added back to an ISR; its controlled-shutdown offset is that
//     publication's;
//   - a broker in controlled shutdown may stop once it leads nothing and
//     every active broker's heartbeat reported that offset or later
//     (lowestActiveOffset).
//
// The answer says whether it may stop.
func (c *Controller) shutdown(b int32) *model.BrokerHeartbeatResponse {
	r := &c.brokers[b]
	leads := false
	for i := range c.parts {
		leads = leads || c.parts[i].Leader == b
	}
	now := false
	switch {
	case r.fenced || (r.shutdownOffset < 0 && !leads):
		now = true
	case r.shutdownOffset < 0:
		c.note("b" + strconv.FormatInt(int64(b)+1, 10) + " enters controlled shutdown")
		r.shutdownOffset = c.offset // not active from now on
		c.fencing = true            // a registration change
		c.remove(b)
		c.publish()
		r.shutdownOffset = c.offset
	case !leads:
		now = true
		for i := range c.brokers {
			if c.active(int32(i)) && c.brokers[i].metaOffset < r.shutdownOffset {
				now = false
			}
		}
	}
	if now {
		r.shutdownOffset = -1
		if !r.fenced {
			c.fence(b)
			c.publish()
		}
		c.note("b" + strconv.FormatInt(int64(b)+1, 10) + " may shut down")
	}
	return &model.BrokerHeartbeatResponse{BrokerID: b, Fenced: r.fenced, ShouldShutDown: now}
}

// alterPartition validates and applies an ISR change (RCM#validateAlterPartitionData:1150).
func (c *Controller) alterPartition(m *model.AlterPartitionRequest) *model.AlterPartitionResponse {
	resp := &model.AlterPartitionResponse{Partition: m.Partition}
	i := c.part(m.Partition)
	if i < 0 {
		resp.Err = model.ErrUnknownTopicOrPartition
		return resp
	}
	p := &c.parts[i]
	switch {
	case m.LeaderEpoch > p.LeaderEpoch || m.PartitionEpoch > p.PartitionEpoch:
		resp.Err = model.ErrNotController
	case m.LeaderEpoch < p.LeaderEpoch:
		resp.Err = model.ErrFencedLeaderEpoch
	case m.BrokerID != p.Leader:
		resp.Err = model.ErrInvalidRequest
	case m.PartitionEpoch < p.PartitionEpoch:
		resp.Err = model.ErrInvalidUpdateVersion
	case !slices.Contains(m.NewISR, p.Leader) || !subset(m.NewISR, p.Replicas):
		resp.Err = model.ErrInvalidRequest
	}
	if resp.Err == model.ErrNone {
		for _, id := range m.NewISR {
			if !c.active(id) {
				resp.Err = model.ErrIneligibleReplica
			}
		}
	}
	if resp.Err != model.ErrNone {
		return resp
	}
	if c.moves[i].on() {
		// PCB#build completes a reassignment in progress when the new
		// ISR allows it (completeReassignmentIfNeeded, operations.go):
		// the same change may drop replicas and elect another leader.
		c.change(i, m.NewISR, -1)
	} else {
		c.updateELR(p, m.NewISR)
		p.ISR = append(p.ISR[:0:0], m.NewISR...)
		p.PartitionEpoch++
		c.changed = append(c.changed, i)
	}
	// The leader reports RECOVERED in its AlterPartition after an unclean
	// election (LeaderRecoveryState); idemsim clears it at the first one.
	p.Recovering = false
	resp.State = p.Clone()
	c.note("p" + strconv.FormatInt(int64(p.Partition), 10) + " isr " + string(model.AppendBrokers(nil, p.ISR)) + " pe=" + strconv.FormatInt(int64(p.PartitionEpoch), 10))
	return resp
}

func subset(a, b []int32) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// Wake handles the session check and the unclean-election re-check.
func (c *Controller) Wake(now sim.Time, token uint64) []model.Out {
	c.out = c.out[:0]
	c.changed = c.changed[:0]
	switch {
	case token == c.fenceTok && c.fenceAt >= 0:
		c.fenceAt = -1
		for b := range c.brokers {
			r := &c.brokers[b]
			if !r.fenced && now > r.lastContact.Add(c.cfg.session()) {
				c.fence(int32(b))
			}
		}
		c.publish()
		c.armFence()
		c.armUnclean(now)
	case token == c.uncleanTok && c.uncleanAt >= 0:
		c.uncleanAt = -1
		for i := range c.parts {
			if c.parts[i].Leader < 0 {
				c.change(i, c.parts[i].ISR, -1)
			}
		}
		c.publish()
		c.armUnclean(now)
	case token == c.balanceTok && c.balanceAt >= 0:
		c.balanceAt = -1
		c.balance()
		c.publish()
	}
	c.armBalance(now)
	return c.out
}

// fence fences broker b (RCM#handleBrokerFenced:1287): every partition
// whose ISR holds b loses it and, if b led, elects a new leader.
func (c *Controller) fence(b int32) {
	c.brokers[b].fenced = true
	c.brokers[b].shutdownOffset = -1
	c.fencing = true
	c.note("b" + strconv.FormatInt(int64(b)+1, 10) + " fenced")
	c.remove(b)
}

// remove takes broker b out of every ISR and leadership
// (RCM#generateLeaderAndIsrUpdates:1888 with brokerToRemove = b), the
// internal partitions' included (coordparts.go).
func (c *Controller) remove(b int32) {
	c.coordRemove(b)
	for i := range c.parts {
		p := &c.parts[i]
		if !slices.Contains(p.ISR, b) && p.Leader != b {
			continue
		}
		target := make([]int32, 0, len(p.ISR))
		for _, id := range p.ISR {
			if id != b {
				target = append(target, id)
			}
		}
		c.change(i, target, b)
	}
}

// change runs the leader choice (PCB#electAnyLeader:261) for
// partition i with the target ISR, excluding broker gone (or -1), and
// records the change if anything differs (PCB#build:431).
func (c *Controller) change(i int, target []int32, gone int32) {
	c.build(i, target, gone, false)
}

// build is [Controller.change], and with preferred the preferred-leader
// election (PCB#electPreferredLeader: the first replica if it is in the
// target ISR and active, else as change). A reassignment in progress
// completes first when the target ISR allows it (PCB#build's
// completeReassignmentIfNeeded); a change that drops replicas bumps the
// leader epoch (PCB#triggerLeaderEpochBumpForReplicaReassignmentIfNeeded).
func (c *Controller) build(i int, target []int32, gone int32, preferred bool) {
	p := &c.parts[i]
	prev := p.Replicas
	replicas, target, done := c.complete(i, target)
	ok := func(id int32) bool { return id != gone && c.active(id) }
	leader := int32(-1)
	isr := target
	recovering := p.Recovering
	switch {
	case preferred && ok(replicas[0]) && slices.Contains(target, replicas[0]):
		leader = replicas[0]
	case p.Leader >= 0 && slices.Contains(target, p.Leader) && ok(p.Leader):
		leader = p.Leader
	default:
		for _, id := range replicas {
			if ok(id) && slices.Contains(target, id) {
				leader = id
				break
			}
		}
		if leader < 0 && c.cfg.ELR {
			for _, id := range replicas {
				if ok(id) && slices.Contains(p.ELR, id) {
					// KIP-966: an eligible leader replica holds every
					// committed record; its election is clean.
					leader, isr = id, []int32{id}
					c.note("p" + strconv.FormatInt(int64(p.Partition), 10) + " leader b" + strconv.FormatInt(int64(id)+1, 10) + " elected from the ELR")
					break
				}
			}
		}
		if leader < 0 && c.cfg.Unclean() {
			for _, id := range replicas {
				if ok(id) {
					leader, isr, recovering = id, []int32{id}, true
					c.note("p" + strconv.FormatInt(int64(p.Partition), 10) + " unclean election of b" + strconv.FormatInt(int64(id)+1, 10))
					break
				}
			}
		}
	}
	if len(isr) == 0 {
		// PCB#build:431: an empty ISR is never written.
		isr = p.ISR
	}
	elr := p.ELR
	c.updateELR(p, isr)
	if recovering && !p.Recovering {
		// An unclean election: no replica is known to hold every
		// committed record any more.
		p.ELR = nil
	}
	if leader == p.Leader && slices.Equal(isr, p.ISR) && slices.Equal(elr, p.ELR) && !done {
		return
	}
	if done {
		c.moves[i] = move{}
		p.Replicas = replicas
		c.note("p" + strconv.FormatInt(int64(p.Partition), 10) + " reassignment completes: replicas " + string(model.AppendBrokers(nil, replicas)))
	}
	if leader != p.Leader || !subset(prev, p.Replicas) {
		p.LeaderEpoch++
		who := "none"
		if leader >= 0 {
			who = "b" + strconv.FormatInt(int64(leader)+1, 10)
		}
		c.note("p" + strconv.FormatInt(int64(p.Partition), 10) + " leader " + who + " epoch " + strconv.FormatInt(int64(p.LeaderEpoch), 10) + " isr " + string(model.AppendBrokers(nil, isr)))
	}
	p.Leader = leader
	p.ISR = append(p.ISR[:0:0], isr...)
	p.Recovering = recovering
	p.PartitionEpoch++
	c.changed = append(c.changed, i)
}

// updateELR moves p's eligible leader replicas for its ISR becoming isr
// (KIP-966): with the new ISR below min.insync.replicas, the members it
// loses join the ELR; members of the new ISR leave it; at or above
// min.insync.replicas the ELR is empty. Nothing without ELR.
func (c *Controller) updateELR(p *model.PartitionState, isr []int32) {
	if !c.cfg.ELR {
		return
	}
	if len(isr) >= max(c.cfg.MinISR, 1) {
		p.ELR = nil
		return
	}
	var elr []int32
	for _, id := range p.Replicas {
		inNew := slices.Contains(isr, id)
		if !inNew && (slices.Contains(p.ELR, id) || slices.Contains(p.ISR, id)) {
			elr = append(elr, id)
		}
	}
	p.ELR = elr
}

// dropFromELR removes broker b from every ELR (it came back from an
// unclean shutdown, so its log may lack committed records) and records
// the partitions that changed.
func (c *Controller) dropFromELR(b int32) {
	for i := range c.parts {
		p := &c.parts[i]
		if j := slices.Index(p.ELR, b); j >= 0 {
			p.ELR = slices.Delete(slices.Clone(p.ELR), j, j+1)
			if len(p.ELR) == 0 {
				p.ELR = nil
			}
			p.PartitionEpoch++
			c.changed = append(c.changed, i)
		}
	}
}

// publish sends the changed partitions and the fenced brokers to every
// broker, if anything changed.
func (c *Controller) publish() {
	if len(c.changed) == 0 && !c.fencing && !c.coordChanged {
		return
	}
	c.fencing, c.coordChanged = false, false
	slices.Sort(c.changed)
	c.changed = slices.Compact(c.changed)
	c.offset++
	m := &model.MetadataUpdate{Partitions: make([]model.PartitionState, 0, len(c.changed)), Offset: c.offset}
	for _, i := range c.changed {
		m.Partitions = append(m.Partitions, c.parts[i].Clone())
	}
	m.Fenced, m.ShuttingDown, m.CoordLeaders = c.fencedList(), c.shuttingList(), c.coordLeaders()
	for b := range c.brokers {
		c.out = append(c.out, model.Out{Kind: model.OutSend, Dest: int32(b), Msg: m})
	}
	c.changed = c.changed[:0]
}

func (c *Controller) shuttingList() []int32 {
	var s []int32
	for b := range c.brokers {
		if c.brokers[b].shutdownOffset >= 0 {
			s = append(s, int32(b))
		}
	}
	return s
}

func (c *Controller) fencedList() []int32 {
	var f []int32
	for b := range c.brokers {
		if c.brokers[b].fenced {
			f = append(f, int32(b))
		}
	}
	return f
}

// Metadata returns the controller's latest publication in full: every
// partition's registration and the fenced brokers (what a broker or a
// coordinator that starts reads from the metadata log).
func (c *Controller) Metadata() *model.MetadataUpdate { return c.full() }

// full returns every partition's registration and the fenced brokers at
// the latest offset.
func (c *Controller) full() *model.MetadataUpdate {
	m := &model.MetadataUpdate{Partitions: make([]model.PartitionState, 0, len(c.parts)), Offset: c.offset, Fenced: c.fencedList(), ShuttingDown: c.shuttingList(),
		CoordLeaders: c.coordLeaders()}
	for i := range c.parts {
		m.Partitions = append(m.Partitions, c.parts[i].Clone())
	}
	return m
}

// armFence asks for a wake-up at the earliest session expiry, if it is
// not the pending one (QC#rescheduleMaybeFenceStaleBrokers:1202).
func (c *Controller) armFence() {
	at, ok := sim.Time(0), false
	for _, r := range c.brokers {
		if d := r.lastContact.Add(c.cfg.session()) + 1; !r.fenced && (!ok || d < at) {
			at, ok = d, true
		}
	}
	if !ok || (c.fenceAt >= 0 && c.fenceAt <= at) {
		return
	}
	c.fenceTok += 2
	c.fenceAt = at
	c.out = append(c.out, model.Out{Kind: model.OutWake, At: at, Timer: c.fenceTok})
}

// armUnclean asks for the periodic unclean-election check while unclean
// election is in effect and some partition has no leader.
func (c *Controller) armUnclean(now sim.Time) {
	if !c.cfg.Unclean() || c.uncleanAt >= 0 {
		return
	}
	for i := range c.parts {
		if c.parts[i].Leader < 0 {
			c.uncleanTok = (c.uncleanTok + 2) | 1 // odd; the session check's are even
			c.uncleanAt = now.Add(c.cfg.uncleanInterval())
			c.out = append(c.out, model.Out{Kind: model.OutWake, At: c.uncleanAt, Timer: c.uncleanTok})
			return
		}
	}
}

// Crash drops the controller's timers; its registrations survive (the
// metadata log).
func (c *Controller) Crash() {
	c.fenceAt, c.uncleanAt, c.balanceAt = -1, -1, -1
}

// Restart starts a new session count for every unfenced broker (a new
// active controller's heartbeat manager starts empty), republishes every
// partition and re-arms the timers.
func (c *Controller) Restart(now sim.Time, _ bool) []model.Out { return c.Start(now) }

func (c *Controller) note(s string) { c.out = append(c.out, model.Out{Kind: model.OutNote, Note: s}) }
