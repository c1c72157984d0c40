package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/sim"
)

// DestCoordinator is the destination of requests to the transaction
// coordinator (InitProducerId). Brokers are destinations 0, 1, ...
const DestCoordinator int32 = -1

// OutKind is the kind of an effect a producer asks its world to carry out.
type OutKind uint8

// Producer effects.
const (
	// OutSend: send Msg to Dest on the producer's current connection.
	OutSend OutKind = iota
	// OutConnect: open a new connection to Dest.
	OutConnect
	// OutClose: close the connection to Dest; what is on it is lost.
	OutClose
	// OutWake: call Producer.Wake at At with token Timer.
	OutWake
	// OutResult: report a record's outcome to the application.
	OutResult
	// OutNote: a state change worth a trace line (Note).
	OutNote
)

// Out is one effect.
type Out struct {
	Kind  OutKind
	Dest  int32
	Msg   Message
	At    sim.Time
	Timer uint64
	// Result is set for OutResult.
	Result Outcome
	// Note is set for OutNote; NoteKind classifies it.
	Note     string
	NoteKind NoteKind
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
}

// pbatch is a producer batch (ProducerBatch) with its client bookkeeping.
type pbatch struct {
	b         Batch
	createdAt sim.Time
	hasSeq    bool
	attempts  int32
	retryAt   sim.Time
	inRetry   bool // re-enqueued at least once
	resetSeq  bool // sequence rewritten by an epoch bump
	req       *prequest
	done      bool
}

// partState is the client's state for one partition (TxnPartitionEntry plus
// the accumulator's deque).
type partState struct {
	id int32
	// queue holds batches not on the wire: sequenced retries first, in
	// sequence order, then new batches in creation order.
	queue []*pbatch
	// unacked holds every sequenced, unfinished batch (on the wire or
	// queued for retry), in sequence order (Kafka's inflightBatches).
	unacked      []*pbatch
	pid          ProducerID
	epoch        int16
	nextSeq      int32
	lastAckedSeq int32
	unresolved   bool
	bumpWanted   bool
	onWire       int // batches of this partition on the wire
}

// prequest is one produce or InitProducerId request on the wire.
type prequest struct {
	corr    int64
	dest    int32
	batches []*pbatch
	sentAt  sim.Time
	init    bool
}

// dconn is the producer's connection to one destination.
type dconn struct {
	dest        int32
	ready       bool
	reconnectAt sim.Time
	inflight    []*prequest
}

// Producer models a Kafka producer instance (KafkaProducer with its Sender,
// RecordAccumulator and TransactionManager) as a pure state machine: the
// application calls [Producer.Send], the world feeds in responses,
// disconnects and wake-ups, and every call returns the effects to carry out.
// The returned slice is valid until the next call.
type Producer struct {
	cfg     ProducerConfig
	app     int32
	rng     *rand.Rand
	leaders []int32 // leader destination per partition

	pid       ProducerID
	epoch     int16
	initSent  bool
	fatal     ErrCode
	bumps     int
	parts     []*partState
	conns     []*dconn
	nextCorr  int64
	wakeAt    sim.Time
	wakeToken uint64
	out       []Out
}

// NewProducer returns producer instance for application app, writing to
// len(leaders) partitions, partition i led by broker leaders[i]. cfg must
// come from [ProducerConfig.Resolve]. rng is the instance's own stream.
func NewProducer(cfg ProducerConfig, app int32, leaders []int32, rng *rand.Rand) *Producer {
	p := &Producer{cfg: cfg, app: app, rng: rng, leaders: leaders, pid: NoProducerID, epoch: NoEpoch, wakeAt: -1}
	for i := range leaders {
		p.parts = append(p.parts, &partState{id: int32(i), pid: NoProducerID, epoch: NoEpoch, lastAckedSeq: -1})
	}
	return p
}

// Config returns the producer's effective configuration.
func (p *Producer) Config() ProducerConfig { return p.cfg }

