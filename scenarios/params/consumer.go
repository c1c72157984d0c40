package params

import (
	"time"

	"github.com/idemsim/idemsim/model/consumer"
)

// ConsumerParams configure the consumer node r1 (model/consumer) of the
// scenarios that have one; their keys are Kafka's consumer configs but
// for consumer and consumer.poll.ms.
type ConsumerParams struct {
	// On is consumer: the run has the consumer r1, reading every
	// partition of the topic.
	On bool
	// Isolation is isolation.level: "read_committed" or
	// "read_uncommitted".
	Isolation string
	// MaxPollRecords is max.poll.records, 1..100000.
	MaxPollRecords int
	// AutoCommit is enable.auto.commit; AutoCommitInterval
	// auto.commit.interval.ms, 1 ms..1 h.
	AutoCommit         bool
	AutoCommitInterval time.Duration
	// Reset is auto.offset.reset: "latest", "earliest" or "none".
	Reset string
	// PollInterval is consumer.poll.ms: the application's time between
	// two polls, 1 ms..1 h.
	PollInterval time.Duration
	// FetchMaxWait is fetch.max.wait.ms: the wait after an empty fetch,
	// 0..1 h.
	FetchMaxWait time.Duration
	// LagBound is consumer.stuck.ms: how long a read_committed consumer
	// may wait behind a last stable offset that does not move before
	// LIVE-READ reports it, 1 ms..1 h.
	LagBound time.Duration
}

// ConsumerParamList returns the consumer's parameters, for a scenario's
// Extra; on is consumer's default.
func ConsumerParamList(on bool) []Param {
	def := "false"
	if on {
		def = "true"
	}
	return []Param{
		{Key: "consumer", Kind: Bool, Default: def, Doc: "the run has a consumer, r1, that reads every partition of the topic from its leader (model/consumer, docs/consumers.md)"},
		{Key: "isolation.level", Kind: Enum, Default: "read_uncommitted", Values: []string{"read_uncommitted", "read_committed"}, Doc: "the consumer's isolation.level: read_committed reads below the last stable offset and skips aborted transactions"},
		{Key: "max.poll.records", Kind: Int, Default: "500", Unit: "records", Doc: "the consumer's max.poll.records: records one poll returns at most", Min: 1, Max: 100_000},
		{Key: "enable.auto.commit", Kind: Bool, Default: "true", Doc: "the consumer's enable.auto.commit: commit the positions every auto.commit.interval.ms; false commits after each poll that returned records (commitSync)"},
		{Key: "auto.commit.interval.ms", Kind: Int, Default: "5000", Unit: "ms", Doc: "the consumer's auto.commit.interval.ms", Min: 1, Max: 3_600_000},
		{Key: "auto.offset.reset", Kind: Enum, Default: "earliest", Values: []string{"earliest", "latest", "none"}, Doc: "the consumer's auto.offset.reset, for a partition without a committed offset or out of range (Kafka's default is latest; the consumer starts with the run, so both read the topic from its start unless a reset happens later)"},
		{Key: "consumer.poll.ms", Kind: Int, Default: "100", Unit: "ms", Doc: "the consumer application's time between two polls", Min: 1, Max: 3_600_000},
		{Key: "fetch.max.wait.ms", Kind: Int, Default: "500", Unit: "ms", Doc: "the consumer's fetch.max.wait.ms: here the wait after an empty fetch before the partition is fetched again (the broker answers at once)", Min: 0, Max: 3_600_000},
		{Key: "consumer.stuck.ms", Kind: Int, Default: "10000", Unit: "ms", Doc: "LIVE-READ's bound: how long a read_committed consumer may wait at a last stable offset that does not move while the log grows behind it", Min: 1, Max: 3_600_000},
	}
}

func init() {
	for _, kf := range []struct {
		k string
		f func(c *Config) any
	}{
		{"consumer", func(c *Config) any { return &c.Extra.Consumer.On }},
		{"isolation.level", func(c *Config) any { return &c.Extra.Consumer.Isolation }},
		{"max.poll.records", func(c *Config) any { return &c.Extra.Consumer.MaxPollRecords }},
		{"enable.auto.commit", func(c *Config) any { return &c.Extra.Consumer.AutoCommit }},
		{"auto.commit.interval.ms", func(c *Config) any { return &c.Extra.Consumer.AutoCommitInterval }},
		{"auto.offset.reset", func(c *Config) any { return &c.Extra.Consumer.Reset }},
		{"consumer.poll.ms", func(c *Config) any { return &c.Extra.Consumer.PollInterval }},
		{"fetch.max.wait.ms", func(c *Config) any { return &c.Extra.Consumer.FetchMaxWait }},
		{"consumer.stuck.ms", func(c *Config) any { return &c.Extra.Consumer.LagBound }},
	} {
		fields[kf.k] = kf.f
	}
}

// Model returns the consumer's configuration for a topic whose
// partitions' leaders are leaders, on brokers brokers: group r1, every
// partition assigned, commits to the group coordinator, the consumer's
// request.timeout.ms and retry.backoff.ms at Kafka's defaults (30000 ms,
// 100 ms).
func (c *ConsumerParams) Model(leaders []int32, brokers int) consumer.Config {
	parts := make([]int32, len(leaders))
	for i := range parts {
		parts[i] = int32(i)
	}
	reset := consumer.ResetEarliest
	switch c.Reset {
	case "latest":
		reset = consumer.ResetLatest
	case "none":
		reset = consumer.ResetNone
	}
	return consumer.Config{GroupID: "r1", Partitions: parts, Leaders: leaders, Brokers: brokers,
		ReadCommitted: c.Isolation == "read_committed", MaxPollRecords: c.MaxPollRecords,
		AutoCommit: c.AutoCommit, AutoCommitInterval: c.AutoCommitInterval, Commits: true, Reset: reset,
		PollInterval: c.PollInterval, FetchMaxWait: c.FetchMaxWait, RequestTimeout: 30 * time.Second,
		RetryBackoff: 100 * time.Millisecond, Patience: c.LagBound}
}
