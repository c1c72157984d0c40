package client

import (
	"fmt"
	"github.com/idemsim/idemsim/model"
	"math"
	"time"
)

// ProducerConfig holds a producer's settings under Kafka's names. Durations
// are in simulated time. Start from [DefaultProducerConfig].
type ProducerConfig struct {
	// EnableIdempotence is enable.idempotence (default true).
	EnableIdempotence bool
	// IdempotenceExplicit records that the user set enable.idempotence; a
	// conflict is then an error instead of quietly turning it off.
	IdempotenceExplicit bool
	// Acks is acks: -1 (all, the default), 0 or 1.
	Acks int8
	// Retries is retries, 0..2147483647 (default 2147483647).
	Retries int32
	// MaxInFlight is max.in.flight.requests.per.connection, >= 1
	// (default 5).
	MaxInFlight int
	// AllowInFlightAboveFive is the what-if switch for studies of
	// idempotence with more than 5 requests in flight, which Kafka
	// refuses.
	AllowInFlightAboveFive bool
	// DeliveryTimeout is delivery.timeout.ms (default 120000 ms).
	DeliveryTimeout time.Duration
	// DeliveryTimeoutExplicit records that the user set
	// delivery.timeout.ms; a value below linger.ms + request.timeout.ms is
	// then an error instead of being raised quietly
	// (KafkaProducer.configureDeliveryTimeout).
	DeliveryTimeoutExplicit bool
	// RequestTimeout is request.timeout.ms (default 30000 ms).
	RequestTimeout time.Duration
	// RefreshMetadata: the producer asks brokers for the partitions'
	// leaders when they may have moved (metadata.go). Set where
	// the topic is replicated and leaders fail over; without replication
	// leaders never move, and idemsim leaves the Metadata exchange out.
	RefreshMetadata bool
	// Brokers is the number of brokers Metadata requests may go to.
	Brokers int
	// MetadataMaxAge is metadata.max.age.ms (default 300000 ms).
	MetadataMaxAge time.Duration
	// RetryBackoff is retry.backoff.ms (default 100 ms).
	RetryBackoff time.Duration
	// RetryBackoffMax is retry.backoff.max.ms (default 1000 ms).
	RetryBackoffMax time.Duration
	// ReconnectBackoff is reconnect.backoff.ms (default 50 ms).
	ReconnectBackoff time.Duration
	// Linger is linger.ms (Kafka 4.0+ default 5 ms, KIP-1030; 0 before).
	Linger time.Duration
	// BatchSize is batch.size counted in records, >= 1 (default 16).
	BatchSize int
	// TransactionalID is transactional.id; empty means none.
	TransactionalID string
	// TransactionRecords is how many records the application puts in one
	// transaction (beginTransaction ... commitTransaction), >= 0; 0 means
	// the application runs no transactions and the transactional.id only
	// fences older instances. Needs TransactionalID.
	TransactionRecords int
	// TransactionVersion is the transaction protocol the client uses: 1
	// (classic: AddPartitionsToTxn before a partition's first batch, the
	// epoch kept across transactions) or 2 (KIP-890 part 2, Kafka 4.0+
	// clients against a cluster with transaction.version=2: partitions are
	// added by the leader on the produce path (Produce v12), EndTxn v5
	// returns a bumped epoch that the client adopts, resetting every
	// sequence to 0, and an abortable error needs no InitProducerId bump;
	// KIP-890 part 2, KAFKA-17898). 0 means 1.
	TransactionVersion int
	// ClientVersion is the Java client's release as major*100+minor (4.0
	// is 400); 0 means the newest modelled. It gates what the client's
	// releases did differently (docs/versions.md).
	ClientVersion int
	// AbortableError: the client sends Produce v11 or later to these
	// brokers, and is answered TRANSACTION_ABORTABLE where a lower version
	// gets INVALID_TXN_STATE ([model.ProduceRequest.AbortableError];
	// [ClientPolicy.ProduceV11] and a broker at 3.8 or later).
	AbortableError bool
	// GroupID, set for an exactly-once application, is the consumer group
	// whose input position the producer commits inside every transaction
	// (sendOffsetsToTransaction: AddOffsetsToTxn, then TxnOffsetCommit,
	// then EndTxn); the position is the next input record after the
	// transaction's records. Empty: no offsets are committed.
	GroupID string
	// InputParts, set with GroupID for a group application
	// (app.mode=exactly-once-v2 and exactly-once-groupid), is the number
	// of input partitions: the offsets committed in a transaction are
	// then per input partition, as the application's consumer positions
	// give them (sendOffsetsToTransaction's map): input record n is at
	// offset n/InputParts of partition InputBase + n%InputParts, after
	// InputSkip0 offsets in the first one (input.aborted's records and
	// markers). 0: one position per group (app.mode=exactly-once).
	InputParts int32
	InputBase  int32
	InputSkip0 int64
	// TransactionTimeout is transaction.timeout.ms (default 60000 ms).
	TransactionTimeout time.Duration
	// Seq is the sequence-number space; it must match the brokers'.
	Seq model.SeqSpace
	// Policy is the client whose behaviour is modelled (default java).
	Policy ClientPolicy

	// Historical client defects, off by default; scenarios turn them on
	// with -bug ID (README.md, "Defects and what-ifs").

	// BugResetSeqOnMetadataFlap: when the topic's metadata briefly says
	// the topic is gone, the client drops its partition state and restarts
	// sequences at 0 under the same producer id and epoch (librdkafka
	// before 1.9.0, -bug Z11).
	BugResetSeqOnMetadataFlap bool
	// BugReuseExpiredSeq: a written batch that expires frees its sequence
	// numbers for the next records instead of leaving the partition
	// unresolved (franz-go #1217, -bug Z11f).
	BugReuseExpiredSeq bool
	// NagleDisable is librdkafka's socket.nagle.disable: with the
	// librdkafka policy, true sets TCP_NODELAY (no Nagle hold,
	// nagle.go); the other policies always have it.
	NagleDisable bool
	// WhatIfNoSkipBump: with the librdkafka policy, an
	// OUT_OF_ORDER_SEQUENCE_NUMBER for a batch after the head ("skipped
	// sequence numbers") only re-enqueues the batch, without the epoch bump
	// every librdkafka release makes there: the fix librdkafka pull request
	// #4972 proposes, unmerged (a what-if).
	WhatIfNoSkipBump bool
	// BugTxnBumpInTxn (-bug Z17, librdkafka before 1.8.2, #3575): with
	// the librdkafka policy, a transactional producer that gets
	// OUT_OF_ORDER_SEQUENCE_NUMBER bumps its epoch through InitProducerId
	// inside the transaction instead of failing it (abortable): the
	// coordinator fences and aborts the open transaction, while the client
	// carries on as if it were still open, adds its partitions again under
	// the new epoch and commits a transaction that lacks the records
	// acknowledged before the bump. The bump re-initialises the producer
	// id as at startup (InitProducerId without the KIP-360 pair).
	BugTxnBumpInTxn bool
}

