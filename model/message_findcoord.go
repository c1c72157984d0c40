package model

import "strconv"

// Coordinator lookup (FindCoordinator, KIP-699's batched form with one
// key; apache/kafka
// clients/src/main/resources/common/message/FindCoordinatorRequest.json)
// and the errors a coordinator that moved answers with
// (core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala,
// getAndMaybeAddTransactionState: COORDINATOR_LOAD_IN_PROGRESS while the
// partition loads, NOT_COORDINATOR when the broker does not lead it).
const (
	ErrCoordinatorLoadInProgress ErrCode = 14
	ErrNotCoordinator            ErrCode = 16
)

// CoordKeyType is FindCoordinator's key type
// (FindCoordinatorRequest.CoordinatorType).
type CoordKeyType int8

// The key types.
const (
	CoordKeyGroup       CoordKeyType = 0
	CoordKeyTransaction CoordKeyType = 1
)

// CoordSelf is the coordinator node a FindCoordinator answer names when
// the coordinator is on no broker (a world without replication: the node
// c1 or g1 itself).
const CoordSelf int32 = -1

// CoordTag returns the [InitProducerIDRequest.Coord]-style tag for a
// FindCoordinator answer's node: 1 + the broker index, 0 for [CoordSelf].
func CoordTag(node int32) int32 { return node + 1 }

// FindCoordinatorRequest asks a broker which node coordinates Key.
type FindCoordinatorRequest struct {
	CorrelationID int64
	KeyType       CoordKeyType
	Key           string
}

// AppendDescription appends "FindCoordinator#3 txn=t1" or
// "FindCoordinator#3 group=app-0".
func (r *FindCoordinatorRequest) AppendDescription(b []byte) []byte {
	b = append(b, "FindCoordinator#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	return appendCoordKey(b, r.KeyType, r.Key)
}

func appendCoordKey(b []byte, t CoordKeyType, key string) []byte {
	if t == CoordKeyGroup {
		b = append(b, " group="...)
	} else {
		b = append(b, " txn="...)
	}
	return append(b, key...)
}

// FindCoordinatorResponse names the coordinator: Node is the hosting
// broker's index, or [CoordSelf].
type FindCoordinatorResponse struct {
	CorrelationID int64
	KeyType       CoordKeyType
	Key           string
	Err           ErrCode
	Node          int32
}

// AppendDescription appends "FindCoordinatorResp#3 txn=t1 NONE
// coordinator=b2" (c1 or g1 for [CoordSelf]).
func (r *FindCoordinatorResponse) AppendDescription(b []byte) []byte {
	b = append(b, "FindCoordinatorResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = appendCoordKey(b, r.KeyType, r.Key)
	b = append(b, ' ')
	b = append(b, r.Err.String()...)
	if r.Err != ErrNone {
		return b
	}
	b = append(b, " coordinator="...)
	switch {
	case r.Node >= 0:
		b = append(b, 'b')
		b = strconv.AppendInt(b, int64(r.Node)+1, 10)
	case r.KeyType == CoordKeyGroup:
		b = append(b, "g1"...)
	default:
		b = append(b, "c1"...)
	}
	return b
}
