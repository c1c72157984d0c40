// Package sweep runs a scenario over many seeds, with idempotence off and
// on on the same seeds (so the two modes are paired), over up to two
// parameter axes, and summarises the results with 95% intervals.
//
// Each run stays single-threaded and deterministic; runs go to a pool of
// worker goroutines. Aggregation is exact and order-independent: the state
// of a (point, mode) is integer sums (counts, Σx, Σx², Σxy), an integer
// log-linear latency histogram, error counts and the K smallest failing
// seeds per invariant. Floats are computed only when a [Summary] is made
// from a [State], so the summary is bit-identical for every degree of
// parallelism and for a sweep split into shards and merged ([Merge]): the
// state is serialised into summary.json and merging adds it up.
//
// Rows of runs.csv are written in (point, seed, mode) order through a
// bounded reorder buffer, so memory does not grow with the number of runs.
package sweep