// PID returns the current producer id and epoch (NoProducerID before
// InitProducerId completes, or without idempotence).
func (p *Producer) PID() (ProducerID, int16) { return p.pid, p.epoch }

// Fatal returns the error that put the instance in its fatal state, or
// ErrNone.
func (p *Producer) Fatal() ErrCode { return p.fatal }

// EpochBumps returns how many times this instance bumped its epoch.
func (p *Producer) EpochBumps() int { return p.bumps }

// Pending returns the number of records sent by the application whose
// outcome is not yet known.
func (p *Producer) Pending() int {
	n := 0
	for _, ps := range p.parts {
		for _, b := range ps.queue {
			n += len(b.b.Records)
		}
		for _, b := range ps.unacked {
			if b.req != nil {
				n += len(b.b.Records)
			}
		}
	}
	return n
}

// Start begins the instance: an idempotent producer asks for a producer id.
func (p *Producer) Start(now sim.Time) []Out {
	p.out = p.out[:0]
	p.poll(now)
	return p.out
}

// Send is the application's send of rec.
func (p *Producer) Send(now sim.Time, rec Record) []Out {
	p.out = p.out[:0]
	if p.fatal != ErrNone {
		p.result(now, rec, p.fatal, -1)
		return p.out
	}
	ps := p.parts[rec.Partition]
	var last *pbatch
	if n := len(ps.queue); n > 0 {
		last = ps.queue[n-1]
	}
	if last == nil || last.hasSeq || last.attempts > 0 || len(last.b.Records) >= p.cfg.BatchSize {
		last = &pbatch{b: Batch{Partition: rec.Partition, PID: NoProducerID, Epoch: NoEpoch, FirstSeq: NoSequence, LastSeq: NoSequence, Transactional: p.cfg.TransactionalID != ""}, createdAt: now}
		ps.queue = append(ps.queue, last)
	}
	last.b.Records = append(last.b.Records, rec)
	p.poll(now)
	return p.out
}

// Wake is a wake-up the producer asked for with OutWake. Stale tokens are
// ignored.
func (p *Producer) Wake(now sim.Time, token uint64) []Out {
	p.out = p.out[:0]
	if token != p.wakeToken {
		return p.out
	}
	p.wakeAt = -1
	p.poll(now)
	return p.out
}

// Disconnected tells the producer its connection to dest broke; every
// request on it fails with NETWORK_EXCEPTION, which is retriable.
func (p *Producer) Disconnected(now sim.Time, dest int32) []Out {
	p.out = p.out[:0]
	c := p.conn(dest)
	if c.ready {
		p.dropConn(now, c, ErrNetworkException)
	}
	p.poll(now)
	return p.out
}

// Receive handles a response from dest.
func (p *Producer) Receive(now sim.Time, dest int32, m Message) []Out {
	p.out = p.out[:0]
	c := p.conn(dest)
	var corr int64
	switch r := m.(type) {
	case *ProduceResponse:
		corr = r.CorrelationID
	case *InitProducerIDResponse:
		corr = r.CorrelationID
	default:
		panic("model: producer received a request")
	}
	i := slices.IndexFunc(c.inflight, func(q *prequest) bool { return q.corr == corr })
	if i < 0 {
		p.note(NoteInfo, "ignored response to closed request #"+strconv.FormatInt(corr, 10))
		p.poll(now)
		return p.out
	}
	q := c.inflight[i]
	c.inflight = slices.Delete(c.inflight, i, i+1)
	switch r := m.(type) {
	case *ProduceResponse:
		for _, pr := range r.Partitions {
			for _, b := range q.batches {
				if b.b.Partition == pr.Partition && b.req == q {
					p.complete(now, b, pr.Err, pr.BaseOffset)
				}
			}
		}
	case *InitProducerIDResponse:
		p.initSent = false
		p.handleInit(now, r)
	}
	p.poll(now)
	return p.out
}

