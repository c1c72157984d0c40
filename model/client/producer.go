package client

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// pbatch is a producer batch (ProducerBatch) with its client bookkeeping.
// The producer recycles it once nothing refers to it (recycle.go).
type pbatch struct {
	b         model.Batch
	createdAt sim.Time
	retryAt   sim.Time
	// req is the request the batch is on the wire in, or nil.
	req      *prequest
	attempts int32
	// refs counts the in-flight requests that list the batch (a batch
	// taken off the wire by the franz-go policy's rewind, or expired, can
	// be in more than one, or in one it is no longer on the wire in).
	refs int32
	// hasSeq: the batch got its pid, epoch and sequence when it was first
	// drained (RecordAccumulator.drainBatchesForOneNode). A plain retry
	// never changes them (librdkafka #4736 shows a client that did).
	hasSeq   bool
	inRetry  bool // re-enqueued at least once (ProducerBatch.inRetry)
	resetSeq bool // sequence rewritten by an epoch bump (sequenceHasBeenReset)
	done     bool // the application has the batch's outcome
	// queued: the batch is in its partition's queue (unqueue).
	queued bool
	// inLive: the batch is in its partition's live list (oldestLive).
	inLive bool
}

// partState is the client's state for one partition (TxnPartitionEntry plus
// the accumulator's deque).
type partState struct {
	id int32
	// leaderEpoch is the leader epoch of the partition's cached leader
	// (Producer.leaders), from the Metadata answers and the KIP-951
	// hints; 0, the epoch a partition is created with, until one is
	// known.
	leaderEpoch int32
	// queue is the accumulator's deque: batches not on the wire.
	// Sequenced retries come first, in sequence order
	// (insertInSequenceOrder); then new batches in creation order.
	queue []*pbatch
	// unacked holds every sequenced, unfinished batch (on the wire or
	// queued for retry), in sequence order (Kafka's
	// inflightBatchesBySequence). Without idempotence it holds the
	// unfinished batches that were sent at least once.
	unacked []*pbatch
	// pid and epoch are the ones this partition's sequences belong to;
	// they lag the producer's after a bump until the partition has
	// nothing in flight (TransactionManager.maybeUpdateProducerIdAndEpoch,
	// KAFKA-12152).
	pid             model.ProducerID
	epoch           int16
	nextSeq         int32
	lastAckedSeq    int32 // -1 when nothing was acked under pid/epoch
	lastAckedOffset int64 // -1 when unknown
	// unresolved is set when a sent batch expired
	// (TransactionManager.markSequenceUnresolved); unresolvedNext
	// is then the sequence after the expired batch.
	unresolved     bool
	unresolvedNext int32
	bumpWanted     bool // requestEpochBumpForPartition
	onWire         int  // batches of this partition on the wire (done ones too)
	// ppNext (librdkafka policy) is the sequence after the earliest
	// unacknowledged batch that failed with a "possibly persisted" error,
	// or -1: librdkafka then expects the broker to be past it.
	ppNext int32
	// drainWait (librdkafka policy): after an error, send nothing for the
	// partition until everything on the wire is back.
	drainWait bool
	// fgOK (franz-go policy): the partition's last produce response was
	// a success, so it may have more than one request in flight.
	fgOK bool
	// live holds the partition's batches in creation order; finished ones
	// are dropped from its head lazily (oldestLive).
	live []*pbatch
	// sp keeps the previous run's list storage for a reset instance's
	// first appends (grab); it holds no batch.
	sp listSpare
}

// prequest is one produce or InitProducerId request on the wire.
type prequest struct {
	corr    int64
	dest    int32
	batches []*pbatch
	sentAt  sim.Time
	init    bool
	// txnOp is txnOpAdd or txnOpEnd for transactional requests.
	txnOp uint8
	// meta: a Metadata request (metadata.go).
	meta bool
	// find is 1 + the key type of a FindCoordinator request, else 0
	// (coordlookup.go).
	find uint8
}

// dconn is the producer's connection to one destination.
type dconn struct {
	dest        int32
	ready       bool
	reconnectAt sim.Time
	// inflight holds the connection's requests, oldest first.
	inflight []*prequest
	// answered: a produce response came from dest (kept across
	// reconnects; the franz-go policy's in-flight limit reads it).
	answered bool
	// spare keeps the previous run's in-flight list storage (grab); it
	// holds no request.
	spare []*prequest
	// Nagle's algorithm (nagle.go): segOut, a segment written at segAt
	// whose first request is segCorr is unacknowledged; held are the
	// requests written since, waiting in the socket for its
	// acknowledgement, oldest first.
	// heldCorr is the first held request's correlation id.
	segOut            bool
	segAt             sim.Time
	segCorr, heldCorr int64
	held              []model.Message
}

