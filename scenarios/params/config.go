package params

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/client"
	simnet "github.com/idemsim/idemsim/net"
)

// Config is a run's parameters decoded into typed values, once, when the
// run is resolved (scenarios.Resolve, [Values.Decode]). Every parameter of a
// scenario has exactly one field; the doc comment of each field names its
// key, unit and range (the ranges are those [Values.Set] enforces, see
// simulate -describe). Keys counted in milliseconds (".ms") are decoded as
// durations.
type Config struct {
	// App is the workload the applications send.
	App AppParams
	// Producer is the producer's Kafka configuration as set, before
	// Kafka's rules resolve it ([Resolved.Producer] is the effective one).
	Producer ProducerParams
	// Broker is the partition leader's behaviour.
	Broker BrokerParams
	// Coordinator is the transaction coordinator's behaviour.
	Coordinator CoordinatorParams
	// Net is the network: net.mode (Mode), net.latency, net.latency.base,
	// .spread, .sigma, .tail_prob and .tail (Latency), net.request_loss,
	// net.response_loss, net.duplicate, net.reorder, net.reorder.delay,
	// net.disconnect_notice and net.link.latency (Links, parsed). Its
	// cross-field rules ([simnet.Config.Validate]) are checked by Resolve.
	Net simnet.Config
	// Fault is the fault plan's generation and replay.
	Fault FaultParams
	// Versions are kafka.version, broker.version, client.version and
	// transaction.version (profile.go).
	Versions Versions
	// Extra are the parameters only some scenarios have (scenarios.Scenario.Extra);
	// a field is zero in a scenario without its key.
	Extra ExtraParams

	// Partitions is partitions: the topic's partitions, 1..64; partition p
	// is led by broker p mod Brokers, and records go round-robin.
	Partitions int
	// Brokers is brokers: the brokers b1..bN, 1..64.
	Brokers int
	// Replication is the topic's replication (replication.factor,
	// min.insync.replicas, replica.lag.time.max.ms,
	// unclean.leader.election.enable).
	Replication ReplicationParams
	// SequenceBits is sequence.bits: the width of sequence numbers, 1..31
	// bits (Kafka: 31), shared by producers and brokers; with idempotence
	// 2^bits must exceed (broker.window +
	// max.in.flight.requests.per.connection) × batch.size
	// ([Config.checkRules]).
	SequenceBits int
}

// ReplicationParams are the replication settings.
type ReplicationParams struct {
	// Factor is replication.factor: -1 for min(3, brokers), else
	// 1..brokers.
	Factor int
	// MinISR is min.insync.replicas, 1..64.
	MinISR int
	// LagTimeMax is replica.lag.time.max.ms.
	LagTimeMax time.Duration
	// Unclean is unclean.leader.election.enable.
	Unclean bool
	// ELRVersion is eligible.leader.replicas.version, 0 or 1 (KIP-966:
	// 1 turns eligible leader replicas on).
	ELRVersion int
	// AutoLeaderRebalance is auto.leader.rebalance.enable (idemsim:
	// false, Kafka: true); LeaderImbalanceCheckSeconds is
	// leader.imbalance.check.interval.seconds.
	AutoLeaderRebalance         bool
	LeaderImbalanceCheckSeconds int64
}

// checkReplication refuses a replication.factor the brokers cannot hold,
// as Kafka's CreateTopics does (INVALID_REPLICATION_FACTOR): scenarios.Resolve
// makes it a usage error.
func (c *Config) checkReplication() error {
	if f := c.Replication.Factor; f == 0 || f > c.Brokers {
		return fmt.Errorf("replication.factor=%d is out of range (allowed: -1, or 1..%d with brokers=%d)", f, c.Brokers, c.Brokers)
	}
	return nil
}

// ReplicationFactor returns the effective replication.factor.
func (c *Config) ReplicationFactor() int {
	if c.Replication.Factor < 1 {
		return min(3, c.Brokers)
	}
	return c.Replication.Factor
}

// AppParams is the workload: what each application sends and when.
type AppParams struct {
	// Records is records: records each application sends, 1..1000000.
	Records int64
	// SendInterval is send.interval.ms: time between two sends of one
	// application, 0..1h.
	SendInterval time.Duration
	// IdleAfter is app.idle.after: records sent before the application
	// goes idle once, 0..1000000 (0: never).
	IdleAfter int64
	// Idle is app.idle.ms: the length of that idle period, 0..1h.
	Idle time.Duration
	// Mode is app.mode: what a later instance of an application does
	// when it takes over (AppAtLeastOnce, AppExactlyOnce).
	Mode AppMode
	// Input is app.input: "synthetic" or "topic"; InputPartitions is
	// input.partitions (1..64), InputAborted input.aborted (records,
	// 0..1000000).
	Input           string
	InputPartitions int
	InputAborted    int64
	// Instances is app.instances (1..16): the instances a group
	// application (AppMode.Grouped) runs at once; SessionTimeout is
	// session.timeout.ms, their consumers' group session;
	// MaxPollInterval is max.poll.interval.ms.
	Instances       int
	SessionTimeout  time.Duration
	MaxPollInterval time.Duration
	// CommitInterval is commit.interval.ms: an at-least-once group
	// application's consumers commit their positions that often
	// (enable.auto.commit's auto.commit.interval.ms).
	CommitInterval time.Duration
	// UnstableBound is unstable.bound.ms, LIVE-OFFSET' bound: how long
	// a group member may be answered UNSTABLE_OFFSET_COMMIT, 0..1h; 0
	// means transaction.timeout.ms + the abort cleanup interval + 5 s.
	UnstableBound time.Duration
}

