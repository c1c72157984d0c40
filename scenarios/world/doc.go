// Package world is the simulated world of one run: the World that wires
// model nodes to the event loop and the simulated network, routes every
// message through the network and the fault plan, carries out what the
// nodes return, and emits every observation into one stream.
//
// # A run
//
// A [Setup] says what to build and how to run it: the scenario's name,
// its build function (which adds applications and instances through a
// [Builder]) and its plan function, the resolved configuration
// ([Resolve]), the seed and what to keep. A [Runner] builds the World
// from a [Topology] (brokers b1..bN leading partitions round robin, the
// coordinator c1, producer instances p1..) in the memory of its previous
// run and runs the loop in two phases: faults until the plan's end, then
// a healed world that must converge. The [Result] is deterministic in the
// Setup. The world knows no catalogue scenario: package scenarios makes
// Setups from its catalogue and a Spec.
//
// # The World
//
// The World holds a node table indexed by node id. For each event it
// hands one node a message (Step) or a timer (Wake), carries out the
// effects the node returns (messages to the network, timers to the loop,
// replies, server-to-server messages), and emits every observation into
// one stream. It adds no protocol of its own. Readers of the stream: the
// trace writer (package scenarios/trace), the counters (stats.go, internal/tally), the
// invariant suite (package check), the realized-plan recorder
// (realize.go), and the readers a Setup injects ([Reader], made from the
// run's [Layout]): the explain log, the history, a test's.
//
// An explorer watches a run's choice points through a [Probe] and takes
// a [StateHash] between two events; a test drives a [Script], the
// scripted mode, in which the script, not the network's draws, decides
// when messages arrive.
package world
