// Package model is the Kafka side of idemsim's protocol: the messages,
// error codes and ids, records and batches as the log keeps them, the
// effects a node returns ([Out]) and the observations it reports ([Obs]).
// The nodes themselves live in its subpackages, where someone who knows
// Kafka would look for them:
//
//   - model/client: the producer (KafkaProducer with its Sender,
//     RecordAccumulator and TransactionManager; the client policies).
//   - model/storage: a partition's log and producer state (UnifiedLog,
//     ProducerStateManager, ProducerAppendInfo), snapshots, the replica
//     log and its leader epochs (LeaderEpochFileCache).
//   - model/broker: the broker node (KafkaApis, ReplicaManager) and
//     replication (kafka.cluster.Partition's leader side, the replica
//     fetcher).
//   - model/coordinator: the transaction coordinator
//     (TransactionCoordinator, TransactionStateManager, its
//     __transaction_state log) and the group coordinator.
//   - model/controller: the KRaft controller (QuorumController,
//     ReplicationControlManager, PartitionChangeBuilder).
//
// Each imports model and sim and none of the others, except the broker,
// which drives its partitions' logs (Kafka's core depends on its storage
// module the same way).
//
// # Nodes
//
// Every process is a state machine with the same shape (etcd raft's Step):
// a message or a timer goes in, effects come out as [Out] values, and
// nothing else happens. A node has no event loop, no network, no clock and
// no randomness of its own (a stream is passed in). The world (package
// scenarios) hands it events and carries out what it returns. Server
// nodes implement [Server]: Step(now, from, msg), Wake(now, token),
// Crash(), Restart(now, clean).
//
// # What lives here though one node makes it
//
// A type that travels in a message or an observation is protocol, even
// when one kind of node makes it: a log entry ([LogEntry], [MarkerType]),
// a broker's verdict on a batch ([AppendResult]), a transaction's state on
// its coordinator ([TxnState], which the checkers and the trace read from
// [ObsTxnState]), a marker to write ([TxnMarker]) and a fetched batch
// ([ReplicaBatch]). So do the helpers that every node package allocates
// and reports with: [Slab], [Arena] and the reuse helpers (reuse.go),
// [CheckTimer], [ObsSlab], [ServerBufs] and the effect holding of
// [EffectHolder] (hold.go).
//
// # Observations
//
// Nodes report what they did as typed observations ([Obs], OutObserve):
// a broker's verdict on a batch, a marker written, an epoch handed out,
// producer state expired. The world adds the network's and the faults'
// observations and sends all of them, in order, to one stream that the
// trace, the counters, the invariant checkers (package check) and the
// explain log read.
//
// # Fidelity
//
// Each type's doc comment cites the Kafka class or method it follows.
// Where idemsim simplifies, the comment says so:
// replication (model/broker) has no broker epochs or log dirs (its
// reassignment and preferred-leader election: model/controller),
// and the coordinator's state stands for __transaction_state and survives
// its crash. Messages between servers travel the world's network; a broken
// connection reaches the sender as a [Disconnected] message.
//
// The tests here (package model_test) run several node packages together:
// the conformance vectors of testdata/conformance (partition appends,
// coordinator transitions, replica logs) and the resets of every node
// kind.
package model