// OffsetStallBound returns LIVE-OFFSET' bound: unstable.bound.ms, or
// when it is 0 transaction.timeout.ms plus
// transaction.abort.timed.out.transaction.cleanup.interval.ms plus 5 s,
// the longest a coordinator that works leaves a transaction, and so its
// pending offsets, open (it aborts a transaction at the first check of
// its abort timer after the timeout) with room for the abort's markers
// and the member's retry.
func (c *Config) OffsetStallBound() time.Duration {
	if c.App.UnstableBound > 0 {
		return c.App.UnstableBound
	}
	return c.Producer.TransactionTimeout + c.Coordinator.AbortCleanupInterval + 5*time.Second
}

// TopicInput reports whether applications read an input topic.
func (a *AppParams) TopicInput() bool { return a.Input == "topic" }

// GroupApp reports whether the application runs its instances at once as
// members of a consumer group: app.mode=exactly-once-v2 or
// exactly-once-groupid, or at-least-once with app.instances above 1.
func (a *AppParams) GroupApp() bool {
	return a.Mode.Grouped() || a.Mode == AppAtLeastOnce && a.Instances > 1
}

// AppMode is how an application processes its input across instances.
type AppMode uint8

const (
	// AppAtLeastOnce ("at-least-once"): a later instance sends again every
	// record its older instances left unresolved.
	AppAtLeastOnce AppMode = iota
	// AppExactlyOnce ("exactly-once"): a consume-transform-produce loop.
	// The application reads its input records in order and writes each
	// as an output record in transactions that also commit the input
	// position (sendOffsetsToTransaction); a later instance fetches the
	// committed position from the group coordinator and resumes there,
	// sending again nothing a committed transaction holds.
	AppExactlyOnce
	// AppExactlyOnceV2 ("exactly-once-v2"): KIP-447 (Kafka 2.5+), the
	// design of Kafka Streams' exactly_once_v2: app.instances instances
	// run at once, each a consumer in the application's group and a
	// transactional producer with its own transactional.id (the
	// configured one, "-" and the instance's index); the group assigns
	// them the input partitions, and each transaction commits its
	// offsets with the consumer's group metadata
	// (sendOffsetsToTransaction(offsets, groupMetadata)), so that the
	// group coordinator refuses a zombie's commit on its generation.
	AppExactlyOnceV2
	// AppExactlyOnceGroupID ("exactly-once-groupid"): AppExactlyOnceV2
	// with the deprecated sendOffsetsToTransaction(offsets, groupId):
	// the commit carries no group metadata, and the generation check is
	// skipped.
	AppExactlyOnceGroupID
)

// Grouped reports whether the mode runs instances as members of a
// consumer group (exactly-once-v2, exactly-once-groupid).
func (m AppMode) Grouped() bool { return m == AppExactlyOnceV2 || m == AppExactlyOnceGroupID }

// ExactlyOnce reports whether the mode commits its input offsets inside
// its transactions.
func (m AppMode) ExactlyOnce() bool { return m == AppExactlyOnce || m.Grouped() }

// String returns the parameter's value.
func (m AppMode) String() string {
	switch m {
	case AppExactlyOnce:
		return "exactly-once"
	case AppExactlyOnceV2:
		return "exactly-once-v2"
	case AppExactlyOnceGroupID:
		return "exactly-once-groupid"
	}
	return "at-least-once"
}

// Acks is the producer's acks setting: -1 (all), 0 or 1.
type Acks int8

// AcksAll is acks=all, the same as acks=-1.
const AcksAll Acks = -1

// String returns "all", "0" or "1".
func (a Acks) String() string {
	if a == AcksAll {
		return "all"
	}
	return strconv.Itoa(int(a))
}

