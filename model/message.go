package model

import (
	"strconv"
	"time"
)

// Message is a protocol message between nodes. Every message describes
// itself in one deterministic line for the trace.
type Message interface {
	AppendDescription(b []byte) []byte
}

// ProduceRequest is Kafka's ProduceRequest: at most one batch per partition.
type ProduceRequest struct {
	// CorrelationID identifies the request on its connection.
	CorrelationID int64
	// Acks is -1 (all), 0 or 1. With acks=0 the broker sends no response.
	Acks            int8
	TransactionalID string
	// TransactionV2 marks Produce v12: the leader adds a transactional
	// batch's partition to the transaction itself (KIP-890 part 2).
	TransactionV2 bool
	// AbortableError marks Produce v11 or later (KIP-890, Kafka 3.8:
	// "Version 11 adds support for new error code TRANSACTION_ABORTABLE",
	// ProduceRequest.json at 3.8.1): a failed partition verification is
	// answered TRANSACTION_ABORTABLE. A lower version gets
	// INVALID_TXN_STATE (KafkaApis.handleProduceRequest at 3.9.2 picks
	// genericError above version 10, defaultError below, and
	// AddPartitionsToTxnManager maps the one for the other "for backward
	// compatibility with clients"). TransactionV2 implies it.
	AbortableError bool
	// LeaderHints marks Produce v10 or later, which a client sends from
	// its 3.7 release on (KIP-951): a broker of 3.7 or later then fills
	// [PartitionResponse.HasCurrentLeader] on NOT_LEADER_OR_FOLLOWER
	// (KafkaApis.handleProduceRequest, "request.header.apiVersion >= 10").
	LeaderHints bool
	// TimeoutMs is how long the leader may wait for acks=all
	// (request.timeout.ms; ProduceRequest's timeoutMs); 0 means 30000.
	TimeoutMs int32
	Batches   []Batch
}

// AppendDescription appends "Produce#3 {p0 pid=1000 e=0 seq=0..0 n=1 [a1:0]}".
func (r *ProduceRequest) AppendDescription(b []byte) []byte {
	b = append(b, "Produce#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	for i := range r.Batches {
		b = append(b, " {"...)
		b = r.Batches[i].AppendDescription(b)
		b = append(b, '}')
	}
	return b
}

// PartitionResponse is the outcome for one partition of a produce request.
type PartitionResponse struct {
	Partition int32
	Err       ErrCode
	// BaseOffset is the batch's first offset (for a duplicate, the
	// original one), or -1 on error.
	BaseOffset int64
	// LogStartOffset is the partition's log start offset, which the client
	// compares with its last acknowledged offset on UNKNOWN_PRODUCER_ID
	// (TransactionManager.canRetry); -1 means unknown. The zero value suits a
	// log that was never truncated.
	LogStartOffset int64
	// HasCurrentLeader marks the KIP-951 leader hint (Produce v10+, a
	// broker of 3.7 or later, on NOT_LEADER_OR_FOLLOWER): the partition's
	// leader as the answering broker knows it (KafkaApis.getCurrentLeader,
	// core/src/main/scala/kafka/server/KafkaApis.scala), CurrentLeader a
	// broker index and CurrentLeaderEpoch its epoch, -1 each when unknown.
	// The leader's NodeEndpoints entry is not carried: every client knows
	// every broker's address in the model.
	HasCurrentLeader   bool
	CurrentLeader      int32
	CurrentLeaderEpoch int32
}

// ProduceResponse answers a [ProduceRequest].
type ProduceResponse struct {
	CorrelationID int64
	Partitions    []PartitionResponse
}

// AppendDescription appends "ProduceResp#3 {p0 NONE off=17}", or, with a
// leader hint, "ProduceResp#4 {p0 NOT_LEADER_OR_FOLLOWER leader=b2 e=3}"
// ("leader=- e=-1" when the broker knows no leader).
func (r *ProduceResponse) AppendDescription(b []byte) []byte {
	b = append(b, "ProduceResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	for _, p := range r.Partitions {
		b = append(b, " {p"...)
		b = strconv.AppendInt(b, int64(p.Partition), 10)
		b = append(b, ' ')
		b = append(b, p.Err.String()...)
		if p.Err == ErrNone {
			b = append(b, " off="...)
			b = strconv.AppendInt(b, p.BaseOffset, 10)
		}
		if p.HasCurrentLeader {
			b = append(b, " leader="...)
			if p.CurrentLeader < 0 {
				b = append(b, '-')
			} else {
				b = append(b, 'b')
				b = strconv.AppendInt(b, int64(p.CurrentLeader)+1, 10)
			}
			b = append(b, " e="...)
			b = strconv.AppendInt(b, int64(p.CurrentLeaderEpoch), 10)
		}
		b = append(b, '}')
	}
	return b
}

