// Package admin is the admin client an operator runs against a cluster
// with stuck transactions (KIP-664, Kafka 3.0.0): a pure state machine
// that sends DescribeProducers to a partition's leader, ListTransactions
// and DescribeTransactions to the transaction coordinator, and aborts a
// transaction by writing its ABORT marker through the partition leader
// (WriteTxnMarkers, as Admin.abortTransaction does). The World hands it
// the operator's commands (the plan action abort-transaction), the
// network's responses and disconnects and its timers, and it answers
// with effects ([model.Out]), as the consumer (model/consumer) does.
//
// Where each rule comes from (apache/kafka):
//
//   - the commands are kafka-transactions.sh's
//     (tools/src/main/java/org/apache/kafka/tools/TransactionsCommand.java):
//     "abort --producer-id --producer-epoch --coordinator-epoch" writes
//     the marker at once (a coordinator epoch below 0 becomes 0);
//     "abort --start-offset" first describes the partition's producers
//     and aborts the one whose open transaction starts there
//     (AbortTransactionCommand.buildAbortSpec, coordinatorEpoch orElse
//     0); "find-hanging --topic --partition" describes the producers,
//     keeps those with an open transaction, looks their transactional
//     ids up with ListTransactions filtered by producer id, describes
//     those ids, and calls a transaction hanging when its producer id has
//     no transactional id, the id is not found, or the coordinator's
//     description does not hold the partition
//     (FindHangingTransactionsCommand.filterHangingTransactions); the
//     admin then aborts each hanging one, as an operator would with the
//     abort command and the row find-hanging printed;
//   - the abort is Admin.abortTransaction with an AbortTransactionSpec
//     (clients/src/main/java/org/apache/kafka/clients/admin/internals/
//     AbortTransactionHandler.java): one WriteTxnMarkers with one ABORT
//     marker (transactionResult false) for the partition, sent to its
//     leader (PartitionLeaderStrategy); NOT_LEADER_OR_FOLLOWER and
//     UNKNOWN_TOPIC_OR_PARTITION look the leader up again and retry,
//     INVALID_PRODUCER_EPOCH and TRANSACTION_COORDINATOR_FENCED fail it;
//   - retries: a request without an answer within request.timeout.ms
//     (30 s) closes its connection, a broken connection fails what was in
//     flight on it, and both retry after retry.backoff.ms (100 ms); a
//     command gives up after default.api.timeout.ms (60 s).
//
// Simplified: find-hanging's --max-transaction-timeout filter (default
// 15 minutes since the producer's last timestamp) is left out: the plan
// author chooses when the operator looks; there is one topic, one
// transaction coordinator and no authorization; the admin's commands run
// one after the other.
package admin