// ProducerParams is the producer's configuration under Kafka's names, as
// set: scenarios.Resolve applies Kafka's rules to it.
type ProducerParams struct {
	// EnableIdempotence is enable.idempotence (also -idempotence).
	EnableIdempotence bool
	// Acks is acks: all (-1), 0 or 1.
	Acks Acks
	// Retries is retries, 0..2147483647.
	Retries int32
	// MaxInFlight is max.in.flight.requests.per.connection, 1..100
	// requests.
	MaxInFlight int
	// MaxInFlightAboveFive is max.in.flight.above.five: the what-if that
	// allows idempotence with more than 5 requests in flight (Kafka
	// refuses).
	MaxInFlightAboveFive bool
	// DeliveryTimeout is delivery.timeout.ms, 0..2147483647 ms.
	DeliveryTimeout time.Duration
	// RequestTimeout is request.timeout.ms, 1..2147483647 ms.
	RequestTimeout time.Duration
	// RetryBackoff is retry.backoff.ms, 0..2147483647 ms.
	RetryBackoff time.Duration
	// RetryBackoffMax is retry.backoff.max.ms, 0..2147483647 ms.
	RetryBackoffMax time.Duration
	// ReconnectBackoff is reconnect.backoff.ms, 0..2147483647 ms.
	ReconnectBackoff time.Duration
	// Linger is linger.ms, 0..2147483647 ms.
	Linger time.Duration
	// BatchSize is batch.size counted in records, 1..100000.
	BatchSize int
	// TransactionalID is transactional.id; empty for none.
	TransactionalID string
	// TransactionRecords is transaction.records: records per transaction,
	// 0..1000000 (0: no transactions; the transactional.id only fences).
	TransactionRecords int
	// TransactionTimeout is transaction.timeout.ms, 1..900000 ms.
	TransactionTimeout time.Duration
	// Policy is client.policy: whose client behaviour to model, java or
	// librdkafka.
	Policy client.ClientPolicy
	// WhatIfFenceOnly is producer.whatif.fence_only: a transactional.id
	// without transactions only fences (Kafka refuses it).
	WhatIfFenceOnly bool
	// BugMetaflapReset is producer.bug.metaflap_reset (-bug Z11).
	BugMetaflapReset bool
	// BugReuseExpiredSeq is producer.bug.reuse_expired_seq (-bug Z11f).
	BugReuseExpiredSeq bool
	// NagleDisable is socket.nagle.disable.
	NagleDisable bool
	// WhatIfNoSkipBump is producer.whatif.librdkafka_no_skip_bump.
	WhatIfNoSkipBump bool
	// BugTxnBumpInTxn is producer.bug.txn_bump_in_txn (-bug Z17).
	BugTxnBumpInTxn bool
}

// Rebuild is how a restarted broker rebuilds its producer state.
type Rebuild uint8

const (
	// RebuildLog is Kafka's: the snapshot plus a replay of the log.
	RebuildLog Rebuild = iota
	// RebuildNone loses the producer state (what-if, -bug Z08).
	RebuildNone
)

// String returns "log" or "none", the parameter's values.
func (r Rebuild) String() string {
	if r == RebuildNone {
		return "none"
	}
	return "log"
}

// BrokerParams is the partition leader's behaviour.
type BrokerParams struct {
	// Window is broker.window: batches cached per producer for duplicate
	// detection, 1..1000 (Kafka: 5).
	Window int
	// Dedup is broker.dedup; false removes the dedup window (what-if,
	// -bug Z16).
	Dedup bool
	// EpochCheck is broker.epoch.check; false accepts batches of a lower
	// epoch (what-if).
	EpochCheck bool
	// EmptyPartitionCheck is broker.empty.partition.check, a what-if of
	// KAFKA-15591's fix (after 4.1); false is every covered release.
	EmptyPartitionCheck bool
	// PartitionVerification is
	// transaction.partition.verification.enable (KIP-890 part 1).
	PartitionVerification bool
	// TransientError is broker.transient_error: the probability, 0..1,
	// that a batch is answered NOT_ENOUGH_REPLICAS.
	TransientError float64
	// ProcessingTime is broker.processing.time: the time a server takes
	// to handle a request once read, 0..1h.
	ProcessingTime time.Duration
	// ProcessingSpread is broker.processing.spread: a uniform extra
	// handling time below it, 0..1h.
	ProcessingSpread time.Duration
	// NotReadyBatches is partition.not_ready.batches: the first batches,
	// 0..1000000, each partition answers NOT_LEADER_OR_FOLLOWER.
	NotReadyBatches int64
	// ProducerIDExpiration is producer.id.expiration.ms,
	// 1..9223372036854 ms.
	ProducerIDExpiration time.Duration
	// ExpirationCheckInterval is
	// producer.id.expiration.check.interval.ms, 1..2147483647 ms.
	ExpirationCheckInterval time.Duration
	// RetentionMs is retention.ms (negative: no time limit) and
	// RetentionRecords retention.bytes in offsets (negative: no size
	// limit); RetentionCheckInterval is log.retention.check.interval.ms,
	// 1..2147483647 ms.
	RetentionMs, RetentionCheckInterval time.Duration
	RetentionRecords                    int64
	// RestartRebuild is broker.restart.rebuild: log or none.
	RestartRebuild Rebuild
	// BugNoVerificationGuard is broker.bug.no_verification_guard (-bug
	// KAFKA-14904).
	BugNoVerificationGuard bool
}