// InitProducerIDRequest is Kafka's InitProducerIdRequest. With a
// transactional id it goes to the transaction coordinator, which fences
// older instances; ExpectedPID and ExpectedEpoch carry the KIP-360 pair, or
// NoProducerID and NoEpoch.
type InitProducerIDRequest struct {
	CorrelationID   int64
	TransactionalID string
	ExpectedPID     ProducerID
	ExpectedEpoch   int16
	// TransactionTimeout is transaction.timeout.ms; 0 means the default.
	TransactionTimeout time.Duration
	// Coord is simulation metadata, never on the wire: the broker the
	// client sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "InitProducerId#1 txn=t1 expect=1000/0".
func (r *InitProducerIDRequest) AppendDescription(b []byte) []byte {
	b = append(b, "InitProducerId#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	if r.TransactionalID != "" {
		b = append(b, " txn="...)
		b = append(b, r.TransactionalID...)
	}
	if r.ExpectedPID != NoProducerID {
		b = append(b, " expect="...)
		b = strconv.AppendInt(b, int64(r.ExpectedPID), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(r.ExpectedEpoch), 10)
	}
	return b
}

// InitProducerIDResponse answers an [InitProducerIDRequest].
type InitProducerIDResponse struct {
	CorrelationID int64
	Err           ErrCode
	PID           ProducerID
	Epoch         int16
}

// AppendDescription appends "InitProducerIdResp#1 NONE pid=1000 e=0".
func (r *InitProducerIDResponse) AppendDescription(b []byte) []byte {
	b = append(b, "InitProducerIdResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	if r.Err == ErrNone {
		b = append(b, " pid="...)
		b = strconv.AppendInt(b, int64(r.PID), 10)
		b = append(b, " e="...)
		b = strconv.AppendInt(b, int64(r.Epoch), 10)
	}
	return b
}

// AddPartitionsToTxnRequest is Kafka's classic AddPartitionsToTxnRequest: a
// transactional producer adds partitions to its open transaction before it
// produces to them.
type AddPartitionsToTxnRequest struct {
	CorrelationID   int64
	TransactionalID string
	PID             ProducerID
	Epoch           int16
	Partitions      []int32
	// Txn is simulation metadata, never on the wire: the sending
	// instance's ordinal of the transaction it adds to ([Batch.Txn]).
	Txn int32
	// Coord is simulation metadata, never on the wire: the broker the
	// client sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "AddPartitionsToTxn#4 txn=t1 pid=42 e=0 [p0 p1]".
func (r *AddPartitionsToTxnRequest) AppendDescription(b []byte) []byte {
	b = append(b, "AddPartitionsToTxn#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " txn="...)
	b = append(b, r.TransactionalID...)
	b = append(b, " pid="...)
	b = strconv.AppendInt(b, int64(r.PID), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.Epoch), 10)
	return appendPartitions(b, r.Partitions)
}

// EndTxnRequest is Kafka's EndTxnRequest: a transactional producer commits
// or aborts its open transaction.
type EndTxnRequest struct {
	CorrelationID   int64
	TransactionalID string
	PID             ProducerID
	Epoch           int16
	Commit          bool
	// Version is the request version; 5 and above ask for transaction
	// version 2 (see coordinator.EndTxnCall); 0 means the newest.
	Version int16
	// Txn is simulation metadata, never on the wire: the sending
	// instance's ordinal of the transaction this EndTxn is meant to end
	// ([Batch.Txn]).
	Txn int32
	// Coord is simulation metadata, never on the wire: the broker the
	// client sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "EndTxn#5 txn=t1 pid=42 e=0 COMMIT".
func (r *EndTxnRequest) AppendDescription(b []byte) []byte {
	b = append(b, "EndTxn#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " txn="...)
	b = append(b, r.TransactionalID...)
	b = append(b, " pid="...)
	b = strconv.AppendInt(b, int64(r.PID), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.Epoch), 10)
	if r.Commit {
		return append(b, " COMMIT"...)
	}
	return append(b, " ABORT"...)
}

// TxnResponse answers an [AddPartitionsToTxnRequest] or an
// [EndTxnRequest] with one error code.
type TxnResponse struct {
	CorrelationID int64
	// Op is "AddPartitionsToTxn" or "EndTxn", for the trace.
	Op  string
	Err ErrCode
	// PID and Epoch are EndTxn v5's producer id and epoch (transaction
	// version 2: the pair the producer adopts; KIP-890 part 2), or
	// NoProducerID and NoEpoch (an error, or an older version).
	PID   ProducerID
	Epoch int16
}

// AppendDescription appends "EndTxnResp#5 NONE".
func (r *TxnResponse) AppendDescription(b []byte) []byte {
	b = append(b, r.Op...)
	b = append(b, "Resp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, ' ')
	return append(b, r.Err.String()...)
}
