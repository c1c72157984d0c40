// Package scenarios is the catalogue of scenarios and the way to run
// them: each [Scenario] is data (name, story, parameter defaults, what to
// expect) plus a build function over [world.Builder] and, optionally, a
// fault-plan function (or one timed from a first run of the same seed,
// as unstable's is: unstable.go). A [Spec] names a scenario, a seed and the
// parameter overrides; [Resolve] applies the levels of precedence
// (package scenarios/params), and [Run] builds the world (package
// scenarios/world) and runs it. Scenario files ([ParseScenarioFile]) are
// scenarios without code.
//
// The [Result] is deterministic in the Spec: the same spec gives the same
// trace hash on every run and machine, and its Reproduce field is the one
// command that reproduces it.
//
// docs/architecture.md walks through a message's path and how to add a
// scenario, an invariant, a fault kind, a client policy or a node kind.
package scenarios