// CoordinatorParams is the transaction coordinator's behaviour.
type CoordinatorParams struct {
	// NextPID is coordinator.next.pid: the first producer id handed out,
	// 0..2^62.
	NextPID int64
	// EpochBits is epoch.bits: the width of producer epochs, signed,
	// 2..16 bits (Kafka: 16).
	EpochBits int
	// LogAppendTime is coordinator.log.append.time: how long a
	// __transaction_state write takes, 0..1h.
	LogAppendTime time.Duration
	// LoadMs is coordinator.load.ms: how long a new coordinator loads
	// its log in a replicated run, 0..3600000 ms.
	LoadMs int64
	// AbortCleanupInterval is
	// transaction.abort.timed.out.transaction.cleanup.interval.ms: how
	// often timed-out transactions are aborted, 1..2147483647 ms.
	AbortCleanupInterval time.Duration
	// TransactionalIDExpiration is transactional.id.expiration.ms, 1 ms
	// to 2147483647 ms.
	TransactionalIDExpiration time.Duration
	// ExpirationCheckInterval is
	// transaction.remove.expired.transaction.cleanup.interval.ms, 1 ms to
	// 2147483647 ms.
	ExpirationCheckInterval time.Duration
	// BugNoRotate is coordinator.bug.no_rotate (-bug Z10, a what-if).
	BugNoRotate bool
	// BugNoBumpOnTimeout is coordinator.bug.no_bump_on_timeout (-bug
	// Z05b).
	BugNoBumpOnTimeout bool
}

// FaultParams is the fault plan's generation and replay (docs/plans.md).
type FaultParams struct {
	// Realized is fault.realized: replaying a realized plan, the random
	// loss sources draw but lose nothing.
	Realized bool
	// Count is fault.count: generic faults the seed's plan draws,
	// 0..10000.
	Count int
	// Kinds is fault.kinds, parsed: the fault kinds the generator may
	// draw.
	Kinds faults.Kinds
	// Window is fault.window: generated faults start in [0, Window),
	// 0..1e15 ns; 0 means the workload's length plus request.timeout.ms.
	Window time.Duration
	// End is fault.end: the end of the fault phase, 0..1e15 ns; 0 means
	// the last send plus delivery.timeout.ms.
	End time.Duration
	// MaxDuration is fault.max_duration: the longest generated pause,
	// partition or crash downtime, 1ms..1e15 ns.
	MaxDuration time.Duration
	// ProducerResend is fault.producer.resend: after a producer crash and
	// restart, the application sends its unresolved records again.
	ProducerResend bool
}

// ExtraParams are the catalogue scenarios' own parameters. A field is set
// only in the scenarios that have its key and is zero elsewhere.
type ExtraParams struct {
	// Consumer is the consumer r1's configuration (scenarios with a
	// consumer: consumer.go).
	Consumer ConsumerParams
	// Admin is admin (hanging-abort): the run has the admin node a1
	// (admin.go).
	Admin bool
	// AbortAt is abort.at.ms (hanging-abort): when the operator aborts
	// the hanging transaction, 0..1h (0: never).
	AbortAt time.Duration
	// RestartCount is restart.count (restart, epochx): producer restarts,
	// 1..20 (restart) or 1..100 (epochx).
	RestartCount int64
	// RestartDown is restart.down.ms (restart, statelost): how long the
	// restarted process stays down, 0..1h.
	RestartDown time.Duration
	// RestartClean is restart.clean (statelost): the broker shuts down
	// cleanly rather than crashing.
	RestartClean bool
	// PauseAt is pause.at (zombie, txntimeout): when the producer's pause
	// starts, before jitter, 0..1h.
	PauseAt time.Duration
	// Pause is pause.ms (zombie, txntimeout): the pause's length, 0..1h.
	Pause time.Duration
	// TakeoverAfter is takeover.after.ms (zombie): time from the pause's
	// start to the second instance's start, 0..1h.
	TakeoverAfter time.Duration
	// MetaflapAt is metaflap.at.ms (seqreuse): when the topic's metadata
	// flaps, 0..1h (0: never).
	MetaflapAt time.Duration
	// CutAt is cut.at.ms (seqreuse): when the broker's responses are cut,
	// 0..1h (0: never).
	CutAt time.Duration
	// Cut is cut.ms (seqreuse): how long they stay cut, 0..1h.
	Cut time.Duration
	// LateTxn is late.txn (txnlate): whose EndTxn request is held, the
	// late.txn-th, 1..1000.
	LateTxn int64
	// LateFor is late.ms (txnlate, hanging): how long the request is held,
	// before jitter, 0..1h.
	LateFor time.Duration
	// PauseTxn is pause.txn (unstable): after which of p1's accepted
	// TxnOffsetCommits its pause starts, 1..1000.
	PauseTxn int64
	// LeaderDown is leader.down.ms (acks1, unclean, coordfailover): how long the crashed
	// leader stays down, 0..1h.
	LeaderDown time.Duration
	// RollingGap is rolling.gap.ms (rolling): the time between two
	// brokers' shutdown requests, 0..1h.
	RollingGap time.Duration
	// RollingDown is rolling.down.ms (rolling): how long each broker
	// stays stopped after its controlled shutdown, 0..1h.
	RollingDown time.Duration
	// ElectAfter is elect.after.ms (reassign): how long after the
	// reassignment the operator reorders the replicas and elects the
	// preferred leader, 0..1h.
	ElectAfter time.Duration
	// FaultAt is fault.at.ms (acks1, failover, unclean, isolated,
	// coordfailover, restart, epochx, statelost): when the scenario's
	// scripted fault happens, before its jitter, 0..1h; negative (-1 ms)
	// means the time the scenario draws itself (each scenario's Doc says
	// how).
	FaultAt time.Duration
}

