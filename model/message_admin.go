package model

import (
	"strconv"

	"github.com/idemsim/idemsim/sim"
)

// The admin client's requests for stuck transactions (KIP-664, Kafka
// 3.0.0: every kafka.version the simulator has): DescribeProducers to a
// partition's leader, ListTransactions and DescribeTransactions to the
// transaction coordinator, and, to abort a transaction, the
// WriteTxnMarkers a coordinator would send ([WriteTxnMarkersRequest],
// sent by the admin as Admin.abortTransaction does). Citations name
// apache/kafka files: KafkaApis is core/src/main/scala/kafka/server/
// KafkaApis.scala, TC core/src/main/scala/kafka/coordinator/transaction/
// TransactionCoordinator.scala, TSM its TransactionStateManager.scala.

// DestAdmin is the admin node's destination index. Nothing sends to it
// (it is only ever the client end of its connections); a registered node
// kind needs one.
const DestAdmin int32 = -5

// ErrTransactionalIDNotFound is TRANSACTIONAL_ID_NOT_FOUND (Errors.java,
// code 105, KIP-664): DescribeTransactions of an id the coordinator does
// not have.
const ErrTransactionalIDNotFound ErrCode = 105

func init() { errNames[ErrTransactionalIDNotFound] = "TRANSACTIONAL_ID_NOT_FOUND" }

// DescribeProducersRequest asks a replica of Partition for its active
// producers (KafkaApis.handleDescribeProducersRequest; the admin sends it
// to the leader, Admin.describeProducers without a broker id).
type DescribeProducersRequest struct {
	CorrelationID int64
	Partition     int32
}

// AppendDescription appends "DescribeProducers#2 p0".
func (r *DescribeProducersRequest) AppendDescription(b []byte) []byte {
	b = append(b, "DescribeProducers#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " p"...)
	return strconv.AppendInt(b, int64(r.Partition), 10)
}

// ProducerState is one active producer of a partition as
// DescribeProducers reports it (UnifiedLog.activeProducers, from the
// partition's ProducerStateManager entries).
type ProducerState struct {
	PID   ProducerID
	Epoch int16
	// LastSequence is the last sequence of its newest cached batch, -1
	// if none.
	LastSequence int32
	// LastTimestamp is the time of its last batch or marker.
	LastTimestamp sim.Time
	// CoordinatorEpoch is the coordinator epoch of its last marker, -1
	// if none was seen.
	CoordinatorEpoch int32
	// TxnStartOffset is the first offset of its open transaction, -1 if
	// none (currentTxnStartOffset).
	TxnStartOffset int64
}

// DescribeProducersResponse answers a [DescribeProducersRequest]: NONE
// with the producers, NOT_LEADER_OR_FOLLOWER from a broker that holds no
// replica of the partition, UNKNOWN_TOPIC_OR_PARTITION for a partition
// the topic does not have.
type DescribeProducersResponse struct {
	CorrelationID int64
	Partition     int32
	Err           ErrCode
	Producers     []ProducerState
}

// AppendDescription appends "DescribeProducersResp#2 p0 NONE n=1".
func (r *DescribeProducersResponse) AppendDescription(b []byte) []byte {
	b = append(b, "DescribeProducersResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " p"...)
	b = strconv.AppendInt(b, int64(r.Partition), 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	b = append(b, " n="...)
	return strconv.AppendInt(b, int64(len(r.Producers)), 10)
}

// ListTransactionsRequest asks the transaction coordinator for its
// transactional ids, filtered by producer id when ProducerIDs is not
// empty (TC.handleListTransactions, TSM.listTransactionStates; the
// state filter is not modelled).
type ListTransactionsRequest struct {
	CorrelationID int64
	ProducerIDs   []ProducerID
}

// AppendDescription appends "ListTransactions#3 pids=[1]".
func (r *ListTransactionsRequest) AppendDescription(b []byte) []byte {
	b = append(b, "ListTransactions#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " pids=["...)
	for i, p := range r.ProducerIDs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return append(b, ']')
}

// TxnListing is one transactional id of a ListTransactions answer.
type TxnListing struct {
	TransactionalID string
	PID             ProducerID
	State           TxnState
}

// ListTransactionsResponse answers a [ListTransactionsRequest].
type ListTransactionsResponse struct {
	CorrelationID int64
	Err           ErrCode
	Txns          []TxnListing
}

// AppendDescription appends "ListTransactionsResp#3 NONE n=1".
func (r *ListTransactionsResponse) AppendDescription(b []byte) []byte {
	b = append(b, "ListTransactionsResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	b = append(b, " n="...)
	return strconv.AppendInt(b, int64(len(r.Txns)), 10)
}

// DescribeTransactionsRequest asks the transaction coordinator for the
// state of transactional ids (TC.handleDescribeTransactions).
type DescribeTransactionsRequest struct {
	CorrelationID    int64
	TransactionalIDs []string
}

// AppendDescription appends "DescribeTransactions#4 [t1]".
func (r *DescribeTransactionsRequest) AppendDescription(b []byte) []byte {
	b = append(b, "DescribeTransactions#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " ["...)
	for i, id := range r.TransactionalIDs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, id...)
	}
	return append(b, ']')
}

// TxnDescription is one transactional id's state in a
// DescribeTransactions answer: Err is NONE or TRANSACTIONAL_ID_NOT_FOUND
// (an unknown id, or one being expired: Dead).
type TxnDescription struct {
	TransactionalID string
	Err             ErrCode
	PID             ProducerID
	Epoch           int16
	State           TxnState
	// Timeout is transaction.timeout.ms; StartTime when the transaction
	// became Ongoing (txnStartTimestamp).
	Timeout   int64
	StartTime sim.Time
	// Partitions are the transaction's partitions, increasing: those
	// written to while Ongoing, and those still owed a marker while
	// PrepareCommit or PrepareAbort.
	Partitions []int32
}

// DescribeTransactionsResponse answers a [DescribeTransactionsRequest],
// one description per id asked, in order.
type DescribeTransactionsResponse struct {
	CorrelationID int64
	Txns          []TxnDescription
}

// AppendDescription appends "DescribeTransactionsResp#4 n=1".
func (r *DescribeTransactionsResponse) AppendDescription(b []byte) []byte {
	b = append(b, "DescribeTransactionsResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " n="...)
	return strconv.AppendInt(b, int64(len(r.Txns)), 10)
}
