package controller

import (
	"slices"

	"time"

	"github.com/idemsim/idemsim/model"
)

// Quiet replication (docs/replication.md "Idle replication"): the
// controller's parts of carrying idle replication across a span in one
// step (scenarios/world/world_replidle.go).

// Quiet reports whether the controller has nothing to do but take
// heartbeats: no broker fenced, every partition led with all its
// replicas in the ISR (so no ELR, no unclean-election check and no
// reassignment in progress) and no preferred-leader check armed.
func (c *Controller) Quiet() bool {
	for _, r := range c.brokers {
		if r.fenced {
			return false
		}
	}
	if c.uncleanAt >= 0 || c.balanceAt >= 0 {
		return false
	}
	for i := range c.parts {
		p := &c.parts[i]
		if p.Leader < 0 || !slices.Contains(p.ISR, p.Leader) || len(p.ISR) != len(p.Replicas) {
			return false
		}
	}
	return true
}

// Partitions returns every partition's registration, by partition id.
// The caller must not modify them.
func (c *Controller) Partitions() []model.PartitionState { return c.parts }

// Offset returns the number of publications so far: a broker that
// applied the latest one reports it in its heartbeats.
func (c *Controller) Offset() int64 { return c.offset }

// SessionTimeout returns broker.session.timeout.ms.
func (c *Controller) SessionTimeout() time.Duration { return c.cfg.session() }

// ShiftTimes moves every time the controller recorded d later: the
// brokers' last contacts and its armed checks (the world moves the timers
// themselves).
func (c *Controller) ShiftTimes(d time.Duration) {
	for i := range c.brokers {
		c.brokers[i].lastContact = c.brokers[i].lastContact.Add(d)
	}
	if c.fenceAt >= 0 {
		c.fenceAt = c.fenceAt.Add(d)
	}
	if c.uncleanAt >= 0 {
		c.uncleanAt = c.uncleanAt.Add(d)
	}
	if c.balanceAt >= 0 {
		c.balanceAt = c.balanceAt.Add(d)
	}
}
