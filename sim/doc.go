// Package sim is idemsim's deterministic discrete-event engine: virtual
// time, the pending-event queue, the run loop, seeded random streams and the
// hashed trace. It imports only the standard library and knows nothing of
// Kafka.
//
// # Time
//
// [Time] is an int64 count of nanoseconds since the start of a run. Durations
// are [time.Duration]. No floating-point value ever takes part in ordering
// events.
//
// # Events
//
// Events are typed values, not closures: anything that can append a one-line
// description of itself ([Event]). The [Loop] orders pending events by
// (time, scheduling sequence), so simultaneous events run in the order they
// were scheduled. The queue stores events by value in slots it reuses and
// orders their 24-byte keys in a binary heap, so sifting moves keys rather
// than events, and scheduling and popping allocate nothing once the queue
// has grown to its working size.
//
// # Determinism
//
// The simulated world (this package, model, net, check and scenarios) follows these
// rules, and internal/lint enforces the mechanical ones:
//   - no wall clock: no time.Now, time.Since or timers of the runtime;
//   - no unseeded or global randomness: every random draw comes from a
//     [*math/rand/v2.Rand] made by [NewRand] from the run's one seed and a
//     component's own stream id, so an extra draw in one component never
//     shifts another's stream;
//   - no goroutines, channels or locks;
//   - no map iteration order reaching an event or the trace.
//
// The [Trace] hashes every line with FNV-64a as it is written; two runs with
// the same seed and inputs give the same hash on every machine.
package sim
