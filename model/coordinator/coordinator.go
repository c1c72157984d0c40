package coordinator

import (
	"slices"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// DefaultNextPID is the first producer id a [Coordinator] hands out unless
// configured otherwise. Kafka only promises uniqueness (blocks of 1000 per
// broker, ProducerIdManager); idemsim uses a strictly increasing counter.
const DefaultNextPID model.ProducerID = 1000

// Kafka's defaults for the coordinator's timeouts.
const (
	// DefaultTransactionTimeout is the client's transaction.timeout.ms
	// default, 60000 ms, used when a request carries 0.
	DefaultTransactionTimeout = 60 * time.Second
	// DefaultTransactionMaxTimeout is transaction.max.timeout.ms, 900000 ms.
	DefaultTransactionMaxTimeout = 15 * time.Minute
)

// CoordinatorConfig holds a transaction coordinator's settings. The zero
// value is Kafka's behaviour (classic transactions).
type CoordinatorConfig struct {
	// NextPID is the first producer id handed out; each new id is the
	// previous plus 1. 0 means [DefaultNextPID].
	NextPID model.ProducerID
	// EpochBits is the producer epoch width in bits, 2..16; 0 means Kafka's
	// 16 (int16). The largest epoch is 2^(EpochBits-1)-1 (Kafka: 32767) and
	// an epoch counts as exhausted one below that (32766,
	// TransactionMetadata.isEpochExhausted). Narrower widths are a what-if
	// knob that makes pid rotation reachable in short runs.
	EpochBits uint8
	// TransactionVersion is Kafka's transaction.version feature: 0 or 1 for
	// classic transactions (EndTxn keeps the epoch), 2 for KIP-890 part 2
	// (every EndTxn bumps the epoch and the markers carry the new one).
	TransactionVersion int
	// CoordinatorEpoch is the coordinator epoch stamped on every marker
	// (the epoch of the __transaction_state partition leader), >= 0. Each
	// restart reloads the log as a new leader and bumps it by one
	// (TransactionCoordinator.onElection, l.451).
	CoordinatorEpoch int32
	// TransactionalIDExpiration is transactional.id.expiration.ms (Kafka
	// default 604800000 ms, 7 days): an id idle this long in Empty or
	// Complete* is removed (TransactionStateManager.shouldExpire). 0 means
	// the default.
	TransactionalIDExpiration time.Duration
	// ExpirationCheckInterval is
	// transaction.remove.expired.transaction.cleanup.interval.ms (Kafka
	// default 3600000 ms). 0 means the default.
	ExpirationCheckInterval time.Duration
	// MarkerRequestTimeout is the broker's request.timeout.ms for
	// WriteTxnMarkers (Kafka default 30000 ms): a request unanswered this
	// long is sent again (TransactionMarkerChannelManager, l.83-100).
	// 0 means the default.
	MarkerRequestTimeout time.Duration
	// LogAppendTime is how long a write to __transaction_state takes to
	// be replicated (acks=-1; TransactionStateManager.appendTransactionToLog):
	// meanwhile the transition is pending (TransactionMetadata.pendingState),
	// the request waits for its answer, and other requests of the
	// transactional id get CONCURRENT_TRANSACTIONS. A crash before the write
	// completes loses it. 0 makes every write one step, a simplification.
	LogAppendTime time.Duration
	// MarkerRetryBackoff is the wait before markers refused with a
	// retriable error are sent again, to the partition's current leader
	// (TransactionMarkerRequestCompletionHandler.onComplete; Kafka's marker
	// channel re-queues them for its next send loop,
	// with a 50 ms reconnect backoff). 0 means 50 ms.
	MarkerRetryBackoff time.Duration
	// TransactionMaxTimeout is transaction.max.timeout.ms; a longer
	// requested timeout is INVALID_TRANSACTION_TIMEOUT. 0 means
	// [DefaultTransactionMaxTimeout].
	TransactionMaxTimeout time.Duration

	// Leaders gives the leader broker index of every partition, where the
	// coordinator sends WriteTxnMarkers; nil means broker 0 leads all.
	Leaders []int32
	// TimeoutCheckInterval is
	// transaction.abort.timed.out.transaction.cleanup.interval.ms (Kafka
	// default 10000 ms): the coordinator aborts timed-out transactions at
	// every multiple of it. 0 turns the check off.
	TimeoutCheckInterval time.Duration

	// BugNoRotate (what-if, -bug Z10): at an exhausted epoch the
	// coordinator keeps the producer id and bumps the epoch anyway, which
	// runs past MaxEpoch and wraps negative.
	BugNoRotate bool
	// BugNoBumpOnTimeout (defect KAFKA-6119, -bug Z05b): a transaction
	// timeout aborts without bumping the epoch, so the producer is not
	// fenced and carries on.
	BugNoBumpOnTimeout bool
	// PreReleaseEndTxnV2 answers transaction version 2's EndTxn as the
	// 4.0.0-SNAPSHOT of 2024-10-25 (apache/kafka@1eb7644349cb) did, before
	// KAFKA-18464 (fixed in 4.0.0): in Prepare* and Complete* only a retry
	// is accepted, and the current epoch with no transaction open is
	// PRODUCER_FENCED (INVALID_TXN_STATE in Empty), so a producer cannot
	// abort a transaction the coordinator never saw. No release shipped
	// it: the command never sets it; conformance vectors read from that
	// snapshot run with it (model/conformance_test.go).
	PreReleaseEndTxnV2 bool
	// Version is the coordinator's Kafka release as major*100+minor (4.0
	// is 400); 0 means the newest release modelled. It gates what the
	// releases did differently (docs/versions.md).
	Version int
}

// MaxEpoch returns the largest producer epoch, 2^(EpochBits-1)-1
// (Kafka: Short.MAX_VALUE = 32767).
func (c CoordinatorConfig) MaxEpoch() int16 {
	b := c.EpochBits
	if b == 0 || b > 16 {
		b = 16
	}
	if b < 2 {
		b = 2
	}
	return int16(int32(1)<<(b-1) - 1)
}

// EpochExhausted reports whether e can no longer be bumped for a client:
// e >= MaxEpoch-1 (TransactionMetadata.isEpochExhausted). MaxEpoch itself
// is reserved for the one-off fence of an ongoing transaction.
func (c CoordinatorConfig) EpochExhausted(e int16) bool { return e >= c.MaxEpoch()-1 }

// doubleFenceBump reports whether a fence (InitProducerId on an ongoing
// transaction, or its timeout) bumps the epoch twice under transaction
// version 2, as Kafka 4.0 does: prepareFenceProducerEpoch moves it to
// e+1, and endTransaction's transaction version 2 completion,
// prepareAbortOrCommit, to e+2, so the producer's own abort at e is
// neither current nor a retry and is fenced (KAFKA-19367, fixed in 4.1;
// TransactionCoordinator.endTransaction, 4.0 line).
func (c CoordinatorConfig) doubleFenceBump() bool {
	return c.TransactionVersion >= 2 && c.Version >= 400 && c.Version < 401
}

func (c CoordinatorConfig) maxTimeout() time.Duration {
	if c.TransactionMaxTimeout <= 0 {
		return DefaultTransactionMaxTimeout
	}
	return c.TransactionMaxTimeout
}

// TxnMetadata is the coordinator's record for one transactional id
// (Kafka's TransactionMetadata).
type TxnMetadata struct {
	TransactionalID string
	ProducerID      model.ProducerID
	// PrevProducerID is the pid before the last rotation (epoch
	// exhaustion), or NoProducerID; it lets a retry across the rotation be
	// recognised (TransactionCoordinator.handleInitProducerId).
	PrevProducerID model.ProducerID
	// ProducerEpoch is the current epoch; NoEpoch right after creation.
	ProducerEpoch int16
	// LastProducerEpoch is the epoch before the last KIP-360 bump (or the
	// last TV2 EndTxn bump), or NoEpoch; a retry carrying it is answered
	// with the current epoch.
	LastProducerEpoch int16
	State             model.TxnState
	// Partitions are the partitions in the open transaction, increasing.
	Partitions []int32
	// TxnTimeout is the transaction's transaction.timeout.ms.
	TxnTimeout time.Duration
	// TxnStartTime is when the transaction became Ongoing.
	TxnStartTime sim.Time
	// LastUpdate is the time of the last state change.
	LastUpdate sim.Time
	// NextProducerID, when Rotating, is the producer id a transaction
	// version 2 EndTxn at an exhausted epoch allocated: the transaction
	// completes under it at epoch 0 (TransactionMetadata.nextProducerId,
	// prepareComplete). Kept in memory only, as in Kafka
	// (TransactionLog.valueToBytes writes no next producer id): a reload
	// between Prepare* and Complete* loses the rotation.
	NextProducerID model.ProducerID
	Rotating       bool
}

func (m *TxnMetadata) clone() TxnMetadata {
	c := *m
	c.Partitions = slices.Clone(m.Partitions)
	return c
}

// InitProducerIDCall is the content of an InitProducerId request (v3+,
// KIP-360) as the coordinator sees it; the wire message is
// [model.InitProducerIDRequest].
type InitProducerIDCall struct {
	// TransactionalID is transactional.id; nil for an idempotent-only
	// producer. An empty string is INVALID_REQUEST.
	TransactionalID *string
	// TransactionTimeout is transaction.timeout.ms; 0 means
	// [DefaultTransactionTimeout].
	TransactionTimeout time.Duration
	// ProducerID and ProducerEpoch are the KIP-360 current pair, or
	// NoProducerID and NoEpoch when absent. Setting only one is
	// INVALID_REQUEST.
	ProducerID    model.ProducerID
	ProducerEpoch int16
}

// InitProducerIDResult is the response, plus the markers of a fence.
type InitProducerIDResult struct {
	Err        model.ErrCode
	ProducerID model.ProducerID
	Epoch      int16
	// Markers are the ABORT markers (with the bumped epoch) of an ongoing
	// transaction that this request fenced
	// (TransactionMetadata.prepareFenceProducerEpoch); the caller delivers
	// them and then calls [Coordinator.MarkersWritten]. In partition order.
	Markers []model.TxnMarker
	Reason  string
}

// EndTxnCall is the content of an EndTxn request as the coordinator sees
// it; the wire message is [model.EndTxnRequest].
type EndTxnCall struct {
	TransactionalID string
	ProducerID      model.ProducerID
	ProducerEpoch   int16
	// Commit is true for COMMIT, false for ABORT.
	Commit bool
	// Version is the EndTxn request version: 5 and above ask for
	// transaction version 2 rules (KafkaApis.handleEndTxnRequest, l.2325;
	// KIP-890 part 2), which apply only when the coordinator's
	// TransactionVersion is 2. 0 means the newest version the coordinator
	// supports.
	Version int16
}

// EndTxnResult is the response (EndTxn v5 carries pid and epoch), plus the
// markers to write.
type EndTxnResult struct {
	Err        model.ErrCode
	ProducerID model.ProducerID
	Epoch      int16
	// Markers are the COMMIT or ABORT markers for every partition of the
	// transaction, when this request started completing it; in partition
	// order. The caller delivers them and then calls
	// [Coordinator.MarkersWritten].
	Markers []model.TxnMarker
	Reason  string
}

// Coordinator is a transaction coordinator (Kafka's TransactionCoordinator
// with its TransactionStateManager), as a pure state machine: requests go
// in, responses and marker-write requests come out as values. Writes to
// __transaction_state are instantaneous; marker delivery is the caller's.
type Coordinator struct {
	cfg     CoordinatorConfig
	nextPID model.ProducerID
	// epoch is the coordinator epoch of the loaded __transaction_state
	// (cfg.CoordinatorEpoch plus one per reload).
	epoch int32
	// log is __transaction_state; it survives a crash.
	log txnLog
	// down: crashed, its memory lost until Restart reloads the log.
	down bool
	// pending holds, per transactional id with a transition being written
	// (CoordinatorConfig.LogAppendTime), the number of that write (>= 1):
	// Kafka's TransactionMetadata.pendingState. At most one transition of
	// an id is pending; its requests are refused meanwhile, and the
	// timeout and expiration checks skip it (coordinator_node.go,
	// startWrite).
	pending map[string]uint64
	// txns maps transactional.id to its metadata. Iterated only through
	// sorted keys.
	txns map[string]*TxnMetadata
	node coordinatorNode
	// hosting is the broker it is on, in a replicated run (hosting.go);
	// it survives a crash (the world moves it).
	hosting Hosting
}

// NewCoordinator returns a coordinator with no transactional ids.
func NewCoordinator(cfg CoordinatorConfig) *Coordinator {
	c := &Coordinator{}
	c.Reset(cfg)
	return c
}

// Reset makes c a new coordinator with settings cfg: afterwards it
// behaves exactly as NewCoordinator(cfg) would, and equals it field by
// field, while keeping the memory of its maps, its copy of the leaders,
// and its effect and observation buffers. Nothing of its previous run
// stays reachable from it: the transactions' metadata, the log of
// __transaction_state (which [Coordinator.TxnLog] hands out) and the
// node's marker jobs and requests are dropped, not reused. Reset of the
// zero Coordinator is NewCoordinator.
func (c *Coordinator) Reset(cfg CoordinatorConfig) {
	n := cfg.NextPID
	if n == 0 {
		n = DefaultNextPID
	}
	// The coordinator's metadata cache: MetadataUpdate moves leaders, so
	// it is a copy (into the previous copy's array: copy allows cfg's to
	// be that array).
	if own := c.cfg.Leaders; cfg.Leaders != nil && own != nil && cap(own) >= len(cfg.Leaders) {
		own = own[:len(cfg.Leaders)]
		copy(own, cfg.Leaders)
		cfg.Leaders = own
	} else {
		cfg.Leaders = slices.Clone(cfg.Leaders)
	}
	*c = Coordinator{cfg: cfg, nextPID: n, epoch: cfg.CoordinatorEpoch, txns: model.ClearedMap(c.txns), node: c.node, log: c.log.spareOf()}
	c.node.reset()
}

// Config returns the coordinator's settings.
func (c *Coordinator) Config() CoordinatorConfig { return c.cfg }

// Txn returns a copy of the metadata for a transactional id.
func (c *Coordinator) Txn(transactionalID string) (TxnMetadata, bool) {
	m := c.txns[transactionalID]
	if m == nil {
		return TxnMetadata{}, false
	}
	return m.clone(), true
}

// TransactionalIDs returns the known transactional ids, sorted.
func (c *Coordinator) TransactionalIDs() []string {
	ids := make([]string, 0, len(c.txns))
	for id := range c.txns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// SetTxn installs metadata directly, as if loaded from __transaction_state
// by a new coordinator; also a test fixture (e.g. to start near epoch
// exhaustion). Partitions are sorted and deduplicated.
func (c *Coordinator) SetTxn(m TxnMetadata) {
	cp := m.clone()
	slices.Sort(cp.Partitions)
	cp.Partitions = slices.Compact(cp.Partitions)
	c.txns[m.TransactionalID] = &cp
}

func (c *Coordinator) newPID() model.ProducerID {
	p := c.nextPID
	c.nextPID++
	return p
}

// InitProducerID handles InitProducerId (KIP-360;
// TransactionCoordinator.handleInitProducerId, TransactionMetadata
// prepareIncrementProducerEpoch / prepareProducerIdRotation /
// prepareFenceProducerEpoch):
//
//   - a half-set pair is INVALID_REQUEST; a nil id gets a new pid at epoch 0;
//     an empty id is INVALID_REQUEST; a timeout above
//     transaction.max.timeout.ms is INVALID_TRANSACTION_TIMEOUT;
//   - an unknown id gets metadata with a new pid at epoch -1 (so the
//     answer is epoch 0);
//   - a pair that belongs to neither the current pid, nor (with an
//     exhausted epoch) the previous pid, is PRODUCER_FENCED;
//   - Prepare*: CONCURRENT_TRANSACTIONS;
//   - Empty/Complete*: rotate to a new pid at epoch 0 if the epoch is
//     exhausted (and the pair, if any, carries the current epoch); else
//     bump (no pair, or pair at the current epoch); return the current
//     epoch for a retry carrying the last epoch; else PRODUCER_FENCED;
//   - Ongoing: fence (epoch+1), abort the transaction with ABORT markers at
//     that epoch (returned in Markers), answer CONCURRENT_TRANSACTIONS.
func (c *Coordinator) InitProducerID(now sim.Time, req InitProducerIDCall) InitProducerIDResult {
	fail := func(e model.ErrCode, why string) InitProducerIDResult {
		return InitProducerIDResult{Err: e, ProducerID: model.NoProducerID, Epoch: model.NoEpoch, Reason: why}
	}
	hasPID, hasEpoch := req.ProducerID != model.NoProducerID, req.ProducerEpoch != model.NoEpoch
	if hasPID != hasEpoch {
		return fail(model.ErrInvalidRequest, "only one of producerId/producerEpoch set")
	}
	if req.TransactionalID == nil {
		return InitProducerIDResult{ProducerID: c.newPID(), Epoch: 0, Reason: "idempotent producer"}
	}
	id := *req.TransactionalID
	if id == "" {
		return fail(model.ErrInvalidRequest, "empty transactional.id")
	}
	timeout := req.TransactionTimeout
	if timeout == 0 {
		timeout = DefaultTransactionTimeout
	}
	if timeout < 0 || timeout > c.cfg.maxTimeout() {
		return fail(model.ErrInvalidTransactionTimeout, "timeout above transaction.max.timeout.ms")
	}
	m := c.txns[id]
	if m == nil {
		m = &TxnMetadata{TransactionalID: id, ProducerID: c.newPID(), PrevProducerID: model.NoProducerID,
			ProducerEpoch: model.NoEpoch, LastProducerEpoch: model.NoEpoch, State: model.TxnEmpty, TxnTimeout: timeout, LastUpdate: now}
		c.txns[id] = m
	}
	if hasPID {
		valid := m.ProducerEpoch == model.NoEpoch || req.ProducerID == m.ProducerID ||
			(req.ProducerID == m.PrevProducerID && c.cfg.EpochExhausted(req.ProducerEpoch))
		if !valid {
			return fail(model.ErrProducerFenced, "pid/epoch pair does not belong to this transactional.id")
		}
	}
	switch m.State {
	case model.TxnPrepareCommit, model.TxnPrepareAbort:
		return fail(model.ErrConcurrentTransactions, "transaction completing")
	case model.TxnOngoing:
		mk := c.fenceAndAbort(now, m)
		r := fail(model.ErrConcurrentTransactions, "fenced and aborted ongoing transaction")
		r.Markers = mk
		return r
	}
	// Empty, CompleteCommit, CompleteAbort.
	cur := m.ProducerEpoch
	switch {
	case c.cfg.BugNoRotate && c.cfg.EpochExhausted(cur) && (!hasPID || req.ProducerEpoch == cur):
		next := int32(cur) + 1
		if next > int32(c.cfg.MaxEpoch()) {
			next = -int32(c.cfg.MaxEpoch()) - 1 // two's-complement wrap
		}
		m.ProducerEpoch = int16(next)
		m.LastProducerEpoch = model.NoEpoch
	case c.cfg.EpochExhausted(cur) && (!hasPID || req.ProducerEpoch == cur):
		m.PrevProducerID = m.ProducerID
		m.ProducerID = c.newPID()
		m.ProducerEpoch = 0
		m.LastProducerEpoch = model.NoEpoch
		if hasPID {
			m.LastProducerEpoch = cur
		}
	case !hasPID:
		m.ProducerEpoch = cur + 1
		m.LastProducerEpoch = model.NoEpoch
	case req.ProducerEpoch == cur || cur == model.NoEpoch:
		m.ProducerEpoch = cur + 1
		m.LastProducerEpoch = cur
	case req.ProducerEpoch == m.LastProducerEpoch:
		// The earlier bump succeeded but its response was lost.
		return InitProducerIDResult{ProducerID: m.ProducerID, Epoch: m.ProducerEpoch, Reason: "retry of an earlier bump"}
	default:
		return fail(model.ErrProducerFenced, "stale producer epoch")
	}
	m.State = model.TxnEmpty
	m.Partitions = nil
	m.TxnTimeout = timeout
	m.LastUpdate = now
	return InitProducerIDResult{ProducerID: m.ProducerID, Epoch: m.ProducerEpoch}
}

// fenceAndAbort bumps the epoch of an ongoing transaction by one (never
// past MaxEpoch) and moves it to PrepareAbort; it returns the ABORT
// markers carrying the bumped epoch
// (TransactionMetadata.prepareFenceProducerEpoch, then
// TransactionCoordinator.endTransaction with isFromClient false). A
// transaction with no partitions completes at once.
func (c *Coordinator) fenceAndAbort(now sim.Time, m *TxnMetadata) []model.TxnMarker {
	if m.ProducerEpoch < c.cfg.MaxEpoch() {
		m.ProducerEpoch++
	}
	m.LastProducerEpoch = model.NoEpoch
	if c.cfg.doubleFenceBump() && m.ProducerEpoch < c.cfg.MaxEpoch() {
		// Kafka 4.0: the abort that follows the fence is a transaction
		// version 2 completion, which bumps again (KAFKA-19367).
		m.LastProducerEpoch = m.ProducerEpoch
		m.ProducerEpoch++
	}
	m.State = model.TxnPrepareAbort
	m.LastUpdate = now
	return c.markers(m, m.ProducerID, m.ProducerEpoch, model.MarkerAbort)
}

func (c *Coordinator) markers(m *TxnMetadata, pid model.ProducerID, epoch int16, mt model.MarkerType) []model.TxnMarker {
	out := c.node.msgs.markers.Slice(len(m.Partitions))[:0] // kept until the markers are written
	for _, p := range m.Partitions {
		out = append(out, model.TxnMarker{TransactionalID: m.TransactionalID, Partition: p, PID: pid, Epoch: epoch,
			CoordinatorEpoch: c.epoch, Marker: mt})
	}
	return out
}

// cloneParts copies a transaction's partition list into the
// coordinator's pool (for an observation or a log record: never reused
// within the run).
func (c *Coordinator) cloneParts(ps []int32) []int32 { return cloneInto(&c.node.msgs.parts, ps) }

// AddPartitionsToTxn handles the classic AddPartitionsToTxn request
// (TransactionCoordinator.handleAddPartitionsToTransaction): unknown
// id or pid mismatch is INVALID_PRODUCER_ID_MAPPING, another epoch is
// PRODUCER_FENCED, Prepare* is CONCURRENT_TRANSACTIONS; otherwise the
// partitions join the transaction, which becomes Ongoing (starting its
// timeout clock if it was not).
func (c *Coordinator) AddPartitionsToTxn(now sim.Time, transactionalID string, pid model.ProducerID, epoch int16, partitions []int32) model.ErrCode {
	m, err := c.current(transactionalID, pid, epoch)
	if err != model.ErrNone {
		return err
	}
	if m.State != model.TxnOngoing {
		m.State = model.TxnOngoing
		m.Partitions = m.Partitions[:0]
		m.TxnStartTime = now
	}
	for _, p := range partitions {
		if i, found := slices.BinarySearch(m.Partitions, p); !found {
			m.Partitions = slices.Insert(m.Partitions, i, p)
		}
	}
	m.LastUpdate = now
	return model.ErrNone
}

// VerifyPartition answers a partition leader's KIP-890 part 1 verification
// (AddPartitionsToTxn v4 verify-only;
// TransactionCoordinator.handleVerifyPartitionsInTransaction,
// apache/kafka@1eb7644349cb
// core/src/main/scala/kafka/coordinator/transaction/TransactionCoordinator.scala
// l.345-392): INVALID_PRODUCER_ID_MAPPING for an unknown id or pid;
// PRODUCER_FENCED for another epoch; CONCURRENT_TRANSACTIONS while
// completing; ErrNone if partition is in the transaction, else
// TRANSACTION_ABORTABLE (l.376; in Empty and Complete* the transaction has
// no partitions). Pass the answer as storage.AppendOptions.Verification; the
// leader maps it for the client.
func (c *Coordinator) VerifyPartition(transactionalID string, pid model.ProducerID, epoch int16, partition int32) model.ErrCode {
	m, err := c.current(transactionalID, pid, epoch)
	if err != model.ErrNone {
		return err
	}
	if _, found := slices.BinarySearch(m.Partitions, partition); !found || m.State != model.TxnOngoing {
		return model.ErrTransactionAbortable
	}
	return model.ErrNone
}

// AddPartitionImplicitly handles the AddPartitionsToTxn a partition leader
// sends on a transaction version 2 producer's behalf for its first
// transactional batch on partition (KIP-890 part 2, Produce v12;
// AddPartitionsToTxnManager): the checks and effect of AddPartitionsToTxn.
// A late batch of a finished transaction carries an old epoch and gets
// PRODUCER_FENCED, which the leader reports as INVALID_PRODUCER_EPOCH; a
// batch of the next transaction racing ahead of the markers gets
// CONCURRENT_TRANSACTIONS.
func (c *Coordinator) AddPartitionImplicitly(now sim.Time, transactionalID string, pid model.ProducerID, epoch int16, partition int32) model.ErrCode {
	return c.AddPartitionsToTxn(now, transactionalID, pid, epoch, []int32{partition})
}

// EndTxn handles EndTxn (TransactionCoordinator.endTransaction; with
// transaction version 2, endTxnV2).
//
// Classic (TransactionVersion < 2; Kafka's endTransactionWithTV1): an
// unknown id or a pid mismatch is INVALID_PRODUCER_ID_MAPPING; another
// epoch is PRODUCER_FENCED; Ongoing moves to Prepare* and returns the
// markers (same epoch); Prepare* with the same result is
// CONCURRENT_TRANSACTIONS; Complete* with the same result is success (a
// retry); the opposite result, or Empty, is INVALID_TXN_STATE.
func (c *Coordinator) EndTxn(now sim.Time, req EndTxnCall) EndTxnResult {
	m := c.txns[req.TransactionalID]
	if m == nil {
		return endTxnFail(model.ErrInvalidProducerIDMapping, "unknown transactional.id or producer id")
	}
	if c.cfg.TransactionVersion >= 2 && (req.Version == 0 || req.Version >= 5) {
		if c.cfg.PreReleaseEndTxnV2 {
			return c.endTxnV2PreRelease(now, m, req)
		}
		return c.endTxnV2(now, m, req)
	}
	if m.ProducerID != req.ProducerID {
		return endTxnFail(model.ErrInvalidProducerIDMapping, "unknown transactional.id or producer id")
	}
	if req.ProducerEpoch != m.ProducerEpoch {
		return endTxnFail(model.ErrProducerFenced, "epoch is not the current epoch")
	}
	return c.endByState(now, m, req.Commit, false)
}

// endByState answers an EndTxn that passed the epoch checks by m's state,
// as the classic protocol does: Empty is INVALID_TXN_STATE; Ongoing moves
// to Prepare* (with bump, as transaction version 2 does, the epoch goes up
// by one); Prepare* with the same result is CONCURRENT_TRANSACTIONS;
// Complete* with the same result is a retry's success, with the current
// producer id and epoch; the opposite result is INVALID_TXN_STATE.
func (c *Coordinator) endByState(now sim.Time, m *TxnMetadata, commit, bump bool) EndTxnResult {
	want, prep, mt := endTxnStates(commit)
	switch m.State {
	case model.TxnEmpty:
		return endTxnFail(model.ErrInvalidTxnState, "no transaction")
	case model.TxnOngoing:
		return c.prepareEnd(now, m, prep, mt, bump)
	case model.TxnPrepareCommit, model.TxnPrepareAbort:
		if m.State == prep {
			return endTxnFail(model.ErrConcurrentTransactions, "markers still being written")
		}
		return endTxnFail(model.ErrInvalidTxnState, "completing with the opposite result")
	}
	if m.State == want {
		return EndTxnResult{ProducerID: m.ProducerID, Epoch: m.ProducerEpoch, Reason: "retry of a completed EndTxn"}
	}
	return endTxnFail(model.ErrInvalidTxnState, "completed with the opposite result")
}

// endTxnV2 is EndTxn under transaction version 2, as Kafka 4.0 and later
// decide it (TransactionCoordinator.endTransaction, core/src/main/scala/
// kafka/coordinator/transaction/TransactionCoordinator.scala, with its
// table of Empty, CompleteCommit and CompleteAbort; KAFKA-18464, fixed in
// 4.0.0). A request is a retry when it carries the epoch just before the
// current one (retryOnEpochBump), or the last epoch of the previous
// producer id after a rotation (retryOnOverflow). Which epochs are valid
// depends on the state:
//
//   - Ongoing and Empty: the current epoch only;
//   - Prepare*: a retry only;
//   - Complete*: a retry or the current epoch.
//
// Anything else is PRODUCER_FENCED. Then Ongoing moves to Prepare* with
// an epoch bump ([Coordinator.prepareEnd]); Prepare* answers
// CONCURRENT_TRANSACTIONS to the same result, INVALID_TXN_STATE to the
// other; and for the rest:
//
//	                 ABORT              COMMIT
//	                 retry   current    retry   current
//	Empty            (PF)    bump       (PF)    INVALID_TXN_STATE
//	CompleteAbort    NONE    bump       ITS     INVALID_TXN_STATE
//	CompleteCommit   ITS     bump       NONE    INVALID_TXN_STATE
//
// "bump" is an abort of a transaction with no partitions: the producer,
// unsure what the coordinator holds, ends it anyway, and the epoch moves
// on (TransactionState: "In transaction v2, we allow Empty,
// CompleteCommit, CompleteAbort to transition to PrepareAbort").
// Success answers carry the current producer id and epoch.
func (c *Coordinator) endTxnV2(now sim.Time, m *TxnMetadata, req EndTxnCall) EndTxnResult {
	retryOnOverflow := m.PrevProducerID != model.NoProducerID && req.ProducerID == m.PrevProducerID &&
		m.ProducerEpoch == 0 && req.ProducerEpoch == m.LastProducerEpoch && c.cfg.EpochExhausted(req.ProducerEpoch)
	retryOnBump := int32(m.ProducerEpoch) == int32(req.ProducerEpoch)+1
	if m.ProducerID != req.ProducerID && !retryOnOverflow {
		return endTxnFail(model.ErrInvalidProducerIDMapping, "unknown transactional.id or producer id")
	}
	current := req.ProducerEpoch == m.ProducerEpoch
	var valid bool
	switch m.State {
	case model.TxnOngoing, model.TxnEmpty:
		valid = current
	case model.TxnPrepareCommit, model.TxnPrepareAbort:
		valid = retryOnBump
	default: // Complete*
		valid = retryOnBump || retryOnOverflow || current
	}
	if !valid && (m.State == model.TxnOngoing || m.State == model.TxnEmpty) {
		return endTxnFail(model.ErrProducerFenced, "epoch is not the current epoch")
	}
	if !valid {
		return endTxnFail(model.ErrProducerFenced, "no open transaction at this epoch")
	}
	retry := retryOnBump || retryOnOverflow
	want, _, _ := endTxnStates(req.Commit)
	switch m.State {
	case model.TxnOngoing, model.TxnPrepareCommit, model.TxnPrepareAbort:
		return c.endByState(now, m, req.Commit, true)
	case model.TxnEmpty:
		if req.Commit {
			return endTxnFail(model.ErrInvalidTxnState, "no transaction")
		}
		return c.prepareEmptyAbort(now, m)
	}
	// Complete*.
	switch {
	case m.State == want && retry:
		return EndTxnResult{ProducerID: m.ProducerID, Epoch: m.ProducerEpoch, Reason: "retry of a completed EndTxn"}
	case retry:
		return endTxnFail(model.ErrInvalidTxnState, "completed with the opposite result")
	case req.Commit:
		return endTxnFail(model.ErrInvalidTxnState, "a commit with no transaction")
	}
	return c.prepareEmptyAbort(now, m)
}

// endTxnV2PreRelease is EndTxn under transaction version 2 as the
// 4.0.0-SNAPSHOT of 2024-10-25 decided it ([CoordinatorConfig]
// PreReleaseEndTxnV2): Ongoing requires the current epoch and bumps it;
// in Prepare* and Complete* only a retry is accepted (the previous epoch
// of the current pid, or the last epoch of the previous pid after a
// rotation), answered as in the classic case with the current pid and
// epoch; anything else is PRODUCER_FENCED, except in Empty with the
// current epoch, which is INVALID_TXN_STATE.
func (c *Coordinator) endTxnV2PreRelease(now sim.Time, m *TxnMetadata, req EndTxnCall) EndTxnResult {
	retry := (req.ProducerID == m.ProducerID && m.ProducerEpoch > 0 && req.ProducerEpoch == m.ProducerEpoch-1) ||
		(req.ProducerID == m.PrevProducerID && req.ProducerEpoch == m.LastProducerEpoch && m.State != model.TxnOngoing && m.State != model.TxnEmpty)
	if m.ProducerID != req.ProducerID && !retry {
		return endTxnFail(model.ErrInvalidProducerIDMapping, "unknown transactional.id or producer id")
	}
	if m.State == model.TxnOngoing || m.State == model.TxnEmpty {
		if req.ProducerEpoch != m.ProducerEpoch {
			return endTxnFail(model.ErrProducerFenced, "epoch is not the current epoch")
		}
	} else if !retry {
		return endTxnFail(model.ErrProducerFenced, "no open transaction at this epoch")
	}
	return c.endByState(now, m, req.Commit, true)
}

// prepareEmptyAbort aborts, at the current epoch, a transaction that has
// no partitions (transaction version 2's "EB"): PrepareAbort with an
// epoch bump and no markers to write, so the node completes it at once.
// The transaction's start time is now (Kafka's noPartitionAdded).
func (c *Coordinator) prepareEmptyAbort(now sim.Time, m *TxnMetadata) EndTxnResult {
	m.Partitions = nil
	m.TxnStartTime = now
	res := c.prepareEnd(now, m, model.TxnPrepareAbort, model.MarkerAbort, true)
	res.Reason = "abort with no partitions: epoch bumped"
	return res
}

// prepareEnd moves m to Prepare* (prep) and returns the markers of type
// mt for its partitions. With bump (transaction version 2) the epoch goes
// up by one, Prepare* at e+1 with lastProducerEpoch e, and the markers
// and the response carry e+1; at an exhausted epoch a new producer id is
// allocated for the Complete*, and the response carries it (KAFKA-18660,
// 4.0). With no partitions there is nothing to write: the node completes
// the transaction once Prepare* is written.
func (c *Coordinator) prepareEnd(now sim.Time, m *TxnMetadata, prep model.TxnState, mt model.MarkerType, bump bool) EndTxnResult {
	pid, epoch := m.ProducerID, m.ProducerEpoch
	res := EndTxnResult{}
	if bump {
		m.LastProducerEpoch = m.ProducerEpoch
		m.ProducerEpoch++
		epoch = m.ProducerEpoch
		if c.cfg.EpochExhausted(m.LastProducerEpoch) {
			m.NextProducerID, m.Rotating = c.newPID(), true
			res.ProducerID, res.Epoch = m.NextProducerID, 0
		}
	}
	m.State = prep
	m.LastUpdate = now
	res.Markers = c.markers(m, pid, epoch, mt)
	if !m.Rotating {
		res.ProducerID, res.Epoch = m.ProducerID, m.ProducerEpoch
	}
	return res
}

// endTxnStates returns the states and the marker type of an EndTxn's
// result: Complete*, Prepare* and COMMIT or ABORT.
func endTxnStates(commit bool) (want, prep model.TxnState, mt model.MarkerType) {
	if commit {
		return model.TxnCompleteCommit, model.TxnPrepareCommit, model.MarkerCommit
	}
	return model.TxnCompleteAbort, model.TxnPrepareAbort, model.MarkerAbort
}

// endTxnFail is an EndTxn error answer.
func endTxnFail(e model.ErrCode, why string) EndTxnResult {
	return EndTxnResult{Err: e, ProducerID: model.NoProducerID, Epoch: model.NoEpoch, Reason: why}
}

// MarkersWritten tells the coordinator that every marker of the completing
// transaction has been written (TransactionMarkerChannelManager, then
// TransactionMetadata.prepareComplete): Prepare* moves to Complete* and the
// partition set is cleared. It reports whether a transaction was completing.
func (c *Coordinator) MarkersWritten(now sim.Time, transactionalID string) bool {
	m := c.txns[transactionalID]
	if m == nil {
		return false
	}
	switch m.State {
	case model.TxnPrepareCommit:
		m.State = model.TxnCompleteCommit
	case model.TxnPrepareAbort:
		m.State = model.TxnCompleteAbort
	default:
		return false
	}
	if m.Rotating {
		// Complete* under the new producer id at epoch 0
		// (TransactionMetadata.prepareComplete).
		m.PrevProducerID, m.ProducerID, m.ProducerEpoch = m.ProducerID, m.NextProducerID, 0
		m.NextProducerID, m.Rotating = 0, false
	}
	m.Partitions = nil
	m.LastUpdate = now
	return true
}

// AbortTimedOutTransactions fences and aborts every Ongoing transaction
// whose transaction.timeout.ms has run out (now - TxnStartTime >=
// TxnTimeout), in transactional-id order, as
// TransactionCoordinator.abortTimedOutTransactions does (KIP-588): the epoch
// goes up by 1 and the returned ABORT markers carry it. Scheduling it
// (Kafka: every 10 s) is the caller's business; call
// [Coordinator.MarkersWritten] per id once its markers are delivered.
func (c *Coordinator) AbortTimedOutTransactions(now sim.Time) []model.TxnMarker {
	var out []model.TxnMarker
	for _, id := range c.TransactionalIDs() {
		m := c.txns[id]
		// Strictly after the deadline: txnStartTimestamp + txnTimeoutMs <
		// now (TransactionStateManager.timedOutTransactions, l.122).
		if m.State == model.TxnOngoing && now.Sub(m.TxnStartTime) > m.TxnTimeout && c.pending[id] == 0 {
			if c.cfg.BugNoBumpOnTimeout {
				m.State = model.TxnPrepareAbort
				m.LastUpdate = now
				out = append(out, c.markers(m, m.ProducerID, m.ProducerEpoch, model.MarkerAbort)...)
				continue
			}
			out = append(out, c.fenceAndAbort(now, m)...)
		}
	}
	return out
}

// current returns the metadata of transactionalID when (pid, epoch) is its
// current producer and no transaction is completing: the checks
// AddPartitionsToTxn and verification share
// (TransactionCoordinator.handleAddPartitionsToTransaction and
// handleVerifyPartitionsInTransaction). Otherwise it returns
// INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED or CONCURRENT_TRANSACTIONS.
func (c *Coordinator) current(transactionalID string, pid model.ProducerID, epoch int16) (*TxnMetadata, model.ErrCode) {
	m := c.txns[transactionalID]
	switch {
	case m == nil || m.ProducerID != pid:
		return nil, model.ErrInvalidProducerIDMapping
	case m.ProducerEpoch != epoch:
		return nil, model.ErrProducerFenced
	case m.State == model.TxnPrepareCommit || m.State == model.TxnPrepareAbort:
		return nil, model.ErrConcurrentTransactions
	}
	return m, model.ErrNone
}

// DefaultTransactionalIDExpiration is transactional.id.expiration.ms's
// default, 604800000 ms (7 days).
const DefaultTransactionalIDExpiration = 7 * 24 * time.Hour

// DefaultExpirationCheckInterval is
// transaction.remove.expired.transaction.cleanup.interval.ms's default,
// 3600000 ms.
const DefaultExpirationCheckInterval = time.Hour

func (c CoordinatorConfig) idExpiration() time.Duration {
	if c.TransactionalIDExpiration <= 0 {
		return DefaultTransactionalIDExpiration
	}
	return c.TransactionalIDExpiration
}

// expirable reports whether m can expire: Empty or Complete*
// (TransactionState.isExpirationAllowed in TransactionMetadata.scala).
func expirable(m *TxnMetadata) bool {
	return m.State == model.TxnEmpty || m.State == model.TxnCompleteCommit || m.State == model.TxnCompleteAbort
}

// ExpireTransactionalIDs removes every transactional id idle for
// transactional.id.expiration.ms in Empty or Complete* (LastUpdate <= now
// - expiration), in id order, logging a tombstone for each
// (TransactionStateManager.removeExpiredTransactionalIds, l.143). It
// returns the removed ids. Afterwards
// AddPartitionsToTxn, EndTxn and verification get
// INVALID_PRODUCER_ID_MAPPING and InitProducerId starts afresh.
func (c *Coordinator) ExpireTransactionalIDs(now sim.Time) []string {
	var gone []string
	for _, id := range c.TransactionalIDs() {
		m := c.txns[id]
		if expirable(m) && m.LastUpdate <= now.Add(-c.cfg.idExpiration()) && c.pending[id] == 0 {
			gone = append(gone, id)
		}
	}
	for _, id := range gone {
		m := c.txns[id]
		m.State, m.Partitions, m.LastUpdate = model.TxnDead, nil, now
		c.log.append(m, &c.node.msgs.parts)
		delete(c.txns, id)
	}
	return gone
}