func (p *Producer) handleInit(now sim.Time, r *InitProducerIDResponse) {
	switch {
	case r.Err == ErrNone:
		p.pid, p.epoch = r.PID, r.Epoch
		p.note(NotePID, "producer id "+strconv.FormatInt(int64(r.PID), 10)+" epoch "+strconv.Itoa(int(r.Epoch)))
	case r.Err == ErrProducerFenced || r.Err == ErrInvalidProducerEpoch:
		p.enterFatal(now, ErrProducerFenced)
	default:
		// Retriable (CONCURRENT_TRANSACTIONS, coordinator errors): ask
		// again on the next poll after a backoff.
		p.note(NoteRetry, "InitProducerId "+r.Err.String()+", retrying")
	}
}

func (p *Producer) conn(dest int32) *dconn {
	for _, c := range p.conns {
		if c.dest == dest {
			return c
		}
	}
	c := &dconn{dest: dest}
	p.conns = append(p.conns, c)
	return c
}

// dropConn fails every request on c with err, closes it and schedules the
// reconnect (NetworkClient's disconnect handling).
func (p *Producer) dropConn(now sim.Time, c *dconn, err ErrCode) {
	reqs := c.inflight
	c.inflight = nil
	c.ready = false
	c.reconnectAt = now.Add(p.cfg.ReconnectBackoff)
	p.out = append(p.out, Out{Kind: OutClose, Dest: c.dest})
	for _, q := range reqs {
		if q.init {
			p.initSent = false
			continue
		}
		for _, b := range q.batches {
			if b.req == q {
				p.complete(now, b, err, -1)
			}
		}
	}
}

// complete handles one partition's outcome for batch b (Sender.completeBatch
// and TransactionManager's error handling, spec C5).
func (p *Producer) complete(now sim.Time, b *pbatch, err ErrCode, offset int64) {
	ps := p.parts[b.b.Partition]
	b.req = nil
	ps.onWire--
	if b.done {
		return // already expired to the application (C7)
	}
	switch {
	case err == ErrNone || err == ErrDuplicateSequenceNumber:
		if err == ErrDuplicateSequenceNumber {
			offset = -1
		}
		p.finish(now, b, ErrNone, offset)
		if b.hasSeq && b.b.Epoch == ps.epoch && p.seqAfter(b.b.LastSeq, ps.lastAckedSeq) {
			ps.lastAckedSeq = b.b.LastSeq
		}
	case err == ErrOutOfOrderSequenceNumber || err == ErrUnknownProducerID:
		head := ps.lastAckedSeq == -1 && b.b.FirstSeq == 0 || p.cfg.Seq.Next(ps.lastAckedSeq, b.b.FirstSeq)
		bump := false
		switch p.cfg.Policy {
		case PolicyJava:
			bump = head && !b.resetSeq && !ps.unresolved
		case PolicyLibrdkafka:
			bump = err == ErrUnknownProducerID
		}
		if bump {
			if p.cfg.TransactionalID != "" {
				// C5.3: a transactional producer fails the batch and needs
				// abort + InitProducerId; idemsim models the application's
				// abort as failing the batch and re-initialising.
				p.finish(now, b, err, -1)
				ps.bumpWanted = true
				return
			}
			ps.bumpWanted = true
			p.note(NoteRetry, err.String()+" on head batch p"+strconv.Itoa(int(ps.id))+" seq "+strconv.Itoa(int(b.b.FirstSeq))+": epoch bump requested")
		}
		p.retry(now, b, err)
	case err == ErrInvalidProducerEpoch || err == ErrProducerFenced:
		if p.cfg.TransactionalID != "" || err == ErrProducerFenced {
			// A transactional producer's next step, abortTransaction and
			// EndTxn at the stale epoch, is answered PRODUCER_FENCED,
			// which is fatal (T2.4); idemsim goes there directly.
			p.finish(now, b, err, -1)
			p.enterFatal(now, ErrProducerFenced)
			return
		}
		// C5.4: an idempotent producer fails the batch and bumps.
		p.finish(now, b, err, -1)
		ps.bumpWanted = true
	case err.Retriable():
		p.retry(now, b, err)
	default:
		// C5.9: a definitive failure.
		p.finish(now, b, err, -1)
		if b.hasSeq && b.attempts < p.cfg.Retries {
			ps.bumpWanted = true
		}
	}
}