// fields maps every parameter key to its field in a Config. A scenario
// parameter without an entry is an error of Decode (and of the tests).
var fields = map[string]func(c *Config) any{
	// Workload.
	"records":                                 func(c *Config) any { return &c.App.Records },
	"send.interval.ms":                        func(c *Config) any { return &c.App.SendInterval },
	"app.idle.after":                          func(c *Config) any { return &c.App.IdleAfter },
	"app.idle.ms":                             func(c *Config) any { return &c.App.Idle },
	"app.mode":                                func(c *Config) any { return &c.App.Mode },
	"app.input":                               func(c *Config) any { return &c.App.Input },
	"input.partitions":                        func(c *Config) any { return &c.App.InputPartitions },
	"input.aborted":                           func(c *Config) any { return &c.App.InputAborted },
	"app.instances":                           func(c *Config) any { return &c.App.Instances },
	"session.timeout.ms":                      func(c *Config) any { return &c.App.SessionTimeout },
	"commit.interval.ms":                      func(c *Config) any { return &c.App.CommitInterval },
	"max.poll.interval.ms":                    func(c *Config) any { return &c.App.MaxPollInterval },
	"unstable.bound.ms":                       func(c *Config) any { return &c.App.UnstableBound },
	"partitions":                              func(c *Config) any { return &c.Partitions },
	"brokers":                                 func(c *Config) any { return &c.Brokers },
	"replication.factor":                      func(c *Config) any { return &c.Replication.Factor },
	"min.insync.replicas":                     func(c *Config) any { return &c.Replication.MinISR },
	"eligible.leader.replicas.version":        func(c *Config) any { return &c.Replication.ELRVersion },
	"replica.lag.time.max.ms":                 func(c *Config) any { return &c.Replication.LagTimeMax },
	"unclean.leader.election.enable":          func(c *Config) any { return &c.Replication.Unclean },
	"auto.leader.rebalance.enable":            func(c *Config) any { return &c.Replication.AutoLeaderRebalance },
	"leader.imbalance.check.interval.seconds": func(c *Config) any { return &c.Replication.LeaderImbalanceCheckSeconds },
	"sequence.bits":                           func(c *Config) any { return &c.SequenceBits },

	// Versions.
	"kafka.version":       func(c *Config) any { return &c.Versions.Kafka },
	"broker.version":      func(c *Config) any { return &c.Versions.Broker },
	"client.version":      func(c *Config) any { return &c.Versions.Client },
	"transaction.version": func(c *Config) any { return &c.Versions.TransactionVersion },

	// Producer.
	"enable.idempotence":                      func(c *Config) any { return &c.Producer.EnableIdempotence },
	"acks":                                    func(c *Config) any { return &c.Producer.Acks },
	"retries":                                 func(c *Config) any { return &c.Producer.Retries },
	"max.in.flight.requests.per.connection":   func(c *Config) any { return &c.Producer.MaxInFlight },
	"max.in.flight.above.five":                func(c *Config) any { return &c.Producer.MaxInFlightAboveFive },
	"delivery.timeout.ms":                     func(c *Config) any { return &c.Producer.DeliveryTimeout },
	"request.timeout.ms":                      func(c *Config) any { return &c.Producer.RequestTimeout },
	"retry.backoff.ms":                        func(c *Config) any { return &c.Producer.RetryBackoff },
	"retry.backoff.max.ms":                    func(c *Config) any { return &c.Producer.RetryBackoffMax },
	"reconnect.backoff.ms":                    func(c *Config) any { return &c.Producer.ReconnectBackoff },
	"linger.ms":                               func(c *Config) any { return &c.Producer.Linger },
	"batch.size":                              func(c *Config) any { return &c.Producer.BatchSize },
	"transactional.id":                        func(c *Config) any { return &c.Producer.TransactionalID },
	"transaction.records":                     func(c *Config) any { return &c.Producer.TransactionRecords },
	"transaction.timeout.ms":                  func(c *Config) any { return &c.Producer.TransactionTimeout },
	"client.policy":                           func(c *Config) any { return &c.Producer.Policy },
	"producer.bug.metaflap_reset":             func(c *Config) any { return &c.Producer.BugMetaflapReset },
	"producer.whatif.fence_only":              func(c *Config) any { return &c.Producer.WhatIfFenceOnly },
	"producer.bug.reuse_expired_seq":          func(c *Config) any { return &c.Producer.BugReuseExpiredSeq },
	"producer.whatif.librdkafka_no_skip_bump": func(c *Config) any { return &c.Producer.WhatIfNoSkipBump },
	"socket.nagle.disable":                    func(c *Config) any { return &c.Producer.NagleDisable },
	"producer.bug.txn_bump_in_txn":            func(c *Config) any { return &c.Producer.BugTxnBumpInTxn },

	// Broker.
	"broker.window":                             func(c *Config) any { return &c.Broker.Window },
	"broker.dedup":                              func(c *Config) any { return &c.Broker.Dedup },
	"broker.epoch.check":                        func(c *Config) any { return &c.Broker.EpochCheck },
	"broker.empty.partition.check":              func(c *Config) any { return &c.Broker.EmptyPartitionCheck },
	"transaction.partition.verification.enable": func(c *Config) any { return &c.Broker.PartitionVerification },
	"broker.transient_error":                    func(c *Config) any { return &c.Broker.TransientError },
	"broker.processing.time":                    func(c *Config) any { return &c.Broker.ProcessingTime },
	"broker.processing.spread":                  func(c *Config) any { return &c.Broker.ProcessingSpread },
	"partition.not_ready.batches":               func(c *Config) any { return &c.Broker.NotReadyBatches },
	"producer.id.expiration.ms":                 func(c *Config) any { return &c.Broker.ProducerIDExpiration },
	"producer.id.expiration.check.interval.ms":  func(c *Config) any { return &c.Broker.ExpirationCheckInterval },
	"broker.restart.rebuild":                    func(c *Config) any { return &c.Broker.RestartRebuild },
	"retention.ms":                              func(c *Config) any { return &c.Broker.RetentionMs },
	"retention.bytes":                           func(c *Config) any { return &c.Broker.RetentionRecords },
	"log.retention.check.interval.ms":           func(c *Config) any { return &c.Broker.RetentionCheckInterval },
	"broker.bug.no_verification_guard":          func(c *Config) any { return &c.Broker.BugNoVerificationGuard },

	// Coordinator.
	"coordinator.next.pid":               func(c *Config) any { return &c.Coordinator.NextPID },
	"coordinator.log.append.time":        func(c *Config) any { return &c.Coordinator.LogAppendTime },
	"coordinator.load.ms":                func(c *Config) any { return &c.Coordinator.LoadMs },
	"epoch.bits":                         func(c *Config) any { return &c.Coordinator.EpochBits },
	"coordinator.bug.no_rotate":          func(c *Config) any { return &c.Coordinator.BugNoRotate },
	"coordinator.bug.no_bump_on_timeout": func(c *Config) any { return &c.Coordinator.BugNoBumpOnTimeout },
	"transaction.abort.timed.out.transaction.cleanup.interval.ms": func(c *Config) any { return &c.Coordinator.AbortCleanupInterval },
	"transactional.id.expiration.ms":                              func(c *Config) any { return &c.Coordinator.TransactionalIDExpiration },
	"transaction.remove.expired.transaction.cleanup.interval.ms":  func(c *Config) any { return &c.Coordinator.ExpirationCheckInterval },

	// Network.
	"net.mode":              func(c *Config) any { return &c.Net.Mode },
	"net.latency":           func(c *Config) any { return &c.Net.Latency.Dist },
	"net.latency.base":      func(c *Config) any { return &c.Net.Latency.Base },
	"net.latency.spread":    func(c *Config) any { return &c.Net.Latency.Spread },
	"net.latency.sigma":     func(c *Config) any { return &c.Net.Latency.Sigma },
	"net.latency.tail_prob": func(c *Config) any { return &c.Net.Latency.TailProb },
	"net.latency.tail":      func(c *Config) any { return &c.Net.Latency.Tail },
	"net.request_loss":      func(c *Config) any { return &c.Net.RequestLoss },
	"net.response_loss":     func(c *Config) any { return &c.Net.ResponseLoss },
	"net.duplicate":         func(c *Config) any { return &c.Net.Duplicate },
	"net.reorder":           func(c *Config) any { return &c.Net.Reorder },
	"net.reorder.delay":     func(c *Config) any { return &c.Net.ReorderDelay },
	"net.disconnect_notice": func(c *Config) any { return &c.Net.DisconnectNotice },
	"net.link.latency":      func(c *Config) any { return &c.Net.Links },
	"net.server_loss":       func(c *Config) any { return &c.Net.ServerLoss },

	// Faults.
	"fault.realized":        func(c *Config) any { return &c.Fault.Realized },
	"fault.count":           func(c *Config) any { return &c.Fault.Count },
	"fault.kinds":           func(c *Config) any { return &c.Fault.Kinds },
	"fault.window":          func(c *Config) any { return &c.Fault.Window },
	"fault.end":             func(c *Config) any { return &c.Fault.End },
	"fault.max_duration":    func(c *Config) any { return &c.Fault.MaxDuration },
	"fault.producer.resend": func(c *Config) any { return &c.Fault.ProducerResend },

	// The catalogue scenarios' own parameters.
	"restart.count":     func(c *Config) any { return &c.Extra.RestartCount },
	"abort.at.ms":       func(c *Config) any { return &c.Extra.AbortAt },
	"restart.down.ms":   func(c *Config) any { return &c.Extra.RestartDown },
	"leader.down.ms":    func(c *Config) any { return &c.Extra.LeaderDown },
	"rolling.gap.ms":    func(c *Config) any { return &c.Extra.RollingGap },
	"rolling.down.ms":   func(c *Config) any { return &c.Extra.RollingDown },
	"elect.after.ms":    func(c *Config) any { return &c.Extra.ElectAfter },
	"fault.at.ms":       func(c *Config) any { return &c.Extra.FaultAt },
	"restart.clean":     func(c *Config) any { return &c.Extra.RestartClean },
	"pause.at":          func(c *Config) any { return &c.Extra.PauseAt },
	"pause.ms":          func(c *Config) any { return &c.Extra.Pause },
	"takeover.after.ms": func(c *Config) any { return &c.Extra.TakeoverAfter },
	"metaflap.at.ms":    func(c *Config) any { return &c.Extra.MetaflapAt },
	"cut.at.ms":         func(c *Config) any { return &c.Extra.CutAt },
	"cut.ms":            func(c *Config) any { return &c.Extra.Cut },
	"late.txn":          func(c *Config) any { return &c.Extra.LateTxn },
	"late.ms":           func(c *Config) any { return &c.Extra.LateFor },
	"pause.txn":         func(c *Config) any { return &c.Extra.PauseTxn },
}

