package model

// Error codes of the replication path (Kafka's Errors.java values); their
// names are in errcode.go's errNames.
const (
	ErrOffsetOutOfRange             ErrCode = 1
	ErrUnknownTopicOrPartition      ErrCode = 3
	ErrLeaderNotAvailable           ErrCode = 5
	ErrNotEnoughReplicasAfterAppend ErrCode = 20
	ErrNotController                ErrCode = 41
	ErrOperationNotAttempted        ErrCode = 55
	ErrFencedLeaderEpoch            ErrCode = 74
	ErrUnknownLeaderEpoch           ErrCode = 75
	ErrInvalidUpdateVersion         ErrCode = 95
	ErrIneligibleReplica            ErrCode = 107
)