// DefaultProducerConfig returns the Java client's defaults (Kafka 4.0+: linger.ms 5).
func DefaultProducerConfig() ProducerConfig {
	// The Java client's defaults as of Kafka 4.1 (the default kafka.version).
	return ProducerConfig{
		EnableIdempotence:  true,
		Acks:               -1,
		Retries:            math.MaxInt32,
		MaxInFlight:        5,
		DeliveryTimeout:    120 * time.Second,
		RequestTimeout:     30 * time.Second,
		RetryBackoff:       100 * time.Millisecond,
		RetryBackoffMax:    time.Second,
		ReconnectBackoff:   50 * time.Millisecond,
		Linger:             5 * time.Millisecond,
		BatchSize:          16,
		TransactionTimeout: 60 * time.Second,
		AbortableError:     true,
	}
}

// Resolve applies Kafka's configuration rules
// (ProducerConfig.postProcessAndValidateIdempotenceConfigs,
// KafkaProducer.configureDeliveryTimeout) and returns the effective
// configuration. An explicit conflict is an error naming the setting; an
// implicit one quietly disables idempotence, as Kafka does, and is
// reported in notes. Kafka's rules, in its order: idempotence needs
// acks=all, retries > 0 and max.in.flight.requests.per.connection <= 5
// (the last one can be waived with AllowInFlightAboveFive, a what-if that
// Kafka does not have); transactional.id needs idempotence; and
// delivery.timeout.ms must cover linger.ms + request.timeout.ms.
func (c ProducerConfig) Resolve() (eff ProducerConfig, notes []string, err error) {
	switch {
	case c.Acks != -1 && c.Acks != 0 && c.Acks != 1:
		return c, nil, fmt.Errorf("acks=%d is not allowed (allowed: all, -1, 0, 1)", c.Acks)
	case c.Retries < 0:
		return c, nil, fmt.Errorf("retries=%d is negative (allowed: 0..2147483647)", c.Retries)
	case c.MaxInFlight < 1:
		return c, nil, fmt.Errorf("max.in.flight.requests.per.connection=%d is not allowed (allowed: >= 1)", c.MaxInFlight)
	case c.BatchSize < 1:
		return c, nil, fmt.Errorf("batch.size=%d is not allowed (allowed: >= 1 records)", c.BatchSize)
	case c.DeliveryTimeout < 0 || c.RequestTimeout <= 0 || c.RetryBackoff < 0 || c.RetryBackoffMax < 0 || c.Linger < 0 || c.ReconnectBackoff < 0:
		return c, nil, fmt.Errorf("producer timeouts must be >= 0 and request.timeout.ms > 0")
	}
	if c.EnableIdempotence {
		var conflict string
		switch {
		case c.Acks != -1:
			conflict = fmt.Sprintf("acks=%d (idempotence needs acks=all)", c.Acks)
		case c.Retries == 0:
			conflict = "retries=0 (idempotence needs retries > 0)"
		case c.MaxInFlight > 5 && !c.AllowInFlightAboveFive:
			conflict = fmt.Sprintf("max.in.flight.requests.per.connection=%d (idempotence needs <= 5)", c.MaxInFlight)
		case c.MaxInFlight > 5:
			notes = append(notes, fmt.Sprintf("what-if: idempotence with max.in.flight.requests.per.connection=%d, which Kafka refuses", c.MaxInFlight))
		}
		if conflict != "" {
			if c.IdempotenceExplicit {
				return c, nil, &IdempotenceConflict{Setting: conflict}
			}
			c.EnableIdempotence = false
			notes = append(notes, "idempotence disabled implicitly: "+conflict)
		}
	}
	if c.TransactionRecords < 0 {
		return c, notes, fmt.Errorf("transaction.records=%d is negative (allowed: >= 0)", c.TransactionRecords)
	}
	if c.TransactionRecords > 0 && c.TransactionalID == "" {
		return c, notes, fmt.Errorf("transaction.records=%d needs a transactional.id", c.TransactionRecords)
	}
	if c.TransactionalID != "" && !c.EnableIdempotence {
		return c, notes, fmt.Errorf("transactional.id=%s needs enable.idempotence=true", c.TransactionalID)
	}
	if min := c.Linger + c.RequestTimeout; c.DeliveryTimeout < min {
		if c.DeliveryTimeoutExplicit {
			return c, notes, fmt.Errorf("delivery.timeout.ms=%d should be equal to or larger than linger.ms + request.timeout.ms = %d", c.DeliveryTimeout.Milliseconds(), min.Milliseconds())
		}
		notes = append(notes, fmt.Sprintf("delivery.timeout.ms raised to linger.ms + request.timeout.ms = %d", min.Milliseconds()))
		c.DeliveryTimeout = min
	}
	return c, notes, nil
}

// IdempotenceConflict is the error of an explicit enable.idempotence=true
// with a setting idempotence does not allow (acks other than all,
// retries=0, more than five requests in flight).
type IdempotenceConflict struct {
	// Setting names the setting and why, e.g. "acks=1 (idempotence needs
	// acks=all)".
	Setting string
}

func (e *IdempotenceConflict) Error() string {
	return "enable.idempotence=true conflicts with " + e.Setting
}