// Decode returns the values as a typed Config. Resolve calls it once per
// run, after every level of precedence has been applied; nothing needs to
// read the text values after that. Every value was checked when it was
// set, so the errors are a parameter without a field in Config and a
// rule that joins the ranges of several parameters ([Config.checkRules]).
func (v *Values) Decode() (Config, error) {
	var c Config
	for i := range v.params {
		p := &v.params[i]
		field, ok := fields[p.Key]
		if !ok {
			return Config{}, fmt.Errorf("parameter %s has no field in params.Config", p.Key)
		}
		if err := decodeInto(p, v.vals[p.Key], field(&c)); err != nil {
			return Config{}, err
		}
	}
	if err := c.checkRules(); err != nil {
		// Outside Kafka's design: the run goes on and says so.
		v.designNotes = append(v.designNotes[:0], err.Error())
	}
	return c, nil
}

// checkRules checks the ranges that depend on other parameters' values.
// The error is one line naming the keys and what is allowed; scenarios.Resolve
// reports it as a configuration note (the run is outside Kafka's design,
// and says so) rather than refusing it, so that narrow what-if widths stay
// reachable.
//
// sequence.bits, with enable.idempotence=true: the batches the broker
// caches (broker.window) and the requests the producer may have in flight
// beyond them (max.in.flight.requests.per.connection), each of up to
// batch.size records, must have distinct sequences:
//
//	2^bits > (broker.window + max.in.flight.requests.per.connection) × batch.size
//
// Otherwise a new or retried batch can carry the sequences of a batch
// still in the window, the broker answers it as a duplicate, and
// INV-DEDUP and INV-LOSS fail in a way Kafka's design excludes: Kafka's
// space is 2^31 sequences, far more than its 5 cached and 5 in-flight
// batches hold. At 31 bits every allowed window, in-flight count and
// batch size fit. Without idempotence batches carry no sequences and
// the rule does not apply.
func (c *Config) checkRules() error {
	bits := c.SequenceBits
	if !c.Producer.EnableIdempotence || bits < 1 || bits > 62 {
		return nil // no sequences, or Param.check has refused the width
	}
	w, f, b := int64(c.Broker.Window), int64(c.Producer.MaxInFlight), int64(c.Producer.BatchSize)
	need := (w + f) * b
	if space := int64(1) << bits; space <= need {
		least := bits
		for int64(1)<<least <= need {
			least++
		}
		return fmt.Errorf("sequence.bits=%d gives %d sequence numbers, not more than (broker.window + max.in.flight.requests.per.connection) * batch.size = (%d + %d) * %d = %d: "+
			"batches in the broker's window and in flight could share sequences, outside Kafka's design (allowed with these values: sequence.bits %d..31)",
			bits, space, w, f, b, need, least)
	}
	return nil
}

