package world

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/controller"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/world/internal/repl"
	"github.com/idemsim/idemsim/sim"
)

// In a replicated run the transaction coordinator c1 lives on the broker
// that leads __transaction_state (TransactionStateManager.partitionFor;
// TransactionCoordinator.onElection / onResignation), txnHost.host. It
// crashes with its host; after broker.session.timeout.ms the controller
// has fenced the host and elected the next live replica, whose coordinator
// reloads the log under coordinator epoch + 1 and sends the markers of
// every Prepare* again (coordinator.Coordinator's Restart). If the host
// comes back first, the coordinator restarts on it. With a transactional
// producer (txnHosting.on) both coordinators follow their hosts
// (docs/operations.md, "Coordinator migration"): c1 and g1 (on the
// __consumer_offsets leader, b1 at first) share their host's partitions
// (net's Follow) and answer a request sent to another broker
// NOT_COORDINATOR, and for coordinator.load.ms after a move
// COORDINATOR_LOAD_IN_PROGRESS (coordinator.Hosting); the brokers answer
// FindCoordinator with the host; and a publication that fences the host or
// puts it in controlled shutdown moves the coordinator (coordFollow).

// txnHosting is the coordinators' hosts in a replicated run.
type txnHosting struct {
	// host is the transaction coordinator's broker index, group the
	// group coordinator's; gen numbers the pending move (a host restart
	// or a new election cancels an older one).
	host, group int
	gen         uint64
	on          bool
	// load is coordinator.load.ms, once both coordinators are placed.
	load time.Duration
}

// hostsCoordinator reports whether broker node n hosts the coordinator.
func (w *World) hostsCoordinator(n simnet.NodeID) bool {
	return w.repl.replicated() && w.txnHost.host < len(w.brokerNode) && w.brokerNode[w.txnHost.host] == n
}

// hostStart places the coordinators at the start of a replicated run.
func (w *World) hostStart() {
	if w.txnHost.on = w.pcfg.TransactionalID != "" && w.pcfg.TransactionRecords > 0; w.txnHost.on {
		w.place(0, false)
		w.place(0, true)
		w.txnHost.load = time.Duration(w.cfg.Coordinator.LoadMs) * time.Millisecond
	}
}

// place tells coordinator node (g1 if group) its host, loaded after
// txnHost.load, and the network and brokers where it is.
func (w *World) place(now sim.Time, group bool) {
	host, n, t := w.txnHost.host, w.coordNode, model.CoordKeyTransaction
	if group {
		host, n, t = w.txnHost.group, w.kindNode[kindIndex(model.DestGroupCoordinator)], model.CoordKeyGroup
	}
	if !w.txnHost.on || n < 0 {
		return
	}
	w.nodes[n].srv.(interface{ Host(int32, sim.Time) }).Host(int32(host), now.Add(w.txnHost.load))
	w.nw.Follow(n, w.brokerNode[host])
	for _, b := range w.brokerNode {
		w.nodes[b].broker.SetCoordinator(t, int32(host), true)
	}
}

// coordFollow moves each coordinator whose host publication m fences or
// puts in controlled shutdown to the next active broker, which loads its
// log (TransactionCoordinator.onResignation on the old host, onElection
// on the new). Its clients' connections stay; its own to other servers
// break, as a crash's do (its marker channel goes).
func (w *World) coordFollow(now sim.Time, m *model.MetadataUpdate) {
	gone := func(b int) bool {
		return slices.Contains(m.Fenced, int32(b)) || slices.Contains(m.ShuttingDown, int32(b))
	}
	for _, group := range []bool{false, true} {
		h, n := &w.txnHost.host, w.coordNode
		if group {
			h, n = &w.txnHost.group, w.kindNode[kindIndex(model.DestGroupCoordinator)]
		}
		if !w.txnHost.on || n < 0 || w.nodes[n].fault.crashed || !gone(*h) {
			continue
		}
		b := repl.NextHost(*h, len(w.brokerNode), func(b int) bool { return !gone(b) && !w.nodes[w.brokerNode[b]].fault.crashed })
		if b < 0 || b == *h {
			continue
		}
		w.note(now, n, "resigns on "+w.names[w.brokerNode[*h]]+" and moves to "+w.names[w.brokerNode[b]]+", the new leader of its log, which loads it")
		if *h = b; !group {
			w.txnHost.gen++
			w.coord.Crash()
			w.closeServerConns(n)
			w.takeNotices(now)
			w.serverOuts(now, n, w.coord.Restart(now, false))
			w.repl.coordMetadata(w, now)
		}
		w.place(now, group)
	}
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
	w.place(now, false)
}

// coordMove moves a crashed coordinator to the first live broker after its
// host (the controller's election of a new __transaction_state leader).
func (w *World) coordMove(now sim.Time, ev Event) {
	c := w.coordNode
	if ev.n != w.txnHost.gen || !w.nodes[c].fault.crashed {
		return
	}
	// With no live broker the next host restart brings it back
	// (hostRestarted, with the host unchanged).
	if b := repl.NextHost(w.txnHost.host, len(w.brokerNode), func(b int) bool { return !w.nodes[w.brokerNode[b]].fault.crashed }); b >= 0 {
		w.txnHost.host = b
		w.note(now, c, "moves to "+w.names[w.brokerNode[b]]+", the new __transaction_state leader, and loads the log")
		w.restart(now, c, false)
		w.repl.coordMetadata(w, now)
		w.place(now, false)
	}
}
