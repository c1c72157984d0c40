package controller

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// The coordinators' internal partitions (docs/operations.md, "Coordinator
// migration"): the transaction coordinator lives on the leader of its
// __transaction_state partition, the group coordinator on the leader of
// its __consumer_offsets partition (TransactionStateManager.partitionFor,
// GroupCoordinator's partitionFor). With ControllerConfig.Coordinators the
// controller keeps one registration of each, model.TxnStatePartition and
// model.OffsetsPartition, and publishes their leaders in every
// [model.MetadataUpdate] (CoordLeaders); the world moves each
// coordinator to its partition's leader.
//
// The model does not replicate the coordinators' logs (one coordinator
// node, one log): each internal partition has every broker as a replica,
// in index order, so broker 0 (b1) is its preferred leader, and every
// active broker (unfenced, not in controlled shutdown) counts as in
// sync. Hence:
//   - a fence or a controlled shutdown of the leader moves the leadership
//     to the next active broker after it in index order (no leader when
//     none is active), the rule the model's coordinators followed before
//     the controller kept their partitions. Kafka's
//     PartitionChangeBuilder#electAnyLeader takes the first in-sync
//     active replica in replica order instead: when b2 leads after b1
//     came back and b2 shuts down, Kafka elects b1, the model b3;
//   - a leaderless internal partition elects the first broker unfenced
//     (RCM#handleBrokerUnfenced);
//   - a preferred-leader election (the operator's ElectLeaders, or the
//     periodic check of auto.leader.rebalance.enable) moves the leadership
//     back to b1 when b1 is active, as for a data partition
//     (PCB#electPreferredLeader), and counts an internal partition led
//     elsewhere as imbalanced (RCM's imbalancedPartitions holds every
//     partition of every topic, internal ones included);
//   - a reassignment does not name them: with no replicated log there is
//     nothing to copy or catch up (docs/operations.md).
//
// A move of the leadership bumps the partition's leader epoch (the
// coordinator epoch of the new host: TransactionStateManager's
// loadTransactionsForTxnTopicPartition takes it as the coordinator
// epoch). Only a preferred election writes a note: the world writes the
// others' (the coordinator "resigns ... and moves to ...").

// coordPart is the registration of an internal partition.
type coordPart struct {
	// leader is the leader's broker index, -1 for none; epoch its
	// leader epoch.
	leader, epoch int32
}

// CoordLeader returns the leader of internal partition id
// (model.TxnStatePartition or model.OffsetsPartition), -1 for none or
// when the controller hosts no internal partitions.
func (c *Controller) CoordLeader(id int32) int32 {
	if k := model.CoordLogIndex(id); k >= 0 && k < len(c.coords) {
		return c.coords[k].leader
	}
	return -1
}

// coordLeaders returns the internal partitions' leaders for a
// publication, nil when the controller hosts none.
func (c *Controller) coordLeaders() []int32 {
	if len(c.coords) == 0 {
		return nil
	}
	ls := make([]int32, len(c.coords))
	for k, p := range c.coords {
		ls[k] = p.leader
	}
	return ls
}

// coordLead makes broker b the leader of internal partition k.
func (c *Controller) coordLead(k int, b int32) {
	c.coords[k].leader = b
	c.coords[k].epoch++
	c.coordChanged = true
}

// coordRemove moves the leadership of every internal partition that
// broker b, being fenced or entering controlled shutdown, leads to the
// next active broker after b, none if there is none.
func (c *Controller) coordRemove(b int32) {
	for k := range c.coords {
		if c.coords[k].leader != b {
			continue
		}
		next := int32(-1)
		for i := 1; i <= len(c.brokers); i++ {
			if id := (b + int32(i)) % int32(len(c.brokers)); c.active(id) {
				next = id
				break
			}
		}
		c.coordLead(k, next)
	}
}

// coordUnfenced has every leaderless internal partition elect broker b,
// just unfenced.
func (c *Controller) coordUnfenced(b int32) {
	for k := range c.coords {
		if c.coords[k].leader < 0 && c.active(b) {
			c.coordLead(k, b)
		}
	}
}

// coordPreferred runs the preferred-leader election of internal
// partition k (index in coords); named says whether the request named it
// (its ELECTION_NOT_NEEDED and PREFERRED_LEADER_NOT_AVAILABLE get a note).
func (c *Controller) coordPreferred(k int, named bool) {
	p := &c.coords[k]
	tag := model.CoordLogName(model.CoordLogID(k))
	switch {
	case p.leader == 0:
		if named {
			c.note(tag + " preferred leader election not needed: b1 leads (ELECTION_NOT_NEEDED)")
		}
	case c.active(0):
		c.coordLead(k, 0)
		c.note(tag + " leader b1 epoch " + strconv.FormatInt(int64(p.epoch), 10) + " (preferred)")
	case named:
		c.note(tag + " preferred leader b1 not available: not in the ISR or not active (PREFERRED_LEADER_NOT_AVAILABLE)")
	}
}

// coordImbalanced reports whether some internal partition is not led by
// b1.
func (c *Controller) coordImbalanced() bool {
	for _, p := range c.coords {
		if p.leader != 0 {
			return true
		}
	}
	return false
}
