// Package consumer is a Kafka consumer: a pure state machine that
// fetches records from the partition leaders, holds a position per
// partition, returns records to its application in polls and commits
// its positions to the group coordinator. The World calls it with the
// network's responses and disconnects and its timers, and it answers
// with effects ([model.Out]), as the producer (model/client) does.
//
// It follows the classic KafkaConsumer
// (clients/src/main/java/org/apache/kafka/clients/consumer/internals/
// ClassicKafkaConsumer.java), not the async one of KIP-848
// (AsyncKafkaConsumer.java): the classic consumer runs its whole fetch
// loop in the application's poll, on one thread, which is already the
// shape of a pure state machine, while the async consumer splits it
// between the application thread and a background network thread with
// event queues between them. Their fetch semantics, the part modelled
// here, are the same code (AbstractFetch, FetchCollector, CompletedFetch,
// SubscriptionState).
//
// What it does, and where each rule comes from (apache/kafka, under
// clients/src/main/java/org/apache/kafka/clients/consumer/internals/):
//
//   - positions (SubscriptionState.java): one per assigned partition; a
//     partition without a position is reset: from the group's committed
//     offset if it has one (ConsumerCoordinator.refreshCommittedOffsetsIfNeeded),
//     else by auto.offset.reset with ListOffsets to the leader
//     (OffsetFetcher.resetPositionsIfNeeded); "none" fails the partition;
//   - fetching (AbstractFetch.prepareFetchRequests): one fetch per
//     partition with a position, a known leader, no fetch in flight and
//     no buffered data, to the leader, with isolation.level and the
//     leader epoch of its metadata (KIP-320);
//   - the fetch response (FetchCollector.initialize, handleInitializeErrors):
//     a response whose fetch offset is no longer the position is
//     dropped; OFFSET_OUT_OF_RANGE resets the position by
//     auto.offset.reset; NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH
//     ask for new metadata; UNKNOWN_LEADER_EPOCH retries;
//   - read_committed (CompletedFetch.java): the aborted transactions of
//     the response in a min-heap by first offset and a set of aborted
//     producer ids; a transactional batch of an aborted producer id is
//     skipped, an ABORT marker takes its producer id out of the set,
//     control batches are never returned;
//   - a poll returns at most max.poll.records records
//     (FetchCollector.collectFetch) and moves the position past them;
//   - commits (ConsumerCoordinator.java): with enable.auto.commit the
//     positions are committed every auto.commit.interval.ms from the
//     poll loop (maybeAutoCommitOffsetsAsync); without it the
//     application commits after each poll that returned records, and
//     waits for the answer (commitSync);
//   - group membership (group.go; with Config.Protocol = ProtocolClassic
//     only, the zero value keeps the assigned partitions of
//     KafkaConsumer.assign): the classic protocol of AbstractCoordinator
//     and ConsumerCoordinator: JoinGroup (MEMBER_ID_REQUIRED rejoins with
//     the given id), the leader's range assignment in its SyncGroup, the
//     heartbeat thread, LeaveGroup when max.poll.interval.ms passes
//     without a poll, commits with the member id and generation, and
//     the generation resets and rejoins of ILLEGAL_GENERATION,
//     UNKNOWN_MEMBER_ID and REBALANCE_IN_PROGRESS;
//   - the group coordinator (coordlookup.go): found with FindCoordinator
//     before the first request to it, and again after NOT_COORDINATOR,
//     COORDINATOR_NOT_AVAILABLE or a lost connection
//     (AbstractCoordinator.ensureCoordinatorReady, markCoordinatorUnknown);
//   - KIP-951 leader hints in fetch answers, from 3.7 (leaderhint.go).
//
// Simplified: the
// eager rebalance protocol only (no cooperative-sticky), one input
// topic; one fetch per partition instead of one per broker; no fetch sessions
// (KIP-227), no fetch from followers (KIP-392), no byte limits; a fetch
// is answered at once and an empty answer waits fetch.max.wait.ms before
// the next, instead of the broker holding it.
package consumer
