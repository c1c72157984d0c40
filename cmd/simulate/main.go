// Command simulate runs idemsim scenarios: one seeded run with its report,
// timeline and verdicts.
//
//	simulate -seed 42 -scenario ackloss
//	simulate -seed 42 -scenario ackloss -idempotence=false -trace
//	simulate -list
//
// Exit status: 0 when no invariant was violated, 1 when a violation was
// found and reported, 2 for bad usage or input.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
