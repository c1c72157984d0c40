package model

import "github.com/idemsim/idemsim/sim"

// DestCoordinator is the destination of requests to the transaction
// coordinator (InitProducerId). Brokers are destinations 0, 1, ...
const DestCoordinator int32 = -1

// OutKind is the kind of an effect a node (a producer or a [Server]) asks
// its world to carry out.
type OutKind uint8

// Effects.
const (
	// OutSend: send Msg to Dest on the node's current connection to it.
	OutSend OutKind = iota
	// OutConnect: open a new connection to Dest.
	OutConnect
	// OutClose: close the connection to Dest; what is on it is lost.
	OutClose
	// OutWake: call the node's Wake at At with token Timer.
	OutWake
	// OutResult: report a record's outcome to the application.
	OutResult
	// OutNote: a state change worth a trace line (Note).
	OutNote
	// OutReply: a server answers the request from Peer with Msg.
	OutReply
	// OutObserve: a server reports an observation (Obs); the world stamps
	// its time and node.
	OutObserve
	// OutTxnResult: report a transaction's end to the application (Txn).
	OutTxnResult
	// OutStop: a broker in controlled shutdown may stop now (the
	// controller answered shouldShutDown, or its shutdown timed out); the
	// world stops it cleanly and restarts it clean at At.
	OutStop
)

// Out is one effect: what a node's call returns, one value per thing the
// world is to do.
type Out struct {
	Kind  OutKind
	Dest  int32
	Msg   Message
	At    sim.Time
	Timer uint64
	// Owed marks an OutWake that stands for work the node owes others
	// (markers still to write, a log write under way): it keeps a run
	// alive, where a housekeeping wake-up (an expiry check, a heartbeat)
	// does not.
	Owed bool
	// Result is set for OutResult. It points into the node's buffer,
	// valid as long as the effect is (see Obs).
	Result *Outcome
	// Note is set for OutNote; NoteKind classifies it. A NoteExpired
	// note has no text but its Batch: its text is ExpiredNote's, made
	// only when a trace line is (no allocation per expired batch).
	Note     string
	NoteKind NoteKind
	// Batch is set for a NoteExpired note: the expired batch (valid until
	// the node's next call, as the effects are).
	Batch *Batch
	// Peer is set for OutReply.
	Peer Peer
	// Obs is set for OutObserve. It points into the node's buffer and is
	// valid until the node's next call: copy it, or hold the call's
	// effects ([EffectHolder]), to keep it.
	Obs *Obs
	// Txn is set for OutTxnResult, valid as Result is.
	Txn *TxnResult
}

// TxnResult is what the application learns when one of its transactions
// ends: its commitTransaction returned, or the transaction is over
// without a commit (its abortTransaction returned, or the instance failed
// for good). Its records learned their own outcomes earlier, at their
// produce acknowledgements, as send() futures complete in Kafka
// (ProducerBatch.complete from Sender.completeBatch).
type TxnResult struct {
	// Committed is true when the transaction committed. Failed is true
	// when it ended with the instance's fatal error rather than an abort.
	Committed, Failed bool
	// Err is why a transaction did not commit: the error that made the
	// application abort it, or the fatal error that stopped the instance.
	// ErrNone when it committed.
	Err ErrCode
	// Records are the transaction's records whose produce was
	// acknowledged, in acknowledgement order. The slice is the
	// producer's and valid until its next call.
	Records []RecordID
	// Txn is the transaction's ordinal on this instance (1, 2, ...), as
	// stamped on its batches ([Batch.Txn]).
	Txn int32
	// Dropped are the records the application sent while an exactly-once
	// application's transaction was being aborted: they were never sent,
	// and the application consumes its input again from its committed
	// position after the abort, as a consume-transform-produce loop seeks
	// its consumer back after abortTransaction. The slice is the
	// producer's and valid until its next call.
	Dropped []RecordID
}

// NoteKind classifies a producer's notable state changes.
type NoteKind uint8

// Note kinds.
const (
	NoteInfo NoteKind = iota
	NotePID
	NoteEpochBump
	NoteFatal
	NoteRetry
	NoteExpired
)

// Outcome is what the application learns about one record.
type Outcome struct {
	ID        RecordID
	Partition int32
	// Err is ErrNone when the record was acknowledged.
	Err ErrCode
	// Offset is the acknowledged offset, or -1 (failed, or a
	// DUPLICATE_SEQUENCE_NUMBER success whose offset is unknown).
	Offset int64
	// SentAt and At are the application's send time and the outcome time.
	SentAt, At sim.Time
	// Digest is the payload digest that was sent.
	Digest uint64
	// Txn marks a record sent in a transaction: an acknowledgement is its
	// produce acknowledgement, and whether the record is committed is its
	// transaction's outcome ([TxnResult]).
	Txn bool
}

// ExpiredNote appends the text of the note that reports batch b expired
// to dst: "batch <b> expired after delivery.timeout.ms".
func ExpiredNote(dst []byte, b *Batch) []byte {
	dst = append(dst, "batch "...)
	dst = b.AppendDescription(dst)
	return append(dst, " expired after delivery.timeout.ms"...)
}