// retry re-enqueues b with backoff, or fails it when it cannot be retried
// (Sender.canRetry).
func (p *Producer) retry(now sim.Time, b *pbatch, err ErrCode) {
	if b.attempts >= p.cfg.Retries || now >= b.createdAt.Add(p.cfg.DeliveryTimeout) {
		p.finish(now, b, err, -1)
		return
	}
	ps := p.parts[b.b.Partition]
	b.inRetry = true
	b.retryAt = now.Add(p.backoff(b.attempts))
	p.reenqueue(ps, b)
}

// reenqueue inserts b back into its partition's queue: by sequence among
// sequenced batches (RecordAccumulator.insertInSequenceOrder), or at the
// front without idempotence.
func (p *Producer) reenqueue(ps *partState, b *pbatch) {
	i := 0
	if b.hasSeq {
		for i < len(ps.queue) && ps.queue[i].hasSeq && p.seqBefore(ps.queue[i], b) {
			i++
		}
	}
	ps.queue = slices.Insert(ps.queue, i, b)
}

// seqBefore orders two sequenced batches of one partition: older epoch first,
// then by position in the unacked list (which is in sequence order, wrap
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
// retry.backoff.max.ms, with ±20% jitter (KIP-580).
func (p *Producer) backoff(attempts int32) time.Duration {
	d := float64(p.cfg.RetryBackoff)
	if attempts > 1 {
		d *= math.Pow(2, float64(min(attempts-1, 30)))
	}
	if m := float64(p.cfg.RetryBackoffMax); d > m && m >= float64(p.cfg.RetryBackoff) {
		d = m
	}
	if d <= 0 {
		return 0
	}
	j := 0.8 + 0.4*p.rng.Float64()
	return time.Duration(int64(d*j/1e3) * 1e3) // whole microseconds
}

// finish ends b with an outcome for each record.
func (p *Producer) finish(now sim.Time, b *pbatch, err ErrCode, offset int64) {
	if b.done {
		return
	}
	b.done = true
	ps := p.parts[b.b.Partition]
	if i := slices.Index(ps.unacked, b); i >= 0 {
		ps.unacked = slices.Delete(ps.unacked, i, i+1)
	}
	if i := slices.Index(ps.queue, b); i >= 0 {
		ps.queue = slices.Delete(ps.queue, i, i+1)
	}
	for i, r := range b.b.Records {
		off := int64(-1)
		if err == ErrNone && offset >= 0 {
			off = offset + int64(i)
		}
		p.result(now, r, err, off)
	}
}

func (p *Producer) result(now sim.Time, r Record, err ErrCode, off int64) {
	p.out = append(p.out, Out{Kind: OutResult, Result: Outcome{ID: r.ID, Partition: r.Partition, Err: err, Offset: off, SentAt: r.SentAt, At: now, Digest: r.Digest}})
}

func (p *Producer) note(k NoteKind, s string) {
	p.out = append(p.out, Out{Kind: OutNote, NoteKind: k, Note: s})
}

// enterFatal stops the instance: every unfinished record fails.
func (p *Producer) enterFatal(now sim.Time, err ErrCode) {
	if p.fatal != ErrNone {
		return
	}
	p.fatal = err
	p.note(NoteFatal, "fatal "+err.String()+": instance stops")
	for _, ps := range p.parts {
		for len(ps.queue) > 0 {
			p.finish(now, ps.queue[0], err, -1)
		}
		for len(ps.unacked) > 0 {
			p.finish(now, ps.unacked[0], err, -1)
		}
	}
}