// Producer models a Kafka producer instance (KafkaProducer with its Sender,
// RecordAccumulator and TransactionManager) as a pure state machine: the
// application calls [Producer.Send], the world feeds in responses,
// disconnects and wake-ups, and every call returns the effects to carry out.
// The returned slice is valid until the next call.
//
// The behaviour follows the Java client (Kafka 3.9
// clients/src/main/java/org/apache/kafka/clients/producer/internals/) except where
// Config().Policy names another client: at the points where the clients
// differ the producer asks its policy value (policy.go), chosen once from
// Config().Policy when it is made or reset. The Java client's:
//   - Configuration: [ProducerConfig.Resolve] (ProducerConfig
//     postProcessAndValidateIdempotenceConfigs,
//     KafkaProducer.configureDeliveryTimeout).
//   - InitProducerId at start when idempotent; nothing is drained until a
//     producer id is known (RecordAccumulator.shouldStopDrainBatchesForPartition).
//   - Sequences are assigned when a batch is first drained and kept on
//     every plain retry (RecordAccumulator.drainBatchesForOneNode); batch
//     membership is frozen at first send (librdkafka #4736 shows what
//     breaks otherwise).
//   - At most max.in.flight requests per connection; a partition whose
//     queue head is a retry drains only its lowest unacknowledged batch,
//     which drops it to one request in flight
//     (RecordAccumulator.shouldStopDrainBatchesForPartition).
//   - Responses are handled as Sender.completeBatch, Sender.canRetry and
//     TransactionManager.canRetry/handleFailedBatch do, including the
//     KIP-360 local epoch bump that renumbers a partition's unacknowledged
//     batches from 0 (TransactionManager.bumpIdempotentEpochAndResetIdIfNeeded).
//   - delivery.timeout.ms expiry and unresolved sequences
//     (Sender.sendProducerData, TransactionManager.markSequenceUnresolved
//     and maybeResolveSequences).
//
// Where issue 4's text and Kafka's code differ, the code wins:
//   - OUT_OF_ORDER_SEQUENCE_NUMBER bumps the epoch only for the head batch
//     (lastAckedSequence+1) of an idempotent producer; a later batch is
//     retried unchanged, and a transactional producer fails the head batch
//     with an abortable error (TransactionManager.canRetry,
//     handleFailedBatch).
//   - UNKNOWN_PRODUCER_ID is retried without a bump when the response has
//     no log start offset or the batch was already renumbered
//     (TransactionManager.canRetry).
//   - INVALID_PRODUCER_EPOCH is abortable for a transactional producer and
//     becomes fatal only when its abort is fenced; an idempotent one fails
//     the batch and bumps locally (TransactionManager.handleFailedBatch).
//     PRODUCER_FENCED is always fatal
//     (TransactionManager.maybeTransitionToErrorState).
//
// With a transactional.id but no transactions (TransactionRecords 0) the
// producer id and epoch are all there is: an abortable error (an
// OUT_OF_ORDER_SEQUENCE_NUMBER of the head batch, INVALID_PRODUCER_EPOCH,
// or an unresolved sequence that maybeResolveSequences cannot settle)
// makes the instance fail its queued batches, wait for its in-flight
// requests, and then send InitProducerId with its current pid/epoch
// (KIP-360), which stands for the application's abortTransaction() (with
// no partition added, Kafka sends no EndTxn); a coordinator answer of
// PRODUCER_FENCED is fatal. With transactions, see txnState.
type Producer struct {
	cfg     ProducerConfig
	policy  clientPolicy // cfg.Policy's behaviour, chosen by Reset (policy.go)
	app     int32
	rng     *rand.Rand
	leaders []int32 // leader destination per partition

	pid         model.ProducerID
	epoch       int16
	initSent    bool
	initRetryAt sim.Time
	// coords are the coordinators found, by key type (coordlookup.go).
	coords [2]coordLookup
	fatal  model.ErrCode
	// abortErr is the error that put a transactional instance in its
	// abortable-error state, or ErrNone; txnBump asks the coordinator for
	// an epoch bump once nothing is on the wire.
	abortErr model.ErrCode
	txnBump  bool
	// bumpInTxn: the pending bump is defect Z17's, inside an open
	// transaction (ProducerConfig.BugTxnBumpInTxn).
	bumpInTxn bool
	// rdkBump (librdkafka and franz-go policies) asks for a
	// producer-wide epoch bump once nothing is on the wire.
	rdkBump bool
	// drainLater (policies whose drainAfterAnswers is true): a produce
	// answer was handled, and the drain waits for a wake at the same
	// instant, after the answers already due then.
	drainLater bool
	bumps      int
	txn        txnState
	// groupMeta is the group metadata the application passes with its
	// offsets (SetGroupMetadata).
	groupMeta model.GroupMetadata
	parts     []*partState
	conns     []*dconn
	nextCorr  int64
	wakeAt    sim.Time
	wakeToken uint64
	out       []model.Out
	// held are the effect buffers the world holds in place (hold.go).
	held model.EffectStack

	// pool is where the instance's requests, batches and records come
	// from (recycle.go): how it allocates, not what it knows.
	pool producerPool

	// Metadata (metadata.go): stale, a request in flight, the
	// time of the last answer and the earliest next request, the next
	// broker to try, and whether leaders is the instance's own copy.
	metaStale, metaInflight bool
	metaAt, metaRetryAt     sim.Time
	metaNext                int32
	ownLeaders              bool
	// hints: the client sends Produce v10 and reads the KIP-951 leader
	// hints of its answers (clientPolicy.leaderHints, chosen by Reset);
	// hintMoved: a hint moved a partition's leader since the last
	// sender pass (leaderhint.go).
	hints, hintMoved bool
	// hintReplaces: a usable hint stands for the Metadata request
	// (clientPolicy.hintReplacesMetadata, with hints).
	hintReplaces bool
	// drainAfter: a produce answer defers the drain to a wake at the
	// same instant (clientPolicy.drainAfterAnswers, chosen by Reset).
	drainAfter bool
	// nagle: the broker connections run Nagle's algorithm
	// (clientPolicy.nagle, chosen by Reset; nagle.go).
	nagle bool
}

