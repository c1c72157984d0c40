// Package params holds a run's parameters: their definitions ([Param]),
// a full assignment of them with where each value came from ([Values],
// [Source]), the levels of precedence (default, Kafka version profile,
// scenario, preset, scenario file, -bug, -set; docs/parameters.md), the
// presets, the Kafka version profiles, the -bug catalogue of historical
// defects, and the typed [Config] a run's values decode into once.
//
// Nothing here runs a simulation: package scenarios resolves a run's
// spec through [Values.Apply] and [Values.Settle] and builds its world
// from the [Config].
package params