// poll is one pass of the sender loop (Sender.runOnce).
func (p *Producer) poll(now sim.Time) {
	if p.fatal != ErrNone {
		return
	}
	p.checkRequestTimeouts(now)
	p.expireBatches(now)
	idem := p.cfg.EnableIdempotence
	if idem {
		p.maybeResolve()
		p.maybeBump(now)
		if p.pid == NoProducerID {
			p.sendInit(now)
		}
	}
	if !idem || p.pid != NoProducerID {
		p.drain(now)
	}
	p.scheduleWake(now)
}

func (p *Producer) checkRequestTimeouts(now sim.Time) {
	for _, c := range p.conns {
		for _, q := range c.inflight {
			if now >= q.sentAt.Add(p.cfg.RequestTimeout) {
				p.note(NoteRetry, "request #"+strconv.FormatInt(q.corr, 10)+" timed out: disconnecting")
				p.dropConn(now, c, ErrRequestTimedOut)
				break
			}
		}
	}
}

// expireBatches fails batches past delivery.timeout.ms (C7.1, C7.2).
func (p *Producer) expireBatches(now sim.Time) {
	for _, ps := range p.parts {
		for _, list := range [][]*pbatch{slices.Clone(ps.unacked), slices.Clone(ps.queue)} {
			for _, b := range list {
				if b.done || now < b.createdAt.Add(p.cfg.DeliveryTimeout) {
					continue
				}
				if b.hasSeq && b.inRetry && !ps.unresolved {
					ps.unresolved = true
				}
				p.note(NoteExpired, "batch p"+strconv.Itoa(int(ps.id))+" expired after delivery.timeout.ms")
				p.finish(now, b, ErrDeliveryTimeout, -1)
			}
		}
	}
}

// maybeResolve settles unresolved partitions once nothing of theirs is on
// the wire (TransactionManager.maybeResolveSequences, C7.4).
func (p *Producer) maybeResolve() {
	for _, ps := range p.parts {
		if !ps.unresolved || ps.onWire > 0 || len(ps.unacked) > 0 {
			continue
		}
		ps.unresolved = false
		if ps.lastAckedSeq == -1 && ps.nextSeq == 0 || ps.lastAckedSeq >= 0 && p.cfg.Seq.Next(ps.lastAckedSeq, ps.nextSeq) {
			continue
		}
		ps.bumpWanted = true
	}
}

// maybeBump carries out a requested epoch bump locally (C6.1) and switches
// idle partitions to the current epoch (C6.2).
func (p *Producer) maybeBump(now sim.Time) {
	want := false
	for _, ps := range p.parts {
		want = want || ps.bumpWanted
	}
	if want && p.pid != NoProducerID {
		if p.cfg.TransactionalID != "" {
			// The coordinator bumps a transactional producer (C6.3).
			p.requestInit(true)
		} else if p.epoch == math.MaxInt16 {
			// C6.4: an exhausted epoch gets a new producer id.
			p.note(NoteEpochBump, "epoch exhausted: requesting a new producer id")
			p.pid, p.epoch = NoProducerID, NoEpoch
		} else {
			p.bumps++
			p.note(NoteEpochBump, "epoch bump "+strconv.Itoa(int(p.epoch))+" -> "+strconv.Itoa(int(p.epoch)+1)+" (local)")
			p.epoch++
		}
		for _, ps := range p.parts {
			if !ps.bumpWanted {
				continue
			}
			ps.bumpWanted = false
			p.resetPartition(ps)
		}
	}
	// C6.2: a partition adopts the current pid/epoch once it has nothing
	// of the old one in flight.
	for _, ps := range p.parts {
		if (ps.pid != p.pid || ps.epoch != p.epoch) && len(ps.unacked) == 0 {
			ps.pid, ps.epoch = p.pid, p.epoch
			ps.nextSeq, ps.lastAckedSeq = 0, -1
		}
	}
}

