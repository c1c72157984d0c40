// Package simtest is idemsim's interaction harness: it drives producers
// ([model.Producer]), one broker ([model.Broker]) and a harness-local
// InitProducerId allocator one step at a time over an explicit network
// (a list of messages in flight) that a test delivers, drops or
// disconnects message by message, as etcd raft's rafttest does.
//
// Scripts in testdata/*.txt are run with github.com/cockroachdb/datadriven
// by TestInteraction; regenerate their expected output with
//
//	go test ./internal/simtest -run TestInteraction -rewrite
//
// and review the diff. Each command is documented with an example in
// [Env.Handle]. The network keeps every message of a connection until the
// script delivers or drops it; closing a connection loses what is on it.
// Time moves only with "advance".
package simtest
