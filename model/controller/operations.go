package controller

import (
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Operator operations on the controller (docs/operations.md): the
// preferred-leader election (ElectLeaders with election type PREFERRED,
// kafka-leader-election.sh), its periodic form (auto.leader.rebalance.enable)
// and partition reassignment (AlterPartitionReassignments,
// kafka-reassign-partitions.sh; KIP-455). Citations are to Kafka trunk
// of 2024-2025, metadata/src/main/java/org/apache/kafka/controller/:
// PartitionChangeBuilder.java (PCB, apache/kafka@04097f0c52),
// PartitionReassignmentReplicas.java (PRR, apache/kafka@11ad3ba54a),
// ReplicationControlManager.java (RCM, read in confluentinc/kafka@01974fc9e0,
// a mirror of apache/kafka trunk) and QuorumController.java (QC);
// core/src/main/scala/kafka/server/ControllerServer.scala hands QC the
// check interval only with auto.leader.rebalance.enable (docs/operations.md).

// DefaultLeaderImbalanceCheckInterval is
// leader.imbalance.check.interval.seconds' default, 300 s.
const DefaultLeaderImbalanceCheckInterval = 300 * time.Second

// balanceBase marks the preferred-leader check's timer tokens (the
// session check's are small and even, the unclean check's small and
// odd).
const balanceBase uint64 = 1 << 62

// move is a partition's reassignment in progress: the replicas being
// added and those being removed (PartitionRegistration's addingReplicas
// and removingReplicas, each in increasing broker order as PRR computes
// them). The registration's replicas are the target's followed by the
// removing ones while it lasts.
type move struct {
	adding, removing []int32
}

func (m move) on() bool { return len(m.adding) > 0 || len(m.removing) > 0 }

// Reassigning reports whether partition id has a reassignment in
// progress.
func (c *Controller) Reassigning(id int32) bool {
	i := c.part(id)
	return i >= 0 && c.moves[i].on()
}

// ElectPreferred handles an operator's ElectLeaders request with election
// type PREFERRED (RCM#electLeaders, RCM#electLeader) for the partitions
// ids, every partition when ids is empty. A partition led by its preferred
// replica (the first of its replicas) is left alone (ELECTION_NOT_NEEDED);
// otherwise PCB#electPreferredLeader elects the preferred replica if it
// is in the ISR and active (unfenced, not in controlled shutdown), and
// else changes nothing (PREFERRED_LEADER_NOT_AVAILABLE). The old leader
// learns from the publication that it is a follower; its clients get
// NOT_LEADER_OR_FOLLOWER. Each outcome is a note. The ids may name the
// coordinators' internal partitions (model.TxnStatePartition,
// model.OffsetsPartition), which an election of every partition includes
// (coordparts.go).
func (c *Controller) ElectPreferred(now sim.Time, ids []int32) []model.Out {
	c.out = c.out[:0]
	c.changed = c.changed[:0]
	for i := range c.parts {
		p := &c.parts[i]
		named := slices.Contains(ids, p.Partition)
		if len(ids) > 0 && !named {
			continue
		}
		tag := "p" + strconv.FormatInt(int64(p.Partition), 10)
		if p.Leader == p.Replicas[0] {
			if named {
				c.note(tag + " preferred leader election not needed: b" + strconv.FormatInt(int64(p.Leader)+1, 10) + " leads (ELECTION_NOT_NEEDED)")
			}
			continue
		}
		n := len(c.changed)
		c.build(i, p.ISR, -1, true)
		if len(c.changed) == n || p.Leader != p.Replicas[0] {
			c.note(tag + " preferred leader b" + strconv.FormatInt(int64(p.Replicas[0])+1, 10) + " not available: not in the ISR or not active (PREFERRED_LEADER_NOT_AVAILABLE)")
		}
	}
	for k := range c.coords {
		named := slices.Contains(ids, model.CoordLogID(k))
		if len(ids) == 0 || named {
			c.coordPreferred(k, named)
		}
	}
	c.publish()
	c.armBalance(now)
	return c.out
}

// Reassign handles an operator's AlterPartitionReassignments for
// partition id with the target replicas (broker indexes, the preferred
// leader first), as RCM#changePartitionReassignment does (KIP-455):
//   - the replicas become the target's followed by those it removes
//     (PRR: removing = current − target, adding = target − current, each
//     sorted), and the partition records both sets;
//   - the added replicas are followers from the publication on: they
//     fetch from the leader from offset 0 and its leader adds each to the
//     ISR (AlterPartition) once it has caught up;
//   - when the ISR holds every target replica (PRR#maybeCompleteReassignment,
//     run by every partition change, PCB#build), the reassignment
//     completes: the removed replicas leave the replicas and the ISR, the
//     leader epoch is bumped, and a removed leader's partition elects the
//     first target replica in the ISR;
//   - a target that only reorders the replicas completes at once.
//
// A target naming a broker outside 0..brokers-1, or one twice, or an
// unknown partition is refused with a note (RCM's
// validateManualPartitionAssignment answers INVALID_REPLICA_ASSIGNMENT;
// plans are checked before they run, so this does not happen there). A
// reassignment in progress is replaced, from the current replicas, as in
// Kafka.
func (c *Controller) Reassign(now sim.Time, id int32, target []int32) []model.Out {
	c.out = c.out[:0]
	c.changed = c.changed[:0]
	i := c.part(id)
	tag := "p" + strconv.FormatInt(int64(id), 10)
	if i < 0 || !c.validTarget(target) {
		c.note(tag + " reassignment to " + string(model.AppendBrokers(nil, target)) + " refused (INVALID_REPLICA_ASSIGNMENT)")
		return c.out
	}
	p := &c.parts[i]
	removing, adding := minus(p.Replicas, target), minus(target, p.Replicas)
	slices.Sort(removing) // PRR#calculateDifference: TreeSets
	slices.Sort(adding)
	replicas := append(slices.Clone(target), removing...)
	c.moves[i] = move{adding: adding, removing: removing}
	c.note(tag + " reassignment to " + string(model.AppendBrokers(nil, target)) + ": adding " + string(model.AppendBrokers(nil, adding)) +
		", removing " + string(model.AppendBrokers(nil, removing)))
	reordered := !slices.Equal(replicas, p.Replicas)
	p.Replicas = replicas
	n := len(c.changed)
	c.change(i, p.ISR, -1)
	if len(c.changed) == n && (reordered || c.moves[i].on()) {
		// Only the replicas (and the reassignment's sets) change: a
		// record of its own, no leader epoch bump.
		p.PartitionEpoch++
		c.changed = append(c.changed, i)
	}
	c.publish()
	c.armBalance(now)
	return c.out
}

// validTarget reports whether target is a valid manual assignment: not
// empty, known brokers, none twice (RCM#validateManualPartitionAssignment).
func (c *Controller) validTarget(target []int32) bool {
	if len(target) == 0 {
		return false
	}
	for j, b := range target {
		if b < 0 || int(b) >= len(c.brokers) || slices.Contains(target[:j], b) {
			return false
		}
	}
	return true
}

// complete returns partition i's replicas and target ISR after its
// reassignment completes, if the target ISR lets it
// (PRR#maybeCompleteReassignment): the ISR without the removing replicas
// must not be empty and must hold every replica left. Otherwise it
// returns the replicas and target as they are, and false.
func (c *Controller) complete(i int, target []int32) ([]int32, []int32, bool) {
	p, m := &c.parts[i], c.moves[i]
	if !m.on() {
		return p.Replicas, target, false
	}
	isr, replicas := target, p.Replicas
	if len(m.removing) > 0 {
		isr, replicas = minus(target, m.removing), minus(p.Replicas, m.removing)
		if len(isr) == 0 || len(replicas) == 0 {
			return p.Replicas, target, false
		}
	}
	if !subset(replicas, isr) {
		return p.Replicas, target, false
	}
	return replicas, isr, true
}

// minus returns the members of a that are not in b, in a's order.
func minus(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// imbalanced reports whether partition p is not led by its preferred
// replica, a leaderless partition included (RCM#replay keeps
// imbalancedPartitions: every partition without hasPreferredLeader()).
func imbalanced(p *model.PartitionState) bool {
	return p.Leader != p.Replicas[0]
}

// balance runs the periodic preferred-leader election
// (RCM#maybeBalancePartitionLeaders): a PREFERRED election for every
// imbalanced partition.
func (c *Controller) balance() {
	for i := range c.parts {
		if imbalanced(&c.parts[i]) {
			c.build(i, c.parts[i].ISR, -1, true)
		}
	}
	for k := range c.coords {
		c.coordPreferred(k, false)
	}
}

// armBalance schedules the preferred-leader check when
// auto.leader.rebalance.enable is on, none is scheduled and some
// partition is imbalanced, one leader.imbalance.check.interval.seconds
// from now (QC#maybeScheduleNextBalancePartitionLeaders, after every
// write: DEFERRED, so the interval even after a check that elected).
func (c *Controller) armBalance(now sim.Time) {
	if !c.cfg.AutoLeaderRebalance || c.balanceAt >= 0 {
		return
	}
	for i := 0; i <= len(c.parts); i++ {
		if i == len(c.parts) && c.coordImbalanced() || i < len(c.parts) && imbalanced(&c.parts[i]) {
			d := c.cfg.LeaderImbalanceCheckInterval
			if d <= 0 {
				d = DefaultLeaderImbalanceCheckInterval
			}
			c.balanceTok = balanceBase | (c.balanceTok+1)&(balanceBase-1)
			c.balanceAt = now.Add(d)
			c.out = append(c.out, model.Out{Kind: model.OutWake, At: c.balanceAt, Timer: c.balanceTok})
			return
		}
	}
}
