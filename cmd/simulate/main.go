// Command simulate runs idemsim scenarios: one seeded run with its report,
// timeline and verdicts.
//
//	simulate -seed 42 -scenario ackloss
//	simulate -seed 42 -scenario ackloss -idempotence=false -trace
//	simulate -list
//
// and sweeps: many seeds, idempotence off and on, summarised with 95%
// intervals, failing seeds and charts (see docs/sweeps.md):
//
//	simulate -scenario ackloss -runs 1000 -vary net.response_loss=0:0.3:0.05 -out out/
//	simulate -scenario ackloss -runs 1000 -shard 0/4 -out shard-0/
//	simulate merge -out merged/ shard-0/ shard-1/ shard-2/ shard-3/
//
// and a check of the simulator itself: random scenario, seed and
// parameter triples, each run twice (see docs/selfcheck.md):
//
//	simulate selfcheck -runs 1000 [-seed S] [-scenario-file DIR]
//
// Exit status of a run: 0 when no invariant was violated, 1 when a
// violation was found and reported, 2 for bad usage or input. A sweep
// exits 0 when it completed, whatever it found (violations are its
// results), 2 for bad usage, and 130 when interrupted by Ctrl-C (after
// printing the partial summary). A selfcheck exits 0 when it found no
// problem, 1 when it did, 2 for bad usage and 130 when interrupted.
//
// Reproduce and regenerate lines start the way the command was invoked
// (commandFor): `go run ./cmd/simulate` under go run, `simulate` when
// found on PATH, else the path given.
package main

import (
	"os"

	"github.com/idemsim/idemsim/scenarios"
)

func main() {
	scenarios.SetCommand(commandFor(os.Args[0]))
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