// NewProducer returns a producer instance for application app, writing to
// len(leaders) partitions, partition i led by broker leaders[i]. cfg must
// come from [ProducerConfig.Resolve]. rng is the instance's own stream.
func NewProducer(cfg ProducerConfig, app int32, leaders []int32, rng *rand.Rand) *Producer {
	p := &Producer{}
	p.Reset(cfg, app, leaders, rng)
	return p
}

// Config returns the producer's effective configuration.
func (p *Producer) Config() ProducerConfig { return p.cfg }

// PID returns the current producer id and epoch (NoProducerID before
// InitProducerId completes, or without idempotence).
func (p *Producer) PID() (model.ProducerID, int16) { return p.pid, p.epoch }

// Fatal returns the error that put the instance in its fatal state, or
// ErrNone.
func (p *Producer) Fatal() model.ErrCode { return p.fatal }

// AbortableError returns the error that put a transactional instance in
// its abortable-error state, or ErrNone once the epoch bump finished.
func (p *Producer) AbortableError() model.ErrCode { return p.abortErr }

// EpochBumps returns how many times this instance bumped its epoch.
func (p *Producer) EpochBumps() int { return p.bumps }

// Pending returns the number of records sent by the application whose
// outcome is not yet known.
func (p *Producer) Pending() int {
	n := len(p.txn.waiting)
	for _, ps := range p.parts {
		for _, b := range ps.live {
			if !b.done {
				n += len(b.b.Records)
			}
		}
	}
	return n
}

// Start begins the instance: an idempotent producer asks for a producer id.
func (p *Producer) Start(now sim.Time) []model.Out {
	p.begin()
	p.poll(now)
	return p.out
}

// Send is the application's send of rec. A fatal instance fails it with
// its fatal error, and a transactional instance in abortable-error state
// with that error (Kafka's send throws in both states). The record's
// CreateTime is now: Send is [Producer.SendAt] on a host whose clock
// reads the simulated time.
func (p *Producer) Send(now sim.Time, rec model.Record) []model.Out {
	return p.SendAt(now, now, rec)
}

// SendAt is [Producer.Send] on a host whose clock reads wall at now: the
// producer stamps the record's CreateTime with it, as KafkaProducer.doSend
// stamps a record without a timestamp with its Time's milliseconds
// (l.1065 at apache/kafka@1eb7644349cb). The producer does not know that
// its clock drifts; the world, which owns the hosts' clocks, passes the
// reading. Every timer the producer sets is still in simulated time (the
// world stretches it by the host's drift).
func (p *Producer) SendAt(now, wall sim.Time, rec model.Record) []model.Out {
	rec.CreateTime = wall
	p.begin()
	if p.fatal != model.ErrNone {
		p.result(now, rec, p.fatal, -1)
		return p.out
	}
	if p.abortErr != model.ErrNone && !p.txnMode() {
		p.result(now, rec, p.abortErr, -1)
		return p.out
	}
	p.sendRecord(now, rec)
	p.poll(now)
	return p.out
}