// checkDecode reports a value that [Param.check] accepts but that does not
// decode into p's field: a structured value (net.link.latency,
// fault.kinds) that does not parse. Setting a value checks it, so that
// the error names where the value was set.
func checkDecode(p *Param, val string) error {
	if p.Kind != String {
		return nil // Param.check has checked it fully
	}
	field, ok := fields[p.Key]
	if !ok {
		return nil // Decode reports the missing field
	}
	var c Config
	return decodeInto(p, val, field(&c))
}

// decodeInto parses s, a value of p that [Param.check] accepted, into dst,
// a pointer to p's field.
func decodeInto(p *Param, s string, dst any) error {
	mismatch := func() error {
		return fmt.Errorf("parameter %s: a %s cannot fill a %T field", p.Key, p.Kind, dst)
	}
	var err error
	switch d := dst.(type) {
	case *int:
		var n int64
		n, err = strconv.ParseInt(s, 10, 64)
		*d = int(n)
	case *int32:
		var n int64
		n, err = strconv.ParseInt(s, 10, 32)
		*d = int32(n)
	case *int64:
		*d, err = strconv.ParseInt(s, 10, 64)
	case *float64:
		*d, err = strconv.ParseFloat(s, 64)
	case *bool:
		*d, err = strconv.ParseBool(s)
	case *string:
		*d = s
	case *time.Duration:
		switch {
		case p.Kind == Duration:
			*d, err = time.ParseDuration(s)
		case p.Kind == Int && p.Unit == "ms":
			var n int64
			n, err = strconv.ParseInt(s, 10, 64)
			if n > math.MaxInt64/int64(time.Millisecond) || n < math.MinInt64/int64(time.Millisecond) {
				return fmt.Errorf("parameter %s: %s ms does not fit a time.Duration (its range must stay within ±%d)", p.Key, s, math.MaxInt64/int64(time.Millisecond))
			}
			*d = time.Duration(n) * time.Millisecond
		default:
			return mismatch()
		}
	case *Acks:
		if s == "all" {
			s = "-1"
		}
		var n int64
		n, err = strconv.ParseInt(s, 10, 8)
		*d = Acks(n)
	case *client.ClientPolicy:
		c, ok := client.ParsePolicy(s)
		if !ok {
			return fmt.Errorf("%s=%q is not allowed (allowed: %s)", p.Key, s, strings.Join(client.Policies(), ", "))
		}
		*d = c
	case *AppMode:
		switch s {
		case "at-least-once":
			*d = AppAtLeastOnce
		case "exactly-once":
			*d = AppExactlyOnce
		case "exactly-once-v2":
			*d = AppExactlyOnceV2
		case "exactly-once-groupid":
			*d = AppExactlyOnceGroupID
		default:
			return fmt.Errorf("%s=%q is not allowed (allowed: at-least-once, exactly-once, exactly-once-v2, exactly-once-groupid)", p.Key, s)
		}
	case *Rebuild:
		switch s {
		case "log":
			*d = RebuildLog
		case "none":
			*d = RebuildNone
		default:
			return fmt.Errorf("%s=%q is not allowed (allowed: log, none)", p.Key, s)
		}
	case *simnet.Mode:
		*d, err = simnet.ParseMode(s)
		return err
	case *simnet.Dist:
		*d, err = simnet.ParseDist(s)
		return err
	case *faults.Kinds:
		*d, err = faults.ParseKinds(s)
		return err
	case *[]simnet.LinkLatency:
		*d, err = simnet.ParseLinkLatencies(s)
		return err
	default:
		return mismatch()
	}
	if err != nil {
		// Param.check has accepted s for p's kind: the field's type does
		// not fit the parameter.
		return mismatch()
	}
	return nil
}

