// Package input is the applications' input topic (app.input=topic): its
// layout among the brokers' partitions, its records as written before the
// run, and the consumer configuration an application reads it with. It
// needs nothing of the World; docs/consumers.md describes the model.
package input
