// Package storage is a partition's log on a broker: what Kafka's storage
// module keeps, without I/O.
//
// A [Partition] is a log plus its producer-state map: UnifiedLog with its
// ProducerStateManager. Appends run Kafka's checks per batch
// (ProducerAppendInfo: epoch, sequence, duplicate window; the
// VerificationGuard of KIP-890); [ProducerStateEntry] and [BatchMetadata]
// are the entries it keeps. Producer-state snapshots and their rebuild
// from the log after a restart (snapshot.go) and the expiry of idle
// producers follow ProducerStateManager; statecheck.go compares the state
// with a replay of the log. Transactions leave the aborted-transaction
// index and the last stable offset (partition_txn.go).
// The log start offset, which retention (retention.ms, retention.bytes)
// and DeleteRecords move forward without touching the producer state
// (KIP-360), is logstart.go's.
//
// For replication, a [ReplicaLog] is one broker's replica of a partition:
// the [Partition] plus the high watermark and the leader-epoch cache
// ([LeaderEpochCache], Kafka's LeaderEpochFileCache) that UnifiedLog keeps
// beside it; appends as follower and truncation go through it.
//
// Nothing here handles a request or sends a message: package broker
// drives these logs.
package storage