// sendRecord adds an application record to its partition's accumulator
// (RecordAccumulator.append), or, in transaction mode while a transaction
// ends, keeps it for the next one.
func (p *Producer) sendRecord(now sim.Time, rec model.Record) {
	if p.txnMode() && p.txnSend(rec) {
		return
	}
	ps := p.parts[rec.Partition]
	var last *pbatch
	if n := len(ps.queue); n > 0 {
		last = ps.queue[n-1]
	}
	if last == nil || last.hasSeq || last.attempts > 0 || len(last.b.Records) >= p.cfg.BatchSize {
		// Batches are transactional only when the application runs
		// transactions; a transactional.id alone only fences (see
		// txnState).
		last = p.newBatch()
		last.b = model.Batch{Partition: rec.Partition, PID: model.NoProducerID, Epoch: model.NoEpoch, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Transactional: p.txnMode(), Txn: p.txnOrdinal(rec)}
		last.createdAt = now
		last.queued, last.inLive = true, true
		ps.queue = append(grab(ps.queue, &ps.sp.queue), last)
		ps.live = append(grab(ps.live, &ps.sp.live), last)
	}
	last.b.Records = p.pool.recs[ps.id].add(last.b.Records, rec, &p.pool.recKeepers)
}

// Wake is a wake-up the producer asked for with OutWake. Stale tokens are
// ignored.
func (p *Producer) Wake(now sim.Time, token uint64) []model.Out {
	p.begin()
	if token != p.wakeToken {
		return p.out
	}
	p.wakeAt = -1
	p.drainLater = false
	p.poll(now)
	return p.out
}

// Disconnected tells the producer its connection to dest broke; every
// request on it fails with NETWORK_EXCEPTION, which is retriable.
func (p *Producer) Disconnected(now sim.Time, dest int32) []model.Out {
	p.begin()
	c := p.conn(dest)
	if c.ready {
		p.dropConn(now, c, model.ErrNetworkException)
	}
	p.poll(now)
	return p.out
}

// Receive handles a response from dest.
func (p *Producer) Receive(now sim.Time, dest int32, m model.Message) []model.Out {
	p.begin()
	c := p.conn(dest)
	var corr int64
	switch r := m.(type) {
	case *model.ProduceResponse:
		corr = r.CorrelationID
	case *model.InitProducerIDResponse:
		corr = r.CorrelationID
	case *model.TxnResponse:
		corr = r.CorrelationID
	case *model.MetadataResponse:
		corr = r.CorrelationID
	case *model.FindCoordinatorResponse:
		corr = r.CorrelationID
	default:
		panic("model: producer received a request")
	}
	i := slices.IndexFunc(c.inflight, func(q *prequest) bool { return q.corr == corr })
	if i < 0 {
		p.note(model.NoteInfo, "ignored response to closed request #"+strconv.FormatInt(corr, 10))
		p.poll(now)
		return p.out
	}
	q := c.inflight[i]
	c.inflight = slices.Delete(c.inflight, i, i+1)
	if p.nagle && c.segOut && corr >= c.segCorr {
		// The answer carries the acknowledgement of the outstanding
		// segment (nagle.go), which the kernel takes before the client
		// reads the answer.
		p.nagleAck(now, c)
	}
	switch r := m.(type) {
	case *model.ProduceResponse:
		c.answered = true
		p.drainLater = p.drainAfter
		for _, b := range q.batches {
			if b.req != q {
				continue
			}
			for _, pr := range r.Partitions {
				if pr.Partition == b.b.Partition {
					p.complete(now, b, pr.Err, pr.BaseOffset, pr.LogStartOffset, p.hintReplaces && p.usableHint(&pr))
					break
				}
			}
		}
		if p.hints {
			for i := range r.Partitions {
				if r.Partitions[i].HasCurrentLeader {
					p.applyLeaderHints(now, r)
					break
				}
			}
		}
	case *model.InitProducerIDResponse:
		p.initSent = false
		p.handleInit(now, r)
	case *model.TxnResponse:
		p.handleTxnResponse(now, q, r)
	case *model.MetadataResponse:
		p.handleMetadata(now, r)
	case *model.FindCoordinatorResponse:
		p.handleFind(now, r) // coordlookup.go
	}
	p.retire(q)
	p.poll(now)
	return p.out
}

