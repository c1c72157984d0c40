// Package model is the Kafka side of idemsim: the protocol messages, error
// codes and ids, and one pure state machine per process kind.
//
// # Nodes
//
// Every process is a state machine with the same shape (etcd raft's Step):
// a message or a timer goes in, effects come out as [Out] values, and
// nothing else happens. A node has no event loop, no network, no clock and
// no randomness of its own (a stream is passed in). The world (package
// scenarios) hands it events and carries out what it returns.
//
//   - [Producer] is the Java client (or, with [PolicyLibrdkafka] or
//     [PolicyFranzGo], that client where it differs: policy*.go):
//     batching, in-flight ordering, retries, sequence numbers, epoch
//     bumps, transactions (producer*.go).
//   - [Broker] leads some partitions of the topic: each [Partition] is a log
//     plus its producer-state map (partition.go, snapshot.go) and runs
//     Kafka's append checks; the broker adds request handling, planned and
//     random transient errors, transaction markers and the periodic
//     producer-state expiry (broker.go).
//   - [Coordinator] is the transaction coordinator: producer ids and epochs,
//     transaction states, timeouts (coordinator.go), and its node side,
//     which sends markers and answers verification (coordinator_node.go).
//
// Server nodes implement [Server]: Step(now, from, msg), Wake(now, token),
// Crash(), Restart(now, clean).
//
// # Observations
//
// Nodes report what they did as typed observations ([Obs], OutObserve):
// a broker's verdict on a batch, a marker written, an epoch handed out,
// producer state expired. The world adds the network's and the faults'
// observations and sends all of them, in order, to one stream that the
// trace, the counters, the invariant checkers (package check) and the
// explain log read.
//
// # Fidelity
//
// Each type's doc comment cites the Kafka class or rule it follows
// (semantics B*, C*, T*). Where idemsim simplifies, the comment says so:
// replication (broker_repl.go) has no broker epochs, ELR or reassignment,
// and the coordinator's state stands for __transaction_state and survives its
// crash. Messages between servers travel the world's network; a broken
// connection reaches the sender as a [Disconnected] message.
package model
