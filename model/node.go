package model

import "github.com/idemsim/idemsim/sim"

// Every process of the simulated world is a pure state machine with the
// same shape (etcd raft's Step): a message or a timer goes in, effects come
// out as [Out] values (messages to send, timers to set, observations), and
// nothing else happens. A node has no event loop, no network and no clock
// of its own; the world calls it and carries out what it returns.
//
// The producer (client.Producer) talks to its destinations by index: broker
// index 0.. (a partition leader) or [DestCoordinator]. Server nodes
// (broker.Broker, coordinator.Coordinator) answer the request they are
// handed with OutReply to its [Peer], and reach each other with OutSend by
// the same destination indexes, over the network: the world opens the
// connection, tells the sender when it breaks ([Disconnected]) and closes
// it on an OutClose (a server's request timeout).

// Server is a server process: a broker.Broker or the coordinator.Coordinator.
type Server interface {
	// Step handles message m from peer.
	Step(now sim.Time, from Peer, m Message) []Out
	// Wake handles the timer with the given token (an OutWake the node
	// asked for). A token the node no longer waits for is ignored.
	Wake(now sim.Time, token uint64) []Out
	// Crash loses the node's volatile state (parked requests, timers);
	// what it persists survives.
	Crash()
	// Restart starts the node again from what it persisted; clean tells a
	// clean shutdown (a final snapshot) from a crash.
	Restart(now sim.Time, clean bool) []Out
}

// Starter is a node that starts by itself, at the start of the run (a
// broker, the consumer); the world calls Start once before any Step.
type Starter interface {
	Start(now sim.Time) []Out
}

// Peer identifies the sender of a message a server handles.
type Peer struct {
	// Node is the sender's node id in the world, for observations.
	Node int32
	// ReqNo numbers a client's request on its link, 1-based (a server
	// sending to another server is the client of that link); 0 for a
	// disconnect notice.
	ReqNo int64
	// Handle is the world's reply handle: a server answers with an OutReply
	// carrying this Peer, and never reads Handle.
	Handle uint64
}