// handleInit handles the InitProducerId answer (InitProducerIdHandler).
func (p *Producer) handleInit(now sim.Time, r *model.InitProducerIDResponse) {
	switch {
	case r.Err == model.ErrNone:
		if p.txnBump {
			// After the coordinator's bump every partition starts again
			// at sequence 0 under the new epoch (InitProducerIdHandler).
			p.txnBump = false
			p.abortErr = model.ErrNone
			p.bumps++
			p.note(model.NoteEpochBump, "epoch bump "+strconv.Itoa(int(p.epoch))+" -> "+strconv.Itoa(int(r.Epoch))+" (coordinator)")
			for _, ps := range p.parts {
				p.resetPartition(ps, r.PID, r.Epoch)
			}
			if p.bumpInTxn {
				p.bumpInTxn = false
				p.readdAfterBump()
			}
		}
		p.pid, p.epoch = r.PID, r.Epoch
		p.note(model.NotePID, "producer id "+strconv.FormatInt(int64(r.PID), 10)+" epoch "+strconv.Itoa(int(r.Epoch)))
		// The application's abortTransaction returned: its next
		// transaction starts.
		p.txnResume(now)
	case r.Err == model.ErrProducerFenced || r.Err == model.ErrInvalidProducerEpoch:
		// Fenced on a transactional API is fatal (InitProducerIdHandler:
		// ProducerFencedException).
		p.enterFatal(now, model.ErrProducerFenced)
	default:
		// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE: look the
		// coordinator up again first (coordlookup.go).
		p.coordLost(now, model.CoordKeyTransaction, "InitProducerId", r.Err)
		// Retriable (CONCURRENT_TRANSACTIONS, coordinator errors): ask
		// again after retry.backoff.ms.
		p.initRetryAt = now.Add(p.cfg.RetryBackoff)
		p.note(model.NoteRetry, "InitProducerId "+r.Err.String()+", retrying")
	}
}

func (p *Producer) conn(dest int32) *dconn {
	for _, c := range p.conns {
		if c.dest == dest {
			return c
		}
	}
	var c *dconn
	if n := len(p.pool.freeConns); n > 0 {
		c = p.pool.freeConns[n-1]
		p.pool.freeConns[n-1] = nil
		p.pool.freeConns = p.pool.freeConns[:n-1]
		c.dest = dest
	} else {
		c = &dconn{dest: dest}
	}
	if p.conns == nil && p.pool.connsMem != nil {
		p.conns, p.pool.connsMem = p.pool.connsMem, nil
	}
	p.conns = append(p.conns, c)
	return c
}

// dropConn fails every request on c with err, closes it and schedules the
// reconnect (NetworkClient.processDisconnection).
//
// The requests fail oldest first (InFlightRequests.clearAll returns the
// node's deque through descendingIterator). Without idempotence each
// failed batch goes back to the front of its deque (RecordAccumulator
// reenqueue: addFirst), so several failed requests of one partition are
// retried newest first: Kafka reverses them, which is one source of the
// reordering that ProducerConfig's max.in.flight.requests.per.connection
// documentation warns of. With idempotence they are put
// back in sequence order instead (insertInSequenceOrder).
func (p *Producer) dropConn(now sim.Time, c *dconn, err model.ErrCode) {
	reqs := c.inflight
	c.inflight = nil
	c.ready = false
	if p.nagle {
		p.nagleReset(c) // nagle.go
	}
	if c.dest >= 0 {
		// NetworkClient.processDisconnection: a broker gone may have
		// been a leader (DefaultMetadataUpdater.handleServerDisconnect).
		p.requestMetadata()
	}
	c.reconnectAt = now.Add(p.cfg.ReconnectBackoff)
	p.out = append(p.out, model.Out{Kind: model.OutClose, Dest: c.dest})
	for _, q := range reqs {
		switch {
		case q.init:
			p.initSent = false
			if p.lookups() {
				p.coordLost(0, model.CoordKeyTransaction, "", model.ErrNetworkException) // coordlookup.go
			}
		case q.meta:
			p.metaInflight = false
		case q.txnOp != txnOpNone:
			p.txnLost(q)
		case q.find != 0:
			p.findLost(q) // coordlookup.go
		default:
			for _, b := range q.batches {
				if b.req == q {
					p.complete(now, b, err, -1, 0, false)
				}
			}
		}
		p.retire(q)
	}
	// The list's storage serves the connection's next requests.
	c.spare = keepLonger(c.spare, reqs)
}

// complete handles one partition's outcome for batch b
// (Sender.completeBatch); an error is the client policy's to
// handle (clientPolicy.failed). logStart is the response's log start
// offset, -1 when unknown. hinted: the answer carries a leader hint that
// takes the place of a Metadata request (clientPolicy.hintReplacesMetadata).
func (p *Producer) complete(now sim.Time, b *pbatch, err model.ErrCode, offset, logStart int64, hinted bool) {
	ps := p.parts[b.b.Partition]
	b.req = nil
	ps.onWire--
	p.policy.responded(ps, err)
	if err == model.ErrNone {
		p.completeOK(now, b, offset)
		return
	}
	if (err == model.ErrNotLeaderOrFollower || err == model.ErrLeaderNotAvailable) && !hinted {
		p.requestMetadata()
	}
	if b.done {
		// Expired earlier (Sender.sendProducerData): canRetry is false for
		// a completed batch and completeExceptionally does nothing.
		return
	}
	if p.fatal != model.ErrNone {
		p.finish(now, b, err, -1)
		return
	}
	p.policy.failed(p, now, b, err, logStart)
}

