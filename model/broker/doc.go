// Package broker is the Kafka broker as one node ([Broker]): request
// handling for produce, transaction markers, verification, metadata and
// fetches (KafkaApis and ReplicaManager), planned and random transient
// errors, the periodic producer-state expiry, the retention check and
// DeleteRecords, which move a log's start (logstart.go), and replication.
//
// The broker keeps its partitions' logs in package storage (UnifiedLog and
// ProducerStateManager). Replication follows kafka.cluster.Partition on
// the leader's side ([LeaderState]: follower bookkeeping, the ISR and
// AlterPartition, the high watermark, acks=all waits as DelayedProduce,
// parked fetches as DelayedFetch; replica.go), AbstractFetcherThread and
// ReplicaFetcherThread on the follower's ([ReplicaFetcher]: fetch,
// divergence, truncation; fetcher.go), and ReplicaManager and
// BrokerLifecycleManager for the node's wiring: heartbeats to the
// controller, applied metadata, acks=all answers (broker_repl.go).
//
// A broker is a pure state machine ([model.Server]): a message or a timer
// goes in, effects ([model.Out]) come out.
package broker
