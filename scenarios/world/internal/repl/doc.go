// Package repl holds the World's replication helpers that need no World:
// the replica assignment, which messages travel as replication traffic,
// and idle replication (idle.go, docs/replication.md "Idle
// replication"): when a replicated World may carry its idle replication
// across a span in one step, how long that span is, and moving the times
// the replicas and the controller recorded by it. The World moves the
// timers and messages themselves (sim.Loop.Shift) and checks what only it
// knows: the servers' fault states, the messages on the replication
// wire, the next event of anything else.
package repl