// completeOK is a success (TransactionManager.handleCompletedBatch).
// It runs for a batch that already expired, too: a late acknowledgement
// still moves lastAckedSequence, which is how maybeResolveSequences
// learns that an expired
// batch was written.
func (p *Producer) completeOK(now sim.Time, b *pbatch, offset int64) {
	ps := p.parts[b.b.Partition]
	if b.hasSeq {
		// maybeUpdateLastAckedSequence, in the client's arithmetic.
		p.policy.acked(p, ps, b)
		if offset >= 0 {
			if last := offset + int64(len(b.b.Records)) - 1; last > ps.lastAckedOffset {
				ps.lastAckedOffset = last
			}
		}
		if ps.ppNext >= 0 && !p.seqAfter(ps.ppNext, p.cfg.Seq.Add(b.b.LastSeq, 1)) {
			ps.ppNext = -1
		}
	}
	p.finish(now, b, model.ErrNone, offset)
}

// canRetry is Sender.canRetry with TransactionManager.canRetry. Like
// Kafka's, it requests epoch bumps as a side effect, and
// only when the batch is still within its delivery timeout and retries.
// An OUT_OF_ORDER_SEQUENCE_NUMBER requests a bump only for the head batch
// (lastAckedSequence+1) of a partition without unresolved sequences, or
// for the batch right after the unresolved point; a later batch is retried
// as it is (clients/src/main/java/org/apache/kafka/clients/producer/internals/TransactionManager.java
// canRetry, lines 959-975, and isNextSequence, line 788). A head batch that
// a restarted broker no longer has in its window (it keeps the newest
// batch only) therefore gets a bump and is appended again.
func (p *Producer) canRetry(now sim.Time, b *pbatch, err model.ErrCode, logStart int64) bool {
	if now >= b.createdAt.Add(p.cfg.DeliveryTimeout) || b.attempts >= p.cfg.Retries {
		return false
	}
	if !p.cfg.EnableIdempotence {
		return err.Retriable()
	}
	ps := p.parts[b.b.Partition]
	txn := p.cfg.TransactionalID != ""
	switch err {
	case model.ErrUnknownProducerID:
		switch {
		case logStart < 0, b.resetSeq:
			return true
		case ps.lastAckedOffset < logStart:
			// The log head went and the producer state with it.
			if txn {
				p.resetPartition(ps, ps.pid, ps.epoch)
				p.note(model.NoteRetry, "UNKNOWN_PRODUCER_ID on p"+strconv.FormatInt(int64(ps.id), 10)+": sequences restart at 0")
			} else {
				p.requestBump(ps, err, b)
			}
			return true
		case !txn:
			p.requestBump(ps, err, b)
			return true
		}
		return false
	case model.ErrOutOfOrderSequenceNumber:
		if !ps.unresolved && (b.resetSeq || !p.policy.isNextSeq(p, ps, b.b.FirstSeq)) {
			// An earlier batch failed; this one goes after it
			// (TransactionManager.canRetry).
			return true
		}
		if !txn {
			if !ps.unresolved || b.b.FirstSeq == ps.unresolvedNext {
				p.requestBump(ps, err, b)
			}
			return true
		}
		return false
	}
	return err.Retriable()
}

// failBatch fails b to the application (Sender.failBatch with
// TransactionManager.handleFailedBatch). adjust is false
// when the retries were exhausted or the batch expired: its fate is then
// unknown and sequences must not be adjusted.
func (p *Producer) failBatch(now sim.Time, b *pbatch, err model.ErrCode, adjust bool) {
	p.finish(now, b, err, -1)
	if !p.cfg.EnableIdempotence {
		return
	}
	ps := p.parts[b.b.Partition]
	txn := p.cfg.TransactionalID != ""
	// maybeTransitionToErrorState.
	switch {
	case err == model.ErrProducerFenced:
		p.enterFatal(now, model.ErrProducerFenced)
		return
	case txn && err == model.ErrInvalidProducerIDMapping && ipimFatal(p.cfg.ClientVersion):
		// From the 4.0 client (KAFKA-18019) the coordinator's forgetting
		// the transactional id is fatal on the produce path too (under
		// transaction version 2 the leader's implicit add returns it).
		p.enterFatal(now, err)
		return
	case txn:
		// Every other error, INVALID_PRODUCER_EPOCH included, is
		// abortable for a transactional producer, with an epoch bump
		// (TransactionManager.maybeTransitionToErrorState, l.673-685 at
		// apache/kafka@1eb7644349cb: InvalidProducerEpochException is not
		// a ProducerFencedException). After INVALID_PRODUCER_EPOCH the
		// application's abort sends EndTxn at the stale epoch, which the
		// coordinator answers PRODUCER_FENCED, and the instance goes fatal
		// then (EndTxnHandler l.1578-1581); without transactions the
		// abort is the bump itself, which
		// the coordinator fences the same way.
		p.abortable(now, err)
		return
	}
	switch {
	case err == model.ErrOutOfOrderSequenceNumber:
		p.requestBump(ps, err, b)
	case adjust:
		p.requestBump(ps, err, b)
	}
}

