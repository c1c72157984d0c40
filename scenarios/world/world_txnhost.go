package world

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/sim"
)

// In a replicated run the transaction coordinator c1 lives on the broker
// that leads __transaction_state (TransactionStateManager.partitionFor;
// TransactionCoordinator.onElection / onResignation), txnHost.host, and
// the group coordinator g1 on the leader of __consumer_offsets: the
// controller keeps both partitions (model/controller/coordparts.go) and
// publishes their leaders, and coordFollow moves each coordinator to its
// partition's leader. c1 crashes with its host; once the controller has
// fenced the host and elected another leader, c1 reloads the log there
// under coordinator epoch + 1 and sends the markers of every Prepare*
// again (coordinator.Coordinator's Restart). If the host comes back
// first, the coordinator restarts on it. With a transactional producer
// (txnHosting.on) both coordinators follow their hosts
// (docs/operations.md, "Coordinator migration"): c1 and g1 share their
// host's partitions (net's Follow) and answer a request sent to another
// broker NOT_COORDINATOR, and for coordinator.load.ms after a move
// COORDINATOR_LOAD_IN_PROGRESS (coordinator.Hosting); the brokers answer
// FindCoordinator with the host.

// txnHosting is the coordinators' hosts in a replicated run.
type txnHosting struct {
	// host is the transaction coordinator's broker index, group the
	// group coordinator's; down: c1 went down with its host.
	host, group int
	down, on    bool
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
	w.probe.touchAll() // statehash.go
	w.nodes[n].srv.(interface{ Host(int32, sim.Time) }).Host(int32(host), now.Add(w.txnHost.load))
	w.nw.Follow(n, w.brokerNode[host])
	for _, b := range w.brokerNode {
		w.nodes[b].broker.SetCoordinator(t, int32(host), true)
	}
}

// coordFollow moves each coordinator to the leader of its partition that
// publication m names, when that leader changed (a fence, a controlled
// shutdown, a preferred-leader election): TransactionCoordinator's
// onResignation on the old host, onElection on the new, which loads the
// log. c1's requests whose writes were in flight are answered
// NOT_COORDINATOR (coordinator.Coordinator's Resign); its clients'
// connections stay; its own to other servers break, as a crash's do (its
// marker channel goes). g1 follows only with a transactional producer.
func (w *World) coordFollow(now sim.Time, m *model.MetadataUpdate) {
	for k, to := range m.CoordLeaders {
		h, n := &w.txnHost.host, w.coordNode
		if k == 1 {
			h, n = &w.txnHost.group, w.kindNode[kindIndex(model.DestGroupCoordinator)]
		}
		b := int(to)
		if b < 0 || b == *h || n < 0 || k == 1 && !w.txnHost.on {
			continue
		}
		nd := &w.nodes[n]
		why := ", the new leader of its log, which loads it"
		if !slices.Contains(m.Fenced, int32(*h)) && !slices.Contains(m.ShuttingDown, int32(*h)) {
			why = ", its log's preferred leader (a preferred-leader election), which loads it"
		}
		from := w.names[w.brokerNode[*h]]
		switch *h = b; {
		case nd.fault.crashed && k == 1: // g1 crashed by the plan: it restarts on b
		case k == 1 || !nd.fault.crashed && !w.nodes[w.brokerNode[b]].fault.crashed:
			w.note(now, n, "resigns on "+from+" and moves to "+w.names[w.brokerNode[b]]+why)
			if k == 0 {
				w.serverOuts(now, n, w.coord.Resign())
				w.coord.Crash()
				w.closeServerConns(n)
				w.takeNotices(now)
				w.serverOuts(now, n, w.coord.Restart(now, false))
				w.repl.coordMetadata(w, now)
			}
		case !nd.fault.crashed: // its new host is down, not yet fenced
			w.serverOuts(now, n, w.coord.Resign())
			w.note(now, n, "moves to "+w.names[w.brokerNode[b]]+", the new __transaction_state leader, which is down")
			w.crash(now, n)
			w.txnHost.down = true
		case w.txnHost.down && !w.nodes[w.brokerNode[b]].fault.crashed:
			w.txnHost.down = false
			w.note(now, n, "moves to "+w.names[w.brokerNode[b]]+", the new __transaction_state leader, and loads the log")
			w.restart(now, n, false)
			w.repl.coordMetadata(w, now)
		}
		w.place(now, k == 1)
	}
}

// hostCrashed crashes the coordinator with its host broker n; it moves
// when the controller elects another leader (coordFollow).
func (w *World) hostCrashed(now sim.Time, n simnet.NodeID) {
	if !w.hostsCoordinator(n) || w.nodes[w.coordNode].fault.crashed {
		return
	}
	w.note(now, w.coordNode, "crashes with its host "+w.names[n]+" (the __transaction_state leader)")
	w.crash(now, w.coordNode)
	w.txnHost.down = true
}

// hostRestarted restarts a coordinator that went down with broker n, when n
// comes back before the coordinator moved.
func (w *World) hostRestarted(now sim.Time, n simnet.NodeID) {
	if !w.hostsCoordinator(n) || !w.nodes[w.coordNode].fault.crashed {
		return
	}
	w.txnHost.down = false
	w.note(now, w.coordNode, "restarts on "+w.names[n]+", its host again")
	w.restart(now, w.coordNode, false)
	w.repl.coordMetadata(w, now)
	w.place(now, false)
}
