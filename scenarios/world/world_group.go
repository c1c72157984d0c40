package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// A group application (app.mode=exactly-once-v2 or exactly-once-groupid,
// docs/consumers.md) runs its instances at once: each is a consumer in
// the application's group and a producer with its own transactional.id
// (input.GroupProducer, input.GroupConsumer), and processes the input
// partitions the group assigns it (world_input.go). World.groupApp says
// the world runs one (not in a scripted world); its input record goes to
// its input partition's output partition, so that each output partition
// holds one input partition's records in order.

// groupRevoke runs in's onPartitionsRevoked when its consumer is about to
// rejoin: the open transaction commits first, and the rejoin waits for
// its end (groupTxnEnd), so that no transaction spans two assignments.
func (w *World) groupRevoke(now sim.Time, in *instance) {
	if in.revokeWait || !in.cons.Revoking() {
		return
	}
	if outs, open := in.prod.CommitOpen(now); open {
		in.revokeWait = true
		w.apply(now, in, outs)
		return
	}
	w.consOuts(now, in, in.cons.Revoked(now))
}

// groupTxnEnd follows the end of a transaction of in: a rejoin waiting
// for it goes on; after an abort the consumer seeks back to the committed
// offsets (resetToLastCommittedPositions).
func (w *World) groupTxnEnd(now sim.Time, in *instance, t *model.TxnResult) {
	if in.revokeWait {
		in.revokeWait = false
		w.consOuts(now, in, in.cons.Revoked(now))
	} else if !t.Committed && !t.Failed {
		w.consOuts(now, in, in.cons.Rewind(now))
	}
}

// groupConn gives in's consumer a connection to dest (index k): the
// producer's if it is open, else a new one that the producer shares. The
// network keeps one connection per node pair, and a group member's
// consumer and producer talk to the same servers (both to the group
// coordinator), so they share it rather than break each other's.
func (w *World) groupConn(in *instance, k int, dest int32) simnet.Conn {
	c := in.conns[k]
	if c.Gen == 0 || !w.nw.Alive(c) {
		c = w.nw.Connect(in.node, w.destNode(dest))
		in.conns[k] = c
	}
	in.cconns[k] = c
	return c
}
