package model

import "strconv"

// Exactly-once consume-transform-produce: the producer commits the
// application's consumed input position inside its transaction
// (KafkaProducer.sendOffsetsToTransaction): AddOffsetsToTxn adds the
// group's __consumer_offsets partition to the transaction at the
// transaction coordinator, then TxnOffsetCommit writes the offsets,
// pending, at the group coordinator; the transaction's marker makes them
// visible or drops them. Under transaction version 2 (KIP-890 part 2) the
// client sends TxnOffsetCommit v5 alone, and the group coordinator adds
// the offsets partition to the transaction itself.

// DestGroupCoordinator is the destination of requests to the group
// coordinator.
const DestGroupCoordinator int32 = -2

// OffsetsPartition stands for the group's __consumer_offsets partition in
// a transaction's partition set and in its markers: the transaction
// coordinator sends its markers to the group coordinator.
const OffsetsPartition int32 = -1

// GroupOf returns the consumer group id of application app ("app-0", ...).
func GroupOf(app int32) string { return "app-" + strconv.Itoa(int(app)) }

// AddOffsetsToTxnRequest is Kafka's AddOffsetsToTxnRequest: the producer
// adds the group's offsets partition to its open transaction.
type AddOffsetsToTxnRequest struct {
	CorrelationID   int64
	TransactionalID string
	PID             ProducerID
	Epoch           int16
	GroupID         string
	// Coord is simulation metadata, never on the wire: the broker the
	// client sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "AddOffsetsToTxn#6 txn=t1 pid=42 e=0 group=app-0".
func (r *AddOffsetsToTxnRequest) AppendDescription(b []byte) []byte {
	b = append(b, "AddOffsetsToTxn#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " txn="...)
	b = append(b, r.TransactionalID...)
	b = append(b, " pid="...)
	b = strconv.AppendInt(b, int64(r.PID), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.Epoch), 10)
	b = append(b, " group="...)
	return append(b, r.GroupID...)
}

// TxnOffsetCommitRequest is Kafka's TxnOffsetCommitRequest, for the
// application's one input partition: Offset is the next input record to
// consume.
type TxnOffsetCommitRequest struct {
	CorrelationID   int64
	TransactionalID string
	GroupID         string
	PID             ProducerID
	Epoch           int16
	Offset          int64
	// TransactionV2 marks TxnOffsetCommit v5 (transaction version 2,
	// KIP-890 part 2): the client sends no AddOffsetsToTxn, and the group
	// coordinator adds the group's offsets partition to the transaction
	// itself before it writes the offsets.
	TransactionV2 bool
	// GroupMetadata is the consumer's group membership, passed to
	// sendOffsetsToTransaction(offsets, groupMetadata) (KIP-447); the zero
	// value is none (generation -1), as the deprecated
	// sendOffsetsToTransaction(offsets, groupId) sends.
	GroupMetadata
	// Partitions and Offsets, when set, are the offsets of a consumer
	// that reads several input partitions (app.mode=exactly-once-v2 and
	// exactly-once-groupid): Offsets[i] is the next offset to consume of
	// input partition Partitions[i], as KafkaProducer
	// .sendOffsetsToTransaction's map gives them; Offset is then unused.
	Partitions []int32
	Offsets    []int64
	// Coord is simulation metadata, never on the wire: the broker the
	// client sent the request to, as [CoordTag] of its FindCoordinator
	// answer (0: the coordinator's own node, or no lookup).
	Coord int32
}

// AppendDescription appends "TxnOffsetCommit#7 group=app-0 pid=42 e=0 offset=10",
// then " member=c-1 gen=3" when the request carries group metadata.
func (r *TxnOffsetCommitRequest) AppendDescription(b []byte) []byte {
	b = append(b, "TxnOffsetCommit#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " group="...)
	b = append(b, r.GroupID...)
	b = append(b, " pid="...)
	b = strconv.AppendInt(b, int64(r.PID), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.Epoch), 10)
	b = append(b, " offset="...)
	b = strconv.AppendInt(b, r.Offset, 10)
	if r.TransactionV2 {
		b = append(b, " v5"...)
	}
	for i, p := range r.Partitions {
		b = append(b, " p"...)
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, '=')
		b = strconv.AppendInt(b, r.Offsets[i], 10)
	}
	return appendGroupMetadata(b, r.GroupMetadata)
}

// OffsetFetchRequest asks the group coordinator for a group's committed
// input position, requiring it stable (KIP-447 require_stable: while a
// transaction holds a pending commit for the group the answer is
// UNSTABLE_OFFSET_COMMIT). The application's consumer sends it when a new
// instance starts; in idemsim it travels between the application and the
// group coordinator at once, without a trace line of its own.
type OffsetFetchRequest struct {
	GroupID string
}

// AppendDescription appends "OffsetFetch group=app-0".
func (r *OffsetFetchRequest) AppendDescription(b []byte) []byte {
	b = append(b, "OffsetFetch group="...)
	return append(b, r.GroupID...)
}

// OffsetFetchResponse answers an [OffsetFetchRequest]: the committed next
// input offset, or -1 when the group has committed nothing.
type OffsetFetchResponse struct {
	GroupID string
	Err     ErrCode
	Offset  int64
}

// AppendDescription appends "OffsetFetchResp group=app-0 NONE offset=10".
func (r *OffsetFetchResponse) AppendDescription(b []byte) []byte {
	b = append(b, "OffsetFetchResp group="...)
	b = append(b, r.GroupID...)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	b = append(b, " offset="...)
	return strconv.AppendInt(b, r.Offset, 10)
}
