package model

import "strconv"

// ErrCode is a Kafka protocol error code, with Kafka's numeric values
// (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java).
// String returns Kafka's name, e.g. "OUT_OF_ORDER_SEQUENCE_NUMBER", so a
// trace can be read side by side with Kafka's code.
//
// Two values are idemsim's own, for outcomes that Kafka reports as client
// exceptions rather than wire codes; their codes are negative and below
// Kafka's UNKNOWN_SERVER_ERROR (-1): [ErrDeliveryTimeout] and [ErrFatal].
type ErrCode int16

// The error codes the simulated broker, coordinator and client use.
const (
	ErrNone                         ErrCode = 0
	ErrUnknownServerError           ErrCode = -1
	ErrNotLeaderOrFollower          ErrCode = 6
	ErrRequestTimedOut              ErrCode = 7
	ErrNetworkException             ErrCode = 13
	ErrNotEnoughReplicas            ErrCode = 19
	ErrInvalidRequest               ErrCode = 42
	ErrOutOfOrderSequenceNumber     ErrCode = 45
	ErrDuplicateSequenceNumber      ErrCode = 46
	ErrInvalidProducerEpoch         ErrCode = 47
	ErrInvalidTxnState              ErrCode = 48
	ErrInvalidProducerIDMapping     ErrCode = 49
	ErrInvalidTransactionTimeout    ErrCode = 50
	ErrConcurrentTransactions       ErrCode = 51
	ErrTransactionCoordinatorFenced ErrCode = 52
	ErrUnknownProducerID            ErrCode = 59
	ErrUnstableOffsetCommit         ErrCode = 88
	ErrInvalidRecord                ErrCode = 87
	ErrProducerFenced               ErrCode = 90
	ErrTransactionAbortable         ErrCode = 120

	// ErrDeliveryTimeout is the client's TimeoutException when a batch
	// reaches delivery.timeout.ms ("Expiring N record(s)"). Not a wire code.
	ErrDeliveryTimeout ErrCode = -100
	// ErrFatal marks a record failed because its producer instance entered
	// a fatal state earlier (Kafka fails such sends with the stored fatal
	// exception). Not a wire code.
	ErrFatal ErrCode = -101
)

var errNames = map[ErrCode]string{
	ErrNone:                         "NONE",
	ErrUnknownServerError:           "UNKNOWN_SERVER_ERROR",
	ErrNotLeaderOrFollower:          "NOT_LEADER_OR_FOLLOWER",
	ErrRequestTimedOut:              "REQUEST_TIMED_OUT",
	ErrNetworkException:             "NETWORK_EXCEPTION",
	ErrNotEnoughReplicas:            "NOT_ENOUGH_REPLICAS",
	ErrInvalidRequest:               "INVALID_REQUEST",
	ErrOutOfOrderSequenceNumber:     "OUT_OF_ORDER_SEQUENCE_NUMBER",
	ErrDuplicateSequenceNumber:      "DUPLICATE_SEQUENCE_NUMBER",
	ErrInvalidProducerEpoch:         "INVALID_PRODUCER_EPOCH",
	ErrInvalidTxnState:              "INVALID_TXN_STATE",
	ErrInvalidProducerIDMapping:     "INVALID_PRODUCER_ID_MAPPING",
	ErrInvalidTransactionTimeout:    "INVALID_TRANSACTION_TIMEOUT",
	ErrConcurrentTransactions:       "CONCURRENT_TRANSACTIONS",
	ErrUnstableOffsetCommit:         "UNSTABLE_OFFSET_COMMIT",
	ErrTransactionCoordinatorFenced: "TRANSACTION_COORDINATOR_FENCED",
	ErrUnknownProducerID:            "UNKNOWN_PRODUCER_ID",
	ErrInvalidRecord:                "INVALID_RECORD",
	ErrProducerFenced:               "PRODUCER_FENCED",
	ErrTransactionAbortable:         "TRANSACTION_ABORTABLE",
	ErrDeliveryTimeout:              "DELIVERY_TIMEOUT",
	ErrFatal:                        "FATAL_STATE",

	// The replication path (errcode_repl.go).
	ErrOffsetOutOfRange:             "OFFSET_OUT_OF_RANGE",
	ErrUnknownTopicOrPartition:      "UNKNOWN_TOPIC_OR_PARTITION",
	ErrLeaderNotAvailable:           "LEADER_NOT_AVAILABLE",
	ErrNotEnoughReplicasAfterAppend: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
	ErrNotController:                "NOT_CONTROLLER",
	ErrOperationNotAttempted:        "OPERATION_NOT_ATTEMPTED",
	ErrFencedLeaderEpoch:            "FENCED_LEADER_EPOCH",
	ErrUnknownLeaderEpoch:           "UNKNOWN_LEADER_EPOCH",
	ErrInvalidUpdateVersion:         "INVALID_UPDATE_VERSION",
	ErrIneligibleReplica:            "INELIGIBLE_REPLICA",

	// Group membership (message_group.go).
	ErrCoordinatorNotAvailable: "COORDINATOR_NOT_AVAILABLE",
	// Coordinator lookup (message_findcoord.go).
	ErrCoordinatorLoadInProgress: "COORDINATOR_LOAD_IN_PROGRESS",
	ErrNotCoordinator:            "NOT_COORDINATOR",
	ErrIllegalGeneration:         "ILLEGAL_GENERATION",
	ErrInconsistentGroupProtocol: "INCONSISTENT_GROUP_PROTOCOL",
	ErrUnknownMemberID:           "UNKNOWN_MEMBER_ID",
	ErrInvalidSessionTimeout:     "INVALID_SESSION_TIMEOUT",
	ErrRebalanceInProgress:       "REBALANCE_IN_PROGRESS",
	ErrFencedInstanceID:          "FENCED_INSTANCE_ID",
	ErrMemberIDRequired:          "MEMBER_ID_REQUIRED",
}

// String returns Kafka's name for the code.
func (e ErrCode) String() string {
	if s, ok := errNames[e]; ok {
		return s
	}
	return "ERROR_" + strconv.Itoa(int(e))
}

// ParseErrCode returns the code with Kafka's name s ("NONE",
// "OUT_OF_ORDER_SEQUENCE_NUMBER", ...).
func ParseErrCode(s string) (ErrCode, bool) {
	for c, n := range errNames {
		if n == s {
			return c, true
		}
	}
	return 0, false
}

// Retriable reports whether the Java client retries a produce that failed
// with e (a RetriableException subclass in Kafka).
func (e ErrCode) Retriable() bool {
	switch e {
	case ErrNotLeaderOrFollower, ErrRequestTimedOut, ErrNetworkException,
		ErrNotEnoughReplicas, ErrConcurrentTransactions,
		// RetriableException subclasses of the replication path
		// (NotEnoughReplicasAfterAppendException; LeaderNotAvailable and
		// UnknownTopicOrPartition are InvalidMetadataExceptions;
		// Sender.canRetry).
		ErrNotEnoughReplicasAfterAppend, ErrLeaderNotAvailable, ErrUnknownTopicOrPartition:
		return true
	}
	return false
}