// abortable puts a transactional instance in its abortable-error state
// (TransactionManager.maybeTransitionToErrorState): the epoch must be
// bumped through the coordinator.
func (p *Producer) abortable(now sim.Time, err model.ErrCode) {
	if p.abortErr != model.ErrNone {
		return
	}
	p.abortErr = err
	if p.txnV2() && err != model.ErrInvalidProducerIDMapping && err != model.ErrUnknownProducerID {
		// Transaction version 2: EndTxn(ABORT) bumps the epoch; no
		// InitProducerId (KAFKA-17898).
		p.note(model.NoteRetry, "abortable error "+err.String()+": abort (EndTxn bumps the epoch)")
		return
	}
	p.txnBump = true
	p.note(model.NoteRetry, "abortable error "+err.String()+": abort and bump the epoch through the coordinator")
}

// requestBump marks ps for an epoch bump (requestIdempotentEpochBumpForPartition).
func (p *Producer) requestBump(ps *partState, err model.ErrCode, b *pbatch) {
	if !ps.bumpWanted {
		p.note(model.NoteRetry, err.String()+" on p"+strconv.FormatInt(int64(ps.id), 10)+" seq "+strconv.FormatInt(int64(b.b.FirstSeq), 10)+": epoch bump requested")
	}
	ps.bumpWanted = true
}

// reenqueueRetry puts b back for a retry after the backoff (Sender
// reenqueueBatch; RecordAccumulator.insertInSequenceOrder).
func (p *Producer) reenqueueRetry(now sim.Time, b *pbatch) {
	ps := p.parts[b.b.Partition]
	b.inRetry = true
	b.retryAt = now.Add(p.backoff(b.attempts))
	p.reenqueue(ps, b)
}

// reenqueue inserts b back into its partition's queue: by sequence among
// sequenced batches (RecordAccumulator.insertInSequenceOrder), or without
// idempotence at the front (addFirst; see dropConn), or in send order
// where the policy keeps it (librdkafka).
func (p *Producer) reenqueue(ps *partState, b *pbatch) {
	i := 0
	switch {
	case b.hasSeq:
		for i < len(ps.queue) && ps.queue[i].hasSeq && p.seqBefore(ps.queue[i], b) {
			i++
		}
	case p.policy.retryInOrder():
		// librdkafka's message ids follow the application's sends,
		// which follow the records' numbers.
		for i < len(ps.queue) && ps.queue[i].b.Records[0].ID.N < b.b.Records[0].ID.N {
			i++
		}
	}
	b.queued = true
	ps.queue = slices.Insert(grab(ps.queue, &ps.sp.queue), i, b)
}

// seqBefore orders two sequenced batches of one partition by their
// position in the unacked list, which is in sequence order (wrap
// included).
func (p *Producer) seqBefore(a, b *pbatch) bool {
	ps := p.parts[a.b.Partition]
	return slices.Index(ps.unacked, a) < slices.Index(ps.unacked, b)
}

// seqAfter reports whether seq a comes after b, treating -1 as "none" and
// allowing for wrap within half the space.
func (p *Producer) seqAfter(a, b int32) bool {
	if b < 0 {
		return true
	}
	d := p.cfg.Seq.Count(b, a) - 1
	return d > 0 && d < int64(p.cfg.Seq.Max()/2)
}

// backoff is retry.backoff.ms * 2^(attempts-1), capped at
// retry.backoff.max.ms, with ±20% jitter (KIP-580). Kafka draws the
// jitter on every readiness check; idemsim draws it once per retry. A
// client before KIP-580 (the policy's exponentialBackoff) waits
// retry.backoff.ms, with no jitter.
func (p *Producer) backoff(attempts int32) time.Duration {
	if !p.policy.exponentialBackoff(p.cfg.ClientVersion) {
		return p.cfg.RetryBackoff
	}
	d := int64(p.cfg.RetryBackoff)
	for i := int32(1); i < attempts && d < int64(p.cfg.RetryBackoffMax); i++ {
		d *= 2
	}
	if m := int64(p.cfg.RetryBackoffMax); d > m && m >= int64(p.cfg.RetryBackoff) {
		d = m
	}
	if d <= 0 {
		return 0
	}
	// ±20%, in whole microseconds.
	j := d / 5
	d = d - j + p.rng.Int64N(2*j+1)
	return time.Duration(d / 1e3 * 1e3)
}

