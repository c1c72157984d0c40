package model

import (
	"slices"
	"strconv"
)

// TxnState is a transactional id's state on the transaction coordinator
// (Kafka's TransactionState, core/src/main/scala/kafka/coordinator/
// transaction/TransactionMetadata.scala l.79-163 at apache/kafka@1eb7644349cb).
// Legal transitions: Empty from Empty/Complete*; Ongoing from
// Ongoing/Empty/Complete*; PrepareCommit from Ongoing; PrepareAbort from
// Ongoing or PrepareEpochFence, and since Kafka 4.0 from Empty and
// Complete* too (transaction version 2's abort of a transaction with no
// partitions, KAFKA-18464; TransactionMetadata.scala's PrepareAbort, "In
// transaction v2, we allow Empty, CompleteCommit, CompleteAbort to
// transition to PrepareAbort"); Complete* from their Prepare*; Dead from
// Empty/Complete*. PrepareEpochFence is never logged: it is the pending
// state of a fence, whose only exit is PrepareAbort.
type TxnState uint8

// Transaction states.
const (
	TxnEmpty TxnState = iota
	TxnOngoing
	// TxnPrepareCommit and TxnPrepareAbort hold while the markers are being
	// written: from EndTxn (or a fence) until
	// coordinator.Coordinator.MarkersWritten.
	TxnPrepareCommit
	TxnPrepareAbort
	TxnCompleteCommit
	TxnCompleteAbort
	// TxnDead is a transactional id removed by expiry
	// (transactional.id.expiration.ms): logged as a tombstone, then
	// forgotten.
	TxnDead
	// TxnPrepareEpochFence is the pending state of a fence (InitProducerId
	// on an Ongoing transaction, or its timeout): the epoch is bumped in
	// memory and PrepareAbort follows in the same step.
	TxnPrepareEpochFence
)

var txnStateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

// legalPrev[s] lists the states s may follow (TransactionState.validPreviousStates,
// core/src/main/scala/kafka/coordinator/transaction/TransactionMetadata.scala).
var legalPrev = [...][]TxnState{
	TxnEmpty:             {TxnEmpty, TxnCompleteCommit, TxnCompleteAbort},
	TxnOngoing:           {TxnOngoing, TxnEmpty, TxnCompleteCommit, TxnCompleteAbort},
	TxnPrepareCommit:     {TxnOngoing},
	TxnPrepareAbort:      {TxnOngoing, TxnPrepareEpochFence, TxnEmpty, TxnCompleteCommit, TxnCompleteAbort},
	TxnCompleteCommit:    {TxnPrepareCommit},
	TxnCompleteAbort:     {TxnPrepareAbort},
	TxnDead:              {TxnEmpty, TxnCompleteCommit, TxnCompleteAbort},
	TxnPrepareEpochFence: {TxnOngoing},
}

// CanFollow reports whether a transaction may move from prev to s
// (TransactionMetadata.prepareTransitionTo's check; an illegal move is a
// coordinator bug in Kafka, IllegalStateException).
func (s TxnState) CanFollow(prev TxnState) bool {
	return int(s) < len(legalPrev) && slices.Contains(legalPrev[s], prev)
}

// String returns Kafka's name, e.g. "CompleteCommit".
func (s TxnState) String() string {
	if int(s) < len(txnStateNames) {
		return txnStateNames[s]
	}
	return "TxnState(" + strconv.FormatInt(int64(s), 10) + ")"
}

// ParseTxnState returns the state with Kafka's name s.
func ParseTxnState(s string) (TxnState, bool) {
	for i, n := range txnStateNames {
		if n == s {
			return TxnState(i), true
		}
	}
	return 0, false
}
