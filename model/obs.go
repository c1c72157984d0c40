package model

import "github.com/idemsim/idemsim/sim"

// ObsKind is the kind of an [Obs].
type ObsKind uint8

// Observation kinds. Which [Obs] fields are set depends on the kind; Node
// is always the node the observation is about (-1 for the world itself).
const (
	// ObsRunStart: the run starts. Text is the run's header line.
	ObsRunStart ObsKind = iota
	// ObsRunEnd: the run ended at At. Text is the loop's stop reason
	// ("drained", "time-limit", ...), N the records still unresolved,
	// Abandoned the records crashes abandoned and nothing resolved since,
	// Until the fault plan's end.
	ObsRunEnd
	// ObsStart: producer instance Node of application App starts.
	ObsStart
	// ObsActive: producer instance Node became its application's live
	// instance (it got a producer id, or started without idempotence);
	// earlier instances of App are zombies from now on.
	ObsActive
	// ObsTakeover: instance Node takes over application App's stream.
	ObsTakeover
	// ObsAppSend: application App hands Record to instance Node.
	ObsAppSend
	// ObsAppResend: application App hands Record to instance Node again
	// (a takeover or restart resend). Flag: the trace line names the
	// record's partition.
	ObsAppResend
	// ObsAppIdle: application App goes idle for Dur after Node's send.
	ObsAppIdle
	// ObsOutcome: instance Node reports Outcome to application App.
	ObsOutcome
	// ObsNote: Node notes Text (a producer's state change, with NoteKind;
	// or a world line such as a pause ignored).
	ObsNote
	// ObsSent: Node sends Msg to Peer on connection generation ConnGen,
	// as request or response (Flag: a response), request number N on its
	// link. Fate is "" when it is on the wire, else why it never
	// left; Forced: a planned drop. Dur is a reorder hold (datagrams).
	ObsSent
	// ObsDup: the network duplicated Msg from Node to Peer; the copy
	// arrives at Until.
	ObsDup
	// ObsDelivered: Msg arrived at Node from Peer.
	ObsDelivered
	// ObsLost: Msg was lost on the wire on its way to Node; Fate says why.
	// Flag: Node was down (crashed), rather than the network losing it.
	ObsLost
	// ObsVerdict: broker Node's verdict on Batch from client Peer, request
	// N on that link: Result. A duplicate carries the log entry it
	// matched in Orig (OrigFound false when the log holds nothing there).
	// Random: a transient error drawn from broker.transient_error; Flag:
	// the request held several batches.
	ObsVerdict
	// ObsMarker: broker Node appended (Err == ErrNone) or refused a
	// Marker for PID at Epoch on Partition.
	ObsMarker
	// ObsEpoch: coordinator Node answered InitProducerId: Err, and when
	// ErrNone PID and Epoch were handed out. Text is the reason, if any.
	ObsEpoch
	// ObsTxnOp: coordinator Node answered a transaction request: Text
	// ("add-partitions-to-txn t1") and Err; for EndTxn also the PID and
	// Epoch of its answer (NoProducerID when it has none).
	ObsTxnOp
	// ObsTxnTimeouts: coordinator Node aborts the transactions that timed
	// out by the check at Until.
	ObsTxnTimeouts
	// ObsExpired: broker Node expired PID's state on Partition at the
	// check at Until.
	ObsExpired
	// ObsStateCheck: broker Node restarted Partition (or, replicating,
	// truncated it; Flag: checks it at the end of the run); Text is the
	// difference between its producer state and a replay of its log
	// ("" when they agree).
	ObsStateCheck
	// ObsFault: fault-plan action N (Text) takes effect.
	ObsFault
	// ObsHold: Node holds an event (Text) while paused or crashed (Fate).
	ObsHold
	// ObsResume: Node resumes with N held events.
	ObsResume
	// ObsCrash: Node crashed. For a producer instance, N records it had
	// not resolved are abandoned.
	ObsCrash
	// ObsRestart: Node restarts.
	ObsRestart
	// ObsPlanEnd: the fault plan ended: faults off, network healed.
	ObsPlanEnd
	// ObsDisconnected: Node learns that its connection to Peer, generation
	// ConnGen, broke.
	ObsDisconnected
	// ObsMetadataFlap: the topic's metadata flaps.
	ObsMetadataFlap
	// ObsOffsets: group coordinator Node handled offsets of Group: Text
	// is "txn-offset-commit" (from Peer, PID at Epoch, offset N, answer
	// Err), "offsets committed" or "offsets aborted" (a marker for PID
	// made offset N committed or dropped it), "input offsets committed"
	// or "input offsets aborted" (the same for input Partition's offset
	// N, of a per-partition commit), or "offset-fetch" (from member
	// Peer, answer Err, offset N; -1 for a consumer's require_stable
	// fetch). The markers' lines have no Peer (-1).
	ObsOffsets
	// ObsAppResume: exactly-once application App resumes its input at
	// offset N through instance Node (the committed offset, or 0).
	ObsAppResume
	// ObsTxnOutcome: instance Node tells application App that a
	// transaction ended: committed (Flag), aborted, or failed with the
	// instance's fatal error (Text is "committed", "aborted" or
	// "failed"); Err is why it did not commit. IDs are its records whose
	// produce was acknowledged (each had its own ObsOutcome then), N
	// their number. Txn is the transaction's ordinal on the instance
	// ([Batch.Txn]).
	ObsTxnOutcome
	// ObsTxnState: coordinator Node installed a transaction state for
	// transactional id Text (a transition completed: Kafka's
	// completeTransitionTo): PID at Epoch, state N (a [TxnState]), the
	// transaction's partitions Parts (increasing; empty in Empty and
	// Complete*). Flag: the state was reloaded from __transaction_state
	// after a restart rather than reached by a request.
	ObsTxnState
	// ObsFinalLog: at the end of a replicated run, Partition's committed
	// log: Log holds the entries of its final leader, broker Node (-1: the
	// partition has no leader), below that replica's high watermark
	// Result.LastOffset. INV-LOSS judges acknowledged records against it.
	ObsFinalLog
	// ObsConsumerFetch: consumer Node's fetch of Partition from offset N
	// was answered: the leader's last stable offset Result.FirstOffset
	// and high watermark Result.LastOffset; Flag: read_committed.
	ObsConsumerFetch
	// ObsPoll: consumer Node's poll returned N records of Partition
	// (IDs, and Log the entries they came from, trimmed to them) and
	// moved its position from Result.FirstOffset to Result.LastOffset;
	// Flag: read_committed.
	ObsPoll
	// ObsConsumerReset: consumer Node set Partition's position to N (-1:
	// it has none now, until a reset gives one) from Result.FirstOffset
	// (-1: none); Text says why ("committed", "earliest", "latest", "out
	// of range", ...).
	ObsConsumerReset
	// ObsLogStart: broker Node moved Partition's log start offset from
	// Result.FirstOffset to N; Text is the cause ("retention.ms",
	// "retention.bytes", "delete-records", "leader's log start"), or,
	// with Err set, why a DeleteRecords was refused (nothing moved).
	ObsLogStart
	// ObsAdmin: admin node Node reports an answer or a step of an
	// operator command (model/admin): Text is the line ("describe-producers
	// p0: NONE, 1 active: pid 1 epoch 0 coordinator-epoch 0 last-seq 8
	// txn-start 8", "abort p0 pid 1 epoch 0: NONE"), built for this rare
	// event; Partition the partition it is about (-1: none), Err the
	// answer's error.
	ObsAdmin
)

