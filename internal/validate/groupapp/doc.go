// Package groupapp runs the real side of a consumer-group exactly-once
// application (KIP-447) for simulate validate (docs/validate.md):
// franz-go's GroupTransactSession, one per instance, each with its own
// transactional.id, in one consumer group that reads an input topic and
// writes every input record to an output topic inside transactions that
// also commit the input offsets with the consumer's group metadata
// (pkg/kgo/txn.go GroupTransactSession.End at v1.22.3: it aborts when
// the group revoked or lost partitions during the transaction, and the
// TxnOffsetCommit carries the member id and generation). A pause of an
// instance holds both directions of its proxy (its heartbeats, fetches
// and produce requests wait, as a paused process's would) and stops its
// loop between the transaction's sends and its end, so that the pause
// lands in an open transaction as the simulated one does.
//
// Like the rest of internal/validate it is outside the simulated world:
// it reads the wall clock and runs goroutines.
package groupapp
