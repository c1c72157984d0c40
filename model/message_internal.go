package model

import "strconv"

// Messages between servers. Kafka sends these between brokers: a partition
// leader verifies a transactional batch with the transaction coordinator
// (AddPartitionsToTxn v4+ with verifyOnly, KIP-890 part 1), and the
// coordinator has the leaders write transaction markers (WriteTxnMarkers).
// They travel the simulated network like a client's requests, on a
// connection the sending server opens to the other (its NetworkClient):
// they take latency, can be lost, cut off by a partition or by a crash,
// and the sender times them out and retries. A broken connection is told
// to the sender as a [Disconnected] message.

// VerifyPartitionsRequest asks the coordinator whether each partition is
// in the producer's ongoing transaction.
type VerifyPartitionsRequest struct {
	// CorrelationID pairs the answer with the request (the broker's
	// parked produce request).
	CorrelationID   int64
	TransactionalID string
	PID             ProducerID
	Epoch           int16
	Partitions      []int32
	// Add: the leader adds the partitions to the transaction on the
	// producer's behalf (transaction version 2, KIP-890 part 2: Produce
	// v12, AddPartitionsToTxn sent by the broker and not verify-only)
	// instead of only verifying them.
	Add bool
}

// AppendDescription appends "VerifyPartitions txn=t1 pid=42 e=0 [p0]", or
// "AddPartitions ..." for an implicit add.
func (r *VerifyPartitionsRequest) AppendDescription(b []byte) []byte {
	if r.Add {
		b = append(b, "AddPartitions txn="...)
	} else {
		b = append(b, "VerifyPartitions txn="...)
	}
	b = append(b, r.TransactionalID...)
	b = append(b, " pid="...)
	b = strconv.AppendInt(b, int64(r.PID), 10)
	b = append(b, " e="...)
	b = strconv.AppendInt(b, int64(r.Epoch), 10)
	return appendPartitions(b, r.Partitions)
}

// VerifyPartitionsResponse answers a [VerifyPartitionsRequest]: one error
// per partition, in request order (ErrNone: verified).
type VerifyPartitionsResponse struct {
	// CorrelationID is the request's.
	CorrelationID int64
	Partitions    []int32
	Errs          []ErrCode
}

// AppendDescription appends "VerifyPartitionsResp [p0 NONE]".
func (r *VerifyPartitionsResponse) AppendDescription(b []byte) []byte {
	b = append(b, "VerifyPartitionsResp ["...)
	for i, p := range r.Partitions {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, 'p')
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, ' ')
		b = append(b, r.Errs[i].String()...)
	}
	return append(b, ']')
}

// WriteTxnMarkersRequest asks a partition leader to write transaction
// markers, all for one transactional id.
type WriteTxnMarkersRequest struct {
	// CorrelationID pairs the answer with the request.
	CorrelationID   int64
	TransactionalID string
	Markers         []TxnMarker
}

// AppendDescription appends "WriteTxnMarkers txn=t1 n=2".
func (r *WriteTxnMarkersRequest) AppendDescription(b []byte) []byte {
	if r.TransactionalID == "" { // the admin's abort (message_admin.go)
		b = append(b, "WriteTxnMarkers admin n="...)
		return strconv.AppendInt(b, int64(len(r.Markers)), 10)
	}
	b = append(b, "WriteTxnMarkers txn="...)
	b = append(b, r.TransactionalID...)
	b = append(b, " n="...)
	return strconv.AppendInt(b, int64(len(r.Markers)), 10)
}

// WriteTxnMarkersResponse answers a [WriteTxnMarkersRequest]: one error per
// marker, in request order.
type WriteTxnMarkersResponse struct {
	CorrelationID   int64
	TransactionalID string
	Errs            []ErrCode
}

// AppendDescription appends "WriteTxnMarkersResp txn=t1".
func (r *WriteTxnMarkersResponse) AppendDescription(b []byte) []byte {
	if r.TransactionalID == "" {
		b = append(b, "WriteTxnMarkersResp admin ["...)
		for i, e := range r.Errs {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, e.String()...)
		}
		return append(b, ']')
	}
	b = append(b, "WriteTxnMarkersResp txn="...)
	return append(b, r.TransactionalID...)
}

func appendPartitions(b []byte, parts []int32) []byte {
	b = append(b, " ["...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, 'p')
		b = strconv.AppendInt(b, int64(p), 10)
	}
	return append(b, ']')
}

// Disconnected tells a server that its connection to another server,
// destination Dest (a broker index, [DestCoordinator] or
// [DestGroupCoordinator]), broke: Kafka's NetworkClient fails every
// request in flight on it at once (ClientResponse.wasDisconnected), and
// the next request opens a new connection. The world hands it to the
// server when the break reaches it (a reset, one latency after a loss or
// a crash of the other end; never across a partition, which the sender
// only learns of by its request timeout). It never travels the network.
type Disconnected struct {
	Dest int32
}

// AppendDescription appends "Disconnected dest=0".
func (d *Disconnected) AppendDescription(b []byte) []byte {
	b = append(b, "Disconnected dest="...)
	return strconv.AppendInt(b, int64(d.Dest), 10)
}

// TxnMarker is one WriteTxnMarkers entry the coordinator asks the caller to
// deliver to a partition leader (storage.Partition.AppendMarker).
type TxnMarker struct {
	TransactionalID  string
	Partition        int32
	PID              ProducerID
	Epoch            int16
	CoordinatorEpoch int32
	Marker           MarkerType
}