// resetPartition renumbers a partition's unacknowledged batches from 0
// under the new pid/epoch. Batches on the wire are detached from their
// requests: a late response for them is ignored and they are sent again.
func (p *Producer) resetPartition(ps *partState) {
	for _, b := range ps.unacked {
		if b.req != nil {
			b.req = nil
			ps.onWire--
			b.retryAt = 0
			p.reenqueue(ps, b)
		}
	}
	ps.pid, ps.epoch = p.pid, p.epoch
	seq := int32(0)
	for _, b := range ps.unacked {
		n := int64(len(b.b.Records))
		b.b.PID, b.b.Epoch = p.pid, p.epoch
		b.b.FirstSeq = seq
		b.b.LastSeq = p.cfg.Seq.Add(seq, n-1)
		b.resetSeq = true
		seq = p.cfg.Seq.Add(seq, n)
	}
	ps.nextSeq = seq
	ps.lastAckedSeq = -1
	ps.unresolved = false
	if p.pid == NoProducerID {
		ps.epoch = NoEpoch
	}
}

func (p *Producer) requestInit(bump bool) {
	if bump {
		p.note(NoteEpochBump, "epoch bump requested from the coordinator")
		p.pid, p.epoch = NoProducerID, NoEpoch
	}
}

func (p *Producer) sendInit(now sim.Time) {
	if p.initSent {
		return
	}
	c := p.conn(DestCoordinator)
	if !p.ensureConn(now, c) {
		return
	}
	p.initSent = true
	p.nextCorr++
	req := &InitProducerIDRequest{CorrelationID: p.nextCorr, TransactionalID: p.cfg.TransactionalID, ExpectedPID: NoProducerID, ExpectedEpoch: NoEpoch}
	q := &prequest{corr: p.nextCorr, dest: DestCoordinator, sentAt: now, init: true}
	c.inflight = append(c.inflight, q)
	p.out = append(p.out, Out{Kind: OutSend, Dest: DestCoordinator, Msg: req})
}

// ensureConn connects c if it is down and its reconnect backoff is over.
func (p *Producer) ensureConn(now sim.Time, c *dconn) bool {
	if c.ready {
		return true
	}
	if now < c.reconnectAt {
		return false
	}
	c.ready = true
	p.out = append(p.out, Out{Kind: OutConnect, Dest: c.dest})
	return true
}

// drain sends ready batches, at most max.in.flight requests per connection
// (RecordAccumulator.drain and Sender.sendProduceRequests).
func (p *Producer) drain(now sim.Time) {
	for dest := int32(0); ; dest++ {
		any := false
		for _, l := range p.leaders {
			any = any || l == dest
		}
		if !any {
			if int(dest) >= len(p.leaders) {
				return
			}
			continue
		}
		c := p.conn(dest)
		for len(c.inflight) < p.cfg.MaxInFlight {
			var batches []*pbatch
			for _, ps := range p.parts {
				if p.leaders[ps.id] != dest {
					continue
				}
				if b := p.drainable(now, ps); b != nil {
					batches = append(batches, b)
				}
			}
			if len(batches) == 0 {
				break
			}
			if !p.ensureConn(now, c) {
				break
			}
			p.nextCorr++
			q := &prequest{corr: p.nextCorr, dest: dest, sentAt: now, batches: batches}
			req := &ProduceRequest{CorrelationID: q.corr, Acks: p.cfg.Acks, TransactionalID: p.cfg.TransactionalID}
			for _, b := range batches {
				ps := p.parts[b.b.Partition]
				ps.queue = slices.DeleteFunc(ps.queue, func(x *pbatch) bool { return x == b })
				if p.cfg.EnableIdempotence && !b.hasSeq {
					n := int64(len(b.b.Records))
					b.b.PID, b.b.Epoch = ps.pid, ps.epoch
					b.b.FirstSeq = ps.nextSeq
					b.b.LastSeq = p.cfg.Seq.Add(ps.nextSeq, n-1)
					ps.nextSeq = p.cfg.Seq.Add(ps.nextSeq, n)
					b.hasSeq = true
					ps.unacked = append(ps.unacked, b)
				} else if !p.cfg.EnableIdempotence && !slices.Contains(ps.unacked, b) {
					ps.unacked = append(ps.unacked, b)
				}
				b.attempts++
				b.req = q
				ps.onWire++
				req.Batches = append(req.Batches, b.b)
			}
			c.inflight = append(c.inflight, q)
			p.out = append(p.out, Out{Kind: OutSend, Dest: dest, Msg: req})
			if p.cfg.Acks == 0 {
				// acks=0: the request completes as soon as it is sent.
				c.inflight = c.inflight[:len(c.inflight)-1]
				for _, b := range q.batches {
					p.complete(now, b, ErrNone, -1)
				}
			}
		}
	}
}

