package consumer

import "time"

// ResetPolicy is auto.offset.reset.
type ResetPolicy uint8

const (
	// ResetLatest starts a partition without a position at its latest
	// offset (the high watermark, or the LSO for read_committed), Kafka's
	// default.
	ResetLatest ResetPolicy = iota
	// ResetEarliest starts it at the log start.
	ResetEarliest
	// ResetNone fails the partition (NoOffsetForPartitionException,
	// OffsetOutOfRangeException to the application).
	ResetNone
)

// String returns the policy's Kafka name.
func (r ResetPolicy) String() string {
	switch r {
	case ResetEarliest:
		return "earliest"
	case ResetNone:
		return "none"
	}
	return "latest"
}

// Config is a consumer's configuration.
type Config struct {
	// GroupID is group.id: the group its offsets are committed under.
	GroupID string
	// Partitions are the assigned partitions, increasing.
	Partitions []int32
	// Leaders is the leader broker index of every partition of the topic
	// as the bootstrap metadata gives it (-1: unknown); Brokers the
	// number of brokers.
	Leaders []int32
	Brokers int
	// ReadCommitted is isolation.level=read_committed (Kafka's default is
	// read_uncommitted).
	ReadCommitted bool
	// MaxPollRecords is max.poll.records (default 500), >= 1.
	MaxPollRecords int
	// AutoCommit is enable.auto.commit (default true);
	// AutoCommitInterval auto.commit.interval.ms (default 5000 ms).
	AutoCommit         bool
	AutoCommitInterval time.Duration
	// Commits: the world has a group coordinator to commit to.
	Commits bool
	// AppCommits: the application commits (at-least-once
	// consume-transform-produce, app.input=topic): after a poll that
	// returned records the consumer returns nothing more until the
	// application calls [Consumer.CommitSync], once what it produced
	// from them is acknowledged. Without AutoCommit only.
	AppCommits bool
	// AppOffsets: the application commits offsets of its choosing with
	// [Consumer.CommitOffsets] (an at-least-once transactional
	// consume-transform-produce loop, app.input=topic: after each
	// commitTransaction, the offsets after the transaction's records);
	// the consumer commits nothing itself and does not hold its polls.
	// Without AutoCommit and AppCommits only.
	AppOffsets bool
	// Reset is auto.offset.reset.
	Reset ResetPolicy
	// PollInterval is the application's time between two polls, > 0.
	PollInterval time.Duration
	// FetchMaxWait is fetch.max.wait.ms (default 500 ms): the wait after
	// an empty fetch before the partition is fetched again.
	FetchMaxWait time.Duration
	// RequestTimeout is request.timeout.ms (default 30000 ms);
	// RetryBackoff retry.backoff.ms (default 100 ms).
	RequestTimeout time.Duration
	RetryBackoff   time.Duration
	// Patience is how long the application keeps polling after the last
	// change it saw (a record returned, a position moved, a high
	// watermark or last stable offset that changed) before its poll loop
	// stops keeping the run alive: twice this, so that a wait behind a
	// last stable offset that does not move lasts longer than the bound
	// LIVE-READ judges it by (consumer.stuck.ms), which it is set to.
	Patience time.Duration

	// Protocol is group.protocol with a subscription
	// (KafkaConsumer.subscribe): ProtocolNone (the zero value) is
	// today's consumer, with Partitions assigned (KafkaConsumer.assign)
	// and no group membership; ProtocolClassic joins the group GroupID
	// with the classic protocol (group.rebalance.protocol classic,
	// AbstractCoordinator/ConsumerCoordinator) and fetches the
	// partitions its assignment gives, of the topic whose partitions
	// Leaders lists; Partitions is then not used. The fields below are
	// used with ProtocolClassic only.
	Protocol Protocol
	// ClientID is client.id, the prefix of the member id the group
	// coordinator gives; GroupInstanceID is group.instance.id ("" for a
	// dynamic member, Kafka's default; else a static member, KIP-345).
	ClientID        string
	GroupInstanceID string
	// HeartbeatInterval is heartbeat.interval.ms (default 3000 ms),
	// SessionTimeout session.timeout.ms (default 45000 ms since Kafka
	// 3.0, KIP-735) and MaxPollInterval max.poll.interval.ms (default
	// 300000 ms), the JoinGroup's rebalance timeout; 0 stands for the
	// default.
	HeartbeatInterval time.Duration
	SessionTimeout    time.Duration
	MaxPollInterval   time.Duration
	// TopicPartitions are the subscribed topic's partitions, by their
	// numbers among the brokers' partitions, when they are not all of
	// Leaders' (the world's input topic follows its output topic): the
	// leader's assignment numbers the topic's partitions 0.. and gives
	// these. Nil: partitions 0..len(Leaders)-1.
	TopicPartitions []int32
	// RequireStable sends the OffsetFetch with require_stable (the Java
	// consumer always does, ConsumerCoordinator.sendOffsetFetchRequest):
	// UNSTABLE_OFFSET_COMMIT is retried after retry.backoff.ms.
	RequireStable bool
	// ClientVersion is the consumer's Kafka release as major*100+minor
	// (3.7 is 307), 0 for the newest: from 3.7 it sends Fetch v16 and
	// reads KIP-951's leader hints (leaderhint.go).
	ClientVersion int
	// AppRevoke: the application's ConsumerRebalanceListener
	// .onPartitionsRevoked commits its open transaction before a rejoin
	// revokes its partitions: the consumer waits in [Consumer.Revoking]
	// until the application calls [Consumer.Revoked].
	AppRevoke bool
}

// Protocol is group.protocol for a subscribing consumer.
type Protocol uint8

const (
	// ProtocolNone: no group membership (manually assigned partitions).
	ProtocolNone Protocol = iota
	// ProtocolClassic: the classic group protocol (JoinGroup, SyncGroup,
	// Heartbeat, LeaveGroup), Kafka's default group.protocol.
	ProtocolClassic
)

// String returns the protocol's group.protocol name, "none" for none.
func (p Protocol) String() string {
	if p == ProtocolClassic {
		return "classic"
	}
	return "none"
}
