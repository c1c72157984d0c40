// Package coordinator holds the coordinators a broker runs for clients:
// the transaction coordinator and the group coordinator.
//
// [Coordinator] is Kafka's TransactionCoordinator with the state its
// TransactionStateManager keeps: producer ids and epochs, each
// transactional id's TransactionMetadata and its state transitions,
// transaction timeouts and transactional-id expiration
// (coordinator.go). Its node side (coordinator_node.go) answers
// InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and the
// brokers' verification, and sends the markers as the
// TransactionMarkerChannelManager does; txnlog.go is its
// __transaction_state log, which a restart reloads.
//
// [GroupCoordinator] keeps consumer groups' committed offsets for
// exactly-once applications (GroupCoordinator over __consumer_offsets,
// reduced to one input partition per group).
//
// Both are pure state machines ([model.Server]).
//
// # Sources
//
// Kafka class and method names in this package's comments are in
// core/src/main/scala/kafka/coordinator/transaction/
// (TransactionCoordinator.scala, TransactionMetadata.scala,
// TransactionStateManager.scala, TransactionLog.scala,
// TransactionMarkerChannelManager.scala,
// TransactionMarkerRequestCompletionHandler.scala) or
// core/src/main/scala/kafka/server/ (KafkaApis.scala,
// AddPartitionsToTxnManager.scala). A line number "l.N" without a named
// release is at apache/kafka commit 1eb7644349cb (trunk, October 2024,
// before 4.0), the code this package was checked against; transaction
// version 2 (KIP-890 part 2) is as at that commit.
package coordinator
