// Package scenarios builds and runs simulated worlds: the scenario
// catalogue and its parameters, the World that wires model nodes to the
// event loop and the simulated network, fault plans, and what reads a
// run's observation stream (the trace, counters, the explain log, Mermaid
// diagrams, shrinking).
//
// # A run
//
// [Run] resolves a [Spec] (scenario, seed, parameter overrides, plan),
// builds a [World] from a [Topology] (brokers b1..bN leading partitions
// round robin, the coordinator c1, producer instances p1..), and runs the
// loop in two phases: faults until the plan's end, then a healed world
// that must converge. The [Result] is deterministic in the Spec: the same
// spec gives the same trace hash on every run and machine.
//
// # The World
//
// The World holds a node table indexed by node id. For each event it hands
// one node a message (Step) or a timer (Wake), carries out the effects the
// node returns (messages to the network, timers to the loop, replies,
// server-to-server messages at once), and emits every observation into one
// stream. It adds no protocol of its own. Readers of the stream: the trace
// writer (package scenarios/trace), the counters (stats.go), the invariant
// suite (package check), the realized-plan recorder (realize.go), and the
// readers a [Spec] injects ([Reader], made from the run's [Layout]): the
// explain log (package scenarios/explain), the history (package
// internal/history), a test's.
//
// docs/architecture.md walks through a message's path and how to add a
// scenario, an invariant, a fault kind, a client policy or a node kind.
package scenarios
