// Package tally holds counters the World keeps from the observation
// stream that need nothing of the World: a run's counters (errors by
// Kafka name, network fates, fencing, zombie writes, abandoned records,
// latencies: Run), the coordinators' epoch bumps,
// the network's counts, a group application's refused commits and its
// members' stalls on UNSTABLE_OFFSET_COMMIT. Each reads observations in
// order and keeps one run's count; a new run reuses a finished run's
// memory.
package tally
