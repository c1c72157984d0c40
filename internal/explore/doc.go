// Package explore searches every fault schedule of a scenario within a
// bound: with the random fault sources off (constant latency, no random
// losses), it injects at most K faults from a fixed menu at the choice
// points a run reaches (each message put on the network, each new
// simulated time) and runs every such schedule, so that "no invariant
// fails" becomes a statement about all of them rather than about the seeds
// tried. docs/explore.md describes the command, the menu and the numbers.
//
// # Schedules and levels
//
// A schedule is a list of faults, each at a choice point of the run,
// later faults at later choice points. Every schedule is a fault plan
// ([github.com/idemsim/idemsim/faults]): message faults are armed by
// request number ("0s drop response 3 p1>b1"), node faults run at a
// time ("1.5s crash b1" with its restart), so a counterexample replays
// with simulate -plan-file and the same trace hash. A run of a schedule
// lists, through a [world.Probe], the choice points after its last
// fault; each fault on the menu at each of them is a child schedule with
// one more fault.
//
// The search goes level by level: all schedules with 0 faults, then 1,
// up to K (iterative deepening on the number of faults, each level
// resuming from the last). Runs within a level go to -parallel workers;
// every decision (which children exist, which are pruned, the budget) is
// taken in one goroutine in the canonical order of the schedules, and the
// results are added up exactly, so the counts and the counterexample do
// not depend on -parallel.
//
// # Pruning
//
// At each new simulated time after a schedule's last fault the run hashes
// the world's state ([world.StateHash]). A schedule with r faults left
// to spend that reaches a state another schedule reached with more faults
// left, or with as many and a prefix that sorts no later (fewer events,
// then a smaller plan text), skips its children from that point on: their
// futures are the other schedule's. So pruning keeps the verdict and the
// shortest counterexample (fewest faults, then fewest events, then the
// smallest plan text), which the tests check against the search without
// pruning.
package explore