// ProducerConfig returns the producer configuration the parameters ask
// for, before Kafka's rules ([client.ProducerConfig.Resolve]).
func (c *Config) ProducerConfig() client.ProducerConfig {
	p := &c.Producer
	pc := client.DefaultProducerConfig()
	pc.EnableIdempotence = p.EnableIdempotence
	pc.Acks = int8(p.Acks)
	pc.Retries = p.Retries
	pc.MaxInFlight = p.MaxInFlight
	pc.AllowInFlightAboveFive = p.MaxInFlightAboveFive
	pc.DeliveryTimeout = p.DeliveryTimeout
	pc.RequestTimeout = p.RequestTimeout
	pc.RetryBackoff = p.RetryBackoff
	pc.RetryBackoffMax = p.RetryBackoffMax
	pc.ReconnectBackoff = p.ReconnectBackoff
	pc.Linger = p.Linger
	pc.BatchSize = p.BatchSize
	pc.TransactionalID = p.TransactionalID
	pc.TransactionRecords = p.TransactionRecords
	pc.TransactionTimeout = p.TransactionTimeout
	pc.TransactionVersion = p.Policy.TransactionVersion(c.Versions.TransactionVersion, c.Versions.ClientTransactionVersion())
	pc.ClientVersion = int(parseKafkaVersion(c.Versions.ClientVersion()))
	pc.AbortableError = p.Policy.ProduceV11(pc.ClientVersion) && parseKafkaVersion(c.Versions.BrokerVersion()).atLeast("3.8")
	pc.Seq = model.SeqSpace{Bits: uint8(c.SequenceBits)}
	pc.Policy = p.Policy
	pc.BugResetSeqOnMetadataFlap = p.BugMetaflapReset
	pc.BugReuseExpiredSeq = p.BugReuseExpiredSeq
	pc.WhatIfNoSkipBump = p.WhatIfNoSkipBump
	pc.NagleDisable = p.NagleDisable
	pc.BugTxnBumpInTxn = p.BugTxnBumpInTxn
	return pc
}

// Field returns a pointer to the field of c that parameter key decodes
// into, and false for a key without one.
func (c *Config) Field(key string) (any, bool) {
	f, ok := fields[key]
	if !ok {
		return nil, false
	}
	return f(c), true
}

// FieldKeys returns the keys of the parameters that have a field in
// Config, sorted.
func FieldKeys() []string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