// drainable returns the partition's batch to send now, or nil
// (RecordAccumulator.ready/drain and shouldStopDrainBatchesForPartition).
func (p *Producer) drainable(now sim.Time, ps *partState) *pbatch {
	if len(ps.queue) == 0 {
		return nil
	}
	b := ps.queue[0]
	if now < b.retryAt {
		return nil
	}
	if p.cfg.MaxInFlight == 1 && ps.onWire > 0 {
		return nil // guaranteeMessageOrder mutes the partition
	}
	if p.cfg.EnableIdempotence {
		if b.hasSeq {
			// Retry mode: only the lowest unacknowledged sequence may go,
			// and only when nothing else of the partition is on the wire.
			if len(ps.unacked) > 0 && ps.unacked[0] != b {
				return nil
			}
			if b.b.PID != ps.pid || b.b.Epoch != ps.epoch {
				return nil
			}
			return b
		}
		if ps.unresolved || ps.pid != p.pid || ps.epoch != p.epoch {
			return nil
		}
		for _, u := range ps.unacked {
			if u.req == nil {
				return nil // retries first
			}
		}
	}
	if len(b.b.Records) < p.cfg.BatchSize && now < b.createdAt.Add(p.cfg.Linger) {
		return nil
	}
	return b
}

// scheduleWake asks for a wake-up at the earliest deadline.
func (p *Producer) scheduleWake(now sim.Time) {
	next := sim.Time(math.MaxInt64)
	at := func(t sim.Time) {
		// A deadline at or before now was handled by this poll; what is
		// still waiting then waits for a response, not for time.
		if t > now && t < next {
			next = t
		}
	}
	for _, c := range p.conns {
		if !c.ready && c.reconnectAt > now {
			at(c.reconnectAt)
		}
		for _, q := range c.inflight {
			at(q.sentAt.Add(p.cfg.RequestTimeout))
		}
	}
	for _, ps := range p.parts {
		for _, b := range ps.unacked {
			at(b.createdAt.Add(p.cfg.DeliveryTimeout))
		}
		for i, b := range ps.queue {
			at(b.createdAt.Add(p.cfg.DeliveryTimeout))
			if i == 0 {
				if b.retryAt > now {
					at(b.retryAt)
				}
				if !b.hasSeq && len(b.b.Records) < p.cfg.BatchSize {
					at(b.createdAt.Add(p.cfg.Linger))
				}
			}
		}
	}
	if next == math.MaxInt64 {
		return
	}
	if p.wakeAt >= 0 && p.wakeAt <= next && p.wakeAt > now {
		return
	}
	p.wakeAt = next
	p.wakeToken++
	p.out = append(p.out, Out{Kind: OutWake, At: next, Timer: p.wakeToken})
}