// Obs is one typed observation: something a node or the network did. The
// world emits every observation into one stream in the order things
// happen; the trace, the explain log, the counters and the invariant
// checkers each read that stream and nothing else.
//
// An Obs is a plain value. Building one allocates nothing: Msg, Batch and
// Record refer to values that already exist (the message on the wire, the
// batch in the log), and Text is either a constant or built only for rare
// events (faults, notes).
type Obs struct {
	Kind ObsKind
	At   sim.Time
	// Node is the node observed, Peer the other end of a message (node
	// ids index the world's name table; -1 for none).
	Node, Peer int32
	// App is the application, for producer-side kinds.
	App int32
	// Partition, PID, Epoch and Marker describe broker and coordinator
	// observations.
	Partition int32
	PID       ProducerID
	Epoch     int16
	Marker    MarkerType
	Err       ErrCode
	NoteKind  NoteKind
	// Flag and Forced and Random are kind-specific switches (see the kind).
	Flag, Forced, Random bool
	// OrigFound: Orig holds the matched log entry of a duplicate.
	OrigFound bool
	// N is a count, a request number or an action index.
	N int64
	// Abandoned counts abandoned records (ObsRunEnd).
	Abandoned int64
	// ConnGen is a connection's generation (ObsSent, ObsDisconnected).
	ConnGen uint32
	// MsgID numbers a message put on the wire (ObsSent when it left,
	// ObsDelivered, ObsLost), so readers can pair a send with its arrival;
	// 0 for a message that never left.
	MsgID uint64
	// Dur is a duration; Until a time (see the kind).
	Dur   sim.Time
	Until sim.Time
	// Fate is why a message was lost, or "".
	Fate string
	Text string
	// Group is a consumer group id (ObsOffsets).
	Group   string
	Msg     Message
	Record  Record
	Outcome Outcome
	Batch   Batch
	Result  AppendResult
	Orig    LogEntry
	// IDs are record ids (ObsTxnOutcome).
	IDs []RecordID
	// Txn is a producer instance's transaction ordinal (ObsTxnOutcome).
	Txn int32
	// Parts are partitions (ObsTxnState).
	Parts []int32
	// Log is a partition's final committed log (ObsFinalLog).
	Log []LogEntry
}

// Observer reads the observation stream. Observe must not keep o past the
// call (copy what it needs).
type Observer interface {
	Observe(o *Obs)
}
