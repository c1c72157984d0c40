// Package validate runs a real Kafka client against a real broker
// implementation and compares what it sees with the simulator's runs of
// the same scenario (docs/validate.md): franz-go's kgo (and, built with
// the librdkafka tag, confluent-kafka-go) producing to franz-go's kfake
// on loopback, through a proxy that loses, delays and holds messages as
// the scenario's faults do (package proxy).
//
// The two sides' rates are compared with an equivalence test at a margin
// relative to the simulated rate, with an absolute floor (stats.go); a
// verdict says "agree" only when that test passes, "disagree" when the
// difference test does, and "inconclusive" otherwise, with the real runs
// a decision would need. -runs auto looks at growing numbers of real runs
// within -budget; -all runs the scoreboard of every scenario, mode and
// client (scoreboard.go, docs/validation.md).
//
// This package is outside the simulated world: it reads the wall clock
// and runs goroutines, and only it and the command import real clients
// (internal/lint's TestNoRealClients).
package validate
