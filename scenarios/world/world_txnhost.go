package world

import (
	"github.com/idemsim/idemsim/model/controller"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// In a replicated run the transaction coordinator lives on the broker that
// leads the __transaction_state partition
// (TransactionStateManager.partitionFor;
// TransactionCoordinator.onElection / onResignation): it is the node c1
// hosted by broker txnHost. When its host crashes it crashes too; after
// broker.session.timeout.ms the controller has fenced the host and elected
// the next live replica, whose coordinator loads __transaction_state under
// coordinator epoch + 1, sends the markers of every Prepare* again, and
// serves the transactional ids (the Restart path of coordinator.Coordinator). If
// the host comes back first, the coordinator restarts on it. The log
// itself is the coordinator's (replicated in Kafka with
// transaction.state.log.replication.factor 3 and min.insync.replicas 2):
// what a crash loses is what was never written (coordinator.log.append.time).
//
// Simplified: the coordinator keeps its own network node (clients and
// brokers reach c1 whatever its host), so a partition that isolates the
// host does not move it.

// txnHosting is the coordinator's host in a replicated run.
type txnHosting struct {
	// host is the hosting broker's index; gen numbers the pending move
	// (a host restart or a new election cancels an older one).
	host int
	gen  uint64
}

// hostsCoordinator reports whether broker node n hosts the coordinator.
func (w *World) hostsCoordinator(n simnet.NodeID) bool {
	return w.repl.replicated() && w.txnHost.host < len(w.brokerNode) && w.brokerNode[w.txnHost.host] == n
}

// hostCrashed crashes the coordinator with its host broker n and schedules
// its move to the next live broker after broker.session.timeout.ms.
func (w *World) hostCrashed(now sim.Time, n simnet.NodeID) {
	if !w.hostsCoordinator(n) || w.nodes[w.coordNode].fault.crashed {
		return
	}
	w.note(now, w.coordNode, "crashes with its host "+w.names[n]+" (the __transaction_state leader)")
	w.crash(now, w.coordNode)
	w.txnHost.gen++
	w.schedule(now.Add(controller.DefaultBrokerSessionTimeout), Event{kind: evCoordMove, n: w.txnHost.gen})
}

// hostRestarted restarts a coordinator that went down with broker n, when n
// comes back before the coordinator moved.
func (w *World) hostRestarted(now sim.Time, n simnet.NodeID) {
	if !w.hostsCoordinator(n) || !w.nodes[w.coordNode].fault.crashed {
		return
	}
	w.txnHost.gen++
	w.note(now, w.coordNode, "restarts on "+w.names[n]+", its host again")
	w.restart(now, w.coordNode, false)
	w.repl.coordMetadata(w, now)
}

// coordMove moves a crashed coordinator to the first live broker after its
// host (the controller's election of a new __transaction_state leader).
func (w *World) coordMove(now sim.Time, ev Event) {
	c := w.coordNode
	if ev.n != w.txnHost.gen || !w.nodes[c].fault.crashed {
		return
	}
	nb := len(w.brokerNode)
	for i := 1; i <= nb; i++ {
		b := (w.txnHost.host + i) % nb
		if !w.nodes[w.brokerNode[b]].fault.crashed {
			w.txnHost.host = b
			w.note(now, c, "moves to "+w.names[w.brokerNode[b]]+", the new __transaction_state leader, and loads the log")
			w.restart(now, c, false)
			w.repl.coordMetadata(w, now)
			return
		}
	}
	// No live broker: the next host restart brings it back
	// (hostRestarted, with the host unchanged).
}