// finish ends b with an outcome for each record.
func (p *Producer) finish(now sim.Time, b *pbatch, err model.ErrCode, offset int64) {
	if b.done {
		return
	}
	b.done = true
	ps := p.parts[b.b.Partition]
	if i := slices.Index(ps.unacked, b); i >= 0 {
		ps.unacked = slices.Delete(ps.unacked, i, i+1)
	}
	ps.unqueue(b)
	for i, r := range b.b.Records {
		off := int64(-1)
		if err == model.ErrNone && offset >= 0 {
			off = offset + int64(i)
		}
		p.result(now, r, err, off)
	}
}

// unqueue takes b out of the partition's queue if it is there. The head
// (a drain, an expiry) goes without moving the rest, and a batch known
// not to be queued (acknowledged from the wire) costs no search, so a
// long backlog is linear, not quadratic.
func (ps *partState) unqueue(b *pbatch) {
	if !b.queued {
		return
	}
	b.queued = false
	if ps.queue[0] == b {
		ps.queue = popFront(ps.queue)
		return
	}
	if i := slices.Index(ps.queue, b); i >= 0 {
		ps.queue = slices.Delete(ps.queue, i, i+1)
	}
}

func (p *Producer) result(now sim.Time, r model.Record, err model.ErrCode, off int64) {
	o := model.Outcome{ID: r.ID, Partition: r.Partition, Err: err, Offset: off, SentAt: r.SentAt, At: now, Digest: r.Digest, Txn: p.txnMode()}
	p.txnRecord(o)
	p.pool.results = append(p.pool.results, o)
	p.out = append(p.out, model.Out{Kind: model.OutResult, Result: &p.pool.results[len(p.pool.results)-1]})
}

// begin starts a call's effects: the previous call's are dropped, and a
// buffer a burst grew past OutsKeptMax (a whole backlog expiring at once)
// is released rather than kept, with its notes, for the rest of the run.
func (p *Producer) begin() {
	if cap(p.out) > model.OutsKeptMax {
		// The burst's effects and the batches its notes point to are
		// the caller's now.
		p.out, p.pool.notes, p.pool.txnIDs, p.pool.results, p.pool.txns = nil, nil, nil, nil, nil
		return
	}
	p.out, p.pool.notes, p.pool.txnIDs = p.out[:0], p.pool.notes[:0], p.pool.txnIDs[:0]
	p.pool.results, p.pool.txns = p.pool.results[:0], p.pool.txns[:0]
}

// noteExpired reports b's expiry: a NoteExpired note pointing to a copy
// of b (the pbatch goes back to the free list at once), whose text the
// world makes only when a trace line is needed (ExpiredNote).
func (p *Producer) noteExpired(b *model.Batch) {
	// When the slice grows, the effects made earlier in the call keep
	// pointing into the old array, whose contents do not change.
	p.pool.notes = append(p.pool.notes, *b)
	p.out = append(p.out, model.Out{Kind: model.OutNote, NoteKind: model.NoteExpired, Batch: &p.pool.notes[len(p.pool.notes)-1]})
}

func (p *Producer) note(k model.NoteKind, s string) {
	p.out = append(p.out, model.Out{Kind: model.OutNote, NoteKind: k, Note: s})
}

// enterFatal stops the instance (transitionToFatalError). Batches not on
// the wire fail now with err (Sender.maybeAbortBatches); batches on the
// wire complete when their responses come or their requests time out, as
// in Kafka, but are never retried.
func (p *Producer) enterFatal(now sim.Time, err model.ErrCode) {
	if p.fatal != model.ErrNone {
		return
	}
	p.fatal = err
	p.note(model.NoteFatal, "fatal "+err.String()+": instance stops")
	p.abortQueued(now, err)
	p.txnFail(now, err)
}

// abortQueued fails every batch that is not on the wire.
func (p *Producer) abortQueued(now sim.Time, err model.ErrCode) {
	for _, ps := range p.parts {
		for len(ps.queue) > 0 {
			p.finish(now, ps.queue[0], err, -1)
		}
	}
}

// MetadataFlap tells the producer that the topic's metadata briefly said the
// topic does not exist (a restarting broker). A correct client keeps its
// partition state. With BugResetSeqOnMetadataFlap (librdkafka 1.9.0) each
// partition with nothing on the wire restarts its sequences at 0 under the
// same producer id and epoch.
func (p *Producer) MetadataFlap(now sim.Time) []model.Out {
	p.begin()
	if !p.cfg.BugResetSeqOnMetadataFlap || !p.cfg.EnableIdempotence {
		p.note(model.NoteInfo, "metadata flap: partition state kept")
		return p.out
	}
	for _, ps := range p.parts {
		if ps.onWire > 0 || len(ps.unacked) > 0 {
			continue
		}
		ps.nextSeq, ps.lastAckedSeq = 0, -1
		p.note(model.NoteInfo, "bug Z11: metadata flap drops p"+strconv.FormatInt(int64(ps.id), 10)+"'s state: sequences restart at 0")
	}
	p.poll(now)
	return p.out
}
