package world

import (
	"github.com/idemsim/idemsim/model"
	simnet "github.com/idemsim/idemsim/net"
	"github.com/idemsim/idemsim/scenarios/world/internal/hashwalk"
)

// A server kind beyond the brokers, the transaction coordinator and the
// controller (the group coordinator today, a share-group coordinator
// tomorrow) is one file of this package, node_<kind>.go, that registers
// it: its node's name, the destination index clients and servers address
// it by, when a world has it, and how its state machine is built. The
// World adds the registered kinds' nodes after the coordinator, in
// registration order (init order: the files' names), maps their
// destinations, gives each client a connection slot for each, and
// recycles their state machines from run to run. Dispatch needs nothing
// new: deliveries and wake-ups reach any [model.Server] through Step and
// Wake, and every message goes through the fate pipeline (fate.go).
// docs/architecture.md's node kind recipe counts the files this saves.

// serverKind is a registered kind of server node; a world has at most one
// node of each.
type serverKind struct {
	// name is the node's name ("g1"): the node names' single source
	// with topology.go.
	name string
	// dest is the destination index that addresses the node in
	// [model.Out] (negative: model.DestGroupCoordinator).
	dest int32
	// present reports whether world w has the node; w.cfg and w.topo are
	// set.
	present func(w *World) bool
	// build returns the node's state machine for w's run: spare, the
	// same kind's node of the World's previous run (nil if none),
	// reset, or a new one.
	build func(w *World, spare model.Server) model.Server
	// scratch names the state machine's fields the state hash leaves
	// out, as hashwalk.Scratch spells them: allocator state,
	// storage kept for reuse.
	scratch []string
}

// maxServerKinds bounds the registered kinds, so that the World keeps
// their nodes and spares in arrays, not per-run allocations.
const maxServerKinds = 4

// serverKinds are the registered kinds, in registration order.
var serverKinds []serverKind

// registerServerKind registers kind k, from its file's init.
func registerServerKind(k serverKind) {
	if len(serverKinds) == maxServerKinds {
		panic("world: more than maxServerKinds server kinds: raise it (serverkind.go)")
	}
	for _, o := range serverKinds {
		if o.name == k.name || o.dest == k.dest {
			panic("world: server kind " + k.name + " registered twice, or its destination is taken")
		}
	}
	if k.dest >= 0 || k.dest == model.DestCoordinator || k.dest == model.DestController {
		panic("world: server kind " + k.name + ": its destination must be negative and its own")
	}
	for _, f := range k.scratch {
		hashwalk.Scratch[f] = true
	}
	serverKinds = append(serverKinds, k)
}

// addServerKinds adds the registered kinds' nodes the world has, after
// the coordinator.
func (w *World) addServerKinds() {
	for i, k := range serverKinds {
		w.kindNode[i] = -1
		if !k.present(w) {
			continue
		}
		srv := k.build(w, w.spare.kinds[i])
		w.spare.kinds[i] = nil
		holder, _ := srv.(model.EffectHolder)
		w.kindNode[i] = simnet.NodeID(len(w.nodes))
		w.nodes = append(w.nodes, node{kind: kindRegistered, name: k.name, srv: srv, holder: holder})
		if _, ok := srv.(model.Starter); ok { // a client (node_reader.go): it starts with the instances
			w.starts = append(w.starts, timedEvent{at: 0, ev: Event{kind: evStart, node: int32(w.kindNode[i])}})
		}
	}
}

// kindIndex returns the registered kind addressed by dest, -1 if none.
func kindIndex(dest int32) int {
	for i := range serverKinds {
		if serverKinds[i].dest == dest {
			return i
		}
	}
	return -1
}

// kindDest returns the destination index of node n if it is a registered
// kind's node.
func (w *World) kindDest(n simnet.NodeID) (int32, bool) {
	for i := range serverKinds {
		if w.kindNode[i] == n {
			return serverKinds[i].dest, true
		}
	}
	return 0, false
}
