package client

import (
	"math"
	"slices"
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// poll is one pass of the sender loop (Sender.runOnce).
func (p *Producer) poll(now sim.Time) {
	if p.fatal != model.ErrNone {
		// A fatal instance sends nothing more, but its network client
		// still times out requests (Sender.runOnce returns early after
		// maybeAbortBatches; client.poll keeps running).
		p.checkRequestTimeouts(now)
		p.abortQueued(now, p.fatal)
		p.scheduleWake(now)
		return
	}
	p.checkRequestTimeouts(now)
	if p.nagle {
		p.nagleTimers(now) // nagle.go
	}
	idem := p.cfg.EnableIdempotence
	if idem {
		p.maybeResolve(now)
		p.maybeBump(now)
		if p.abortErr != model.ErrNone {
			// Abortable error: undrained batches fail
			// (accumulator.abortUndrainedBatches).
			p.abortQueued(now, p.abortErr)
		}
		if p.fatal != model.ErrNone {
			p.scheduleWake(now)
			return
		}
		p.txnStep(now)
		if p.pid == model.NoProducerID || p.txnBump && p.nothingOnWire() && !p.txnEnding() {
			p.sendInit(now)
		}
	}
	if p.expireBatches(now) && idem && p.fatal == model.ErrNone {
		// Kafka's sender loop runs again at once: an expiry can leave a
		// partition unresolved with nothing in flight
		// (TransactionManager.maybeResolveSequences).
		p.maybeResolve(now)
		p.maybeBump(now)
		if p.abortErr != model.ErrNone {
			p.abortQueued(now, p.abortErr)
		}
		p.txnStep(now)
		if p.txnBump && p.nothingOnWire() && !p.txnEnding() {
			p.sendInit(now)
		}
	}
	if p.fatal != model.ErrNone {
		p.scheduleWake(now)
		return
	}
	drains := !idem || p.pid != model.NoProducerID && !p.txnBump && !p.rdkBump
	if p.hintMoved {
		// A leader hint moved a partition: the Java client's next
		// Sender.runOnce sends the retry (sendProducerData) before its
		// NetworkClient.poll sends the Metadata request the error asked
		// for (DefaultMetadataUpdater.maybeUpdate).
		p.hintMoved = false
		if drains && !p.drainLater {
			p.drain(now)
		}
		p.maybeUpdateMetadata(now)
		p.scheduleWake(now)
		return
	}
	p.maybeUpdateMetadata(now)
	if drains && !p.drainLater {
		p.drain(now)
	}
	p.scheduleWake(now)
}

func (p *Producer) nothingOnWire() bool {
	for _, ps := range p.parts {
		if ps.onWire > 0 {
			return false
		}
	}
	return true
}

// checkRequestTimeouts disconnects a connection with a request older than
// request.timeout.ms; all its requests then fail with REQUEST_TIMED_OUT
// (NetworkClient.handleTimedOutRequests).
func (p *Producer) checkRequestTimeouts(now sim.Time) {
	for _, c := range p.conns {
		for _, q := range c.inflight {
			if now >= q.sentAt.Add(p.cfg.RequestTimeout) {
				p.note(model.NoteRetry, "request #"+strconv.FormatInt(q.corr, 10)+" timed out: disconnecting")
				p.dropConn(now, c, model.ErrRequestTimedOut)
				break
			}
		}
	}
}

// expireBatches fails batches that reached delivery.timeout.ms, counted
// from creation, on the wire or queued (Sender.sendProducerData).
// A batch that had been re-enqueued makes its partition unresolved
// (markSequenceUnresolved).
func (p *Producer) expireBatches(now sim.Time) bool {
	any := false
	for _, ps := range p.parts {
		if o, ok := p.oldestLive(ps); !ok || now < o.Add(p.cfg.DeliveryTimeout) {
			continue // nothing of this partition is old enough (fast path)
		}
		// The expired batches, on the wire or queued, are a prefix of the
		// live list (creation order).
		exp := p.pool.expBuf[:0]
		for _, b := range ps.live {
			if now < b.createdAt.Add(p.cfg.DeliveryTimeout) {
				break
			}
			if !b.done {
				exp = append(exp, b)
			}
		}
		// Room for a note and an outcome per record at once: a backlog
		// expiring together would otherwise grow the buffer by
		// doubling, copying it each time.
		if len(exp) > model.OutsKeptMax/4 {
			n := 0
			for _, b := range exp {
				n += 1 + len(b.b.Records)
			}
			p.out = slices.Grow(p.out, n)
			p.pool.notes = slices.Grow(p.pool.notes, len(exp))
			p.pool.results = slices.Grow(p.pool.results, n-len(exp))
		}
		// rewind is the first expired batch freed for reuse (bug Z11f).
		var rewind *pbatch
		for _, b := range exp {
			if b.done {
				continue
			}
			any = true
			p.noteExpired(&b.b)
			p.failBatch(now, b, model.ErrDeliveryTimeout, false)
			if p.policy.expiredGap(p, b) {
				if p.fatal != model.ErrNone {
					p.pool.expBuf = clearBatches(exp)
					return true
				}
				continue
			}
			if p.cfg.BugReuseExpiredSeq && b.hasSeq {
				if rewind == nil {
					rewind = b
				}
				continue
			}
			if p.cfg.EnableIdempotence && b.hasSeq && b.inRetry {
				p.markUnresolved(ps, b)
			}
			if p.fatal != model.ErrNone {
				p.pool.expBuf = clearBatches(exp)
				return true
			}
		}
		p.pool.expBuf = clearBatches(exp)
		// franz-go #1217 (bug Z11f): the producer takes the expired
		// batch as never written and rewinds the partition's sequence to
		// it; later batches not on the wire lose their sequences and are
		// numbered again when drained.
		if rewind != nil {
			ps.nextSeq = rewind.b.FirstSeq
			keep := ps.unacked[:0]
			for _, u := range ps.unacked {
				if u.req == nil && !u.done {
					u.hasSeq, u.resetSeq = false, false
					u.b.PID, u.b.Epoch, u.b.FirstSeq, u.b.LastSeq = model.NoProducerID, model.NoEpoch, model.NoSequence, model.NoSequence
					continue
				}
				keep = append(keep, u)
			}
			ps.unacked = keep
			p.note(model.NoteInfo, "bug Z11f: p"+strconv.FormatInt(int64(ps.id), 10)+" rewinds its sequence to "+strconv.FormatInt(int64(rewind.b.FirstSeq), 10)+" after an expired batch")
		}
	}
	return any
}

// markUnresolved marks b's partition unresolved after b expired
// (TransactionManager.markSequenceUnresolved): the next sequence is the
// batch's last plus one, the larger one if the partition is unresolved
// already, in the client's arithmetic (clientPolicy.unresolvedNext).
func (p *Producer) markUnresolved(ps *partState, b *pbatch) {
	p.policy.unresolvedNext(p, ps, b)
	ps.unresolved = true
}

// maybeResolve settles unresolved partitions once none of their sequenced
// batches is unfinished (TransactionManager.maybeResolveSequences).
// Like Kafka, it does not wait for expired batches whose requests are
// still on the wire.
func (p *Producer) maybeResolve(now sim.Time) {
	for _, ps := range p.parts {
		if !ps.unresolved || len(ps.unacked) > 0 {
			continue
		}
		ps.unresolved = false
		if p.policy.isNextSeq(p, ps, ps.nextSeq) {
			continue // a later batch was acked: the expired ones were written
		}
		if p.cfg.TransactionalID != "" {
			p.abortable(now, model.ErrDeliveryTimeout)
			continue
		}
		p.note(model.NoteRetry, "p"+strconv.Itoa(int(ps.id))+" unresolved after expiry: epoch bump requested")
		ps.bumpWanted = true
	}
}

// maybeBump carries out a requested idempotent epoch bump locally, before
// anything is sent (TransactionManager.bumpIdempotentEpochAndResetIdIfNeeded;
// KIP-360). A transactional producer's bump goes through the coordinator
// instead (abort, then InitProducerId with the current pair;
// TransactionManager.beginCompletingTransaction): its requests are
// dropped here and txnBump is set by the abortable error. The client
// policy's producer-wide bump comes first
// (clientPolicy.bumpAll).
func (p *Producer) maybeBump(now sim.Time) {
	if p.policy.bumpAll(p) {
		return
	}
	want := false
	for _, ps := range p.parts {
		want = want || ps.bumpWanted
	}
	if !want || p.pid == model.NoProducerID {
		return
	}
	if p.cfg.TransactionalID != "" {
		for _, ps := range p.parts {
			ps.bumpWanted = false
		}
		return
	}
	if p.epoch == math.MaxInt16 {
		// An exhausted epoch gets a new producer id
		// (TransactionManager.bumpIdempotentProducerEpoch).
		p.note(model.NoteEpochBump, "epoch exhausted: requesting a new producer id")
		p.pid, p.epoch = model.NoProducerID, model.NoEpoch
	} else {
		p.bumps++
		p.note(model.NoteEpochBump, "epoch bump "+strconv.Itoa(int(p.epoch))+" -> "+strconv.Itoa(int(p.epoch)+1)+" (local)")
		p.epoch++
	}
	for _, ps := range p.parts {
		if ps.bumpWanted {
			ps.bumpWanted = false
			p.resetPartition(ps, p.pid, p.epoch)
		}
	}
}

// rdkMaybeBump is the producer-wide bump of the librdkafka and franz-go
// policies (rdkBump): once nothing is on the wire, the epoch goes up by
// one and every partition's unfinished batches are renumbered from 0
// (the clients ask the coordinator; idemsim bumps locally).
func (p *Producer) rdkMaybeBump() {
	if !p.rdkBump || p.pid == model.NoProducerID || !p.nothingOnWire() {
		return
	}
	p.rdkBump = false
	p.bumps++
	p.note(model.NoteEpochBump, "epoch bump "+strconv.Itoa(int(p.epoch))+" -> "+strconv.Itoa(int(p.epoch)+1)+" (all partitions)")
	p.epoch++
	for _, ps := range p.parts {
		p.resetPartition(ps, p.pid, p.epoch)
	}
}

// resetPartition renumbers a partition's unacknowledged batches from 0
// under pid/epoch (TxnPartitionMap.startSequencesAtBeginning). As in
// Kafka, batches on the wire are rewritten in place: they stay on the
// wire with the old numbering, and their responses are handled as usual
// (an OUT_OF_ORDER_SEQUENCE_NUMBER then retries, since the sequence was
// reset).
func (p *Producer) resetPartition(ps *partState, pid model.ProducerID, epoch int16) {
	ps.pid, ps.epoch = pid, epoch
	seq := int32(0)
	for _, b := range ps.unacked {
		n := int64(len(b.b.Records))
		b.b.PID, b.b.Epoch = pid, epoch
		b.b.FirstSeq = seq
		b.b.LastSeq = p.cfg.Seq.Add(seq, n-1)
		b.resetSeq = true
		seq = p.cfg.Seq.Add(seq, n)
	}
	ps.nextSeq = seq
	ps.lastAckedSeq = -1
	ps.unresolved = false
	ps.ppNext = -1
	if pid == model.NoProducerID {
		ps.epoch = model.NoEpoch
	}
}

// sendInit sends InitProducerId to the coordinator: at start, after an
// exhausted epoch, or (transactional) for a KIP-360 bump with the current
// pid/epoch as the expected pair.
func (p *Producer) sendInit(now sim.Time) {
	if p.initSent || now < p.initRetryAt {
		return
	}
	tag := int32(0)
	if p.lookups() {
		// A transactional producer finds its coordinator first
		// (coordlookup.go).
		var ok bool
		if tag, ok = p.coordReady(now, model.CoordKeyTransaction); !ok {
			return
		}
	}
	c := p.conn(model.DestCoordinator)
	if !p.ensureConn(now, c) {
		return
	}
	p.initSent = true
	q := p.newRequest(model.DestCoordinator, now)
	q.init = true
	req := model.Carve(&p.pool.msgs.initReqs, model.InitProducerIDRequest{CorrelationID: q.corr, TransactionalID: p.cfg.TransactionalID, ExpectedPID: model.NoProducerID, ExpectedEpoch: model.NoEpoch, TransactionTimeout: p.cfg.TransactionTimeout, Coord: tag})
	if p.txnBump && p.pid != model.NoProducerID && !p.bumpInTxn {
		// KIP-360: the bump carries the current pair. Defect Z17's bump
		// re-initialises the producer id as at startup, without it (with
		// the pair the coordinator's fence would answer its retry
		// PRODUCER_FENCED, TransactionCoordinator.handleInitProducerId,
		// and the loss would not be silent).
		req.ExpectedPID, req.ExpectedEpoch = p.pid, p.epoch
	}
	c.inflight = append(grab(c.inflight, &c.spare), q)
	p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: model.DestCoordinator, Msg: req})
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
	p.out = append(p.out, model.Out{Kind: model.OutConnect, Dest: c.dest})
	return true
}

// drain sends ready batches, one per partition per request and at most
// max.in.flight requests per connection (RecordAccumulator.drain,
// Sender.sendProduceRequests). Destinations go in increasing order.
func (p *Producer) drain(now sim.Time) {
	maxDest := int32(-1)
	for _, l := range p.leaders {
		maxDest = max(maxDest, l)
	}
	for dest := int32(0); dest <= maxDest; dest++ {
		if !slices.Contains(p.leaders, dest) {
			continue
		}
		c := p.conn(dest)
		for len(c.inflight) < p.policy.maxInFlight(p, c) {
			batches := p.pool.drainBuf[:0]
			for _, ps := range p.parts {
				if p.leaders[ps.id] != dest {
					continue
				}
				if b := p.drainable(now, ps); b != nil {
					batches = append(batches, b)
				}
			}
			if len(batches) == 0 {
				break // nothing to send (the scratch list is untouched)
			}
			sent := p.ensureConn(now, c)
			if sent {
				p.sendProduce(now, c, batches)
			}
			clear(batches)
			p.pool.drainBuf = batches[:0]
			if !sent {
				break
			}
		}
	}
}

// sendProduce puts batches on the wire in one request, assigning sequences
// to first sends (RecordAccumulator.drainBatchesForOneNode). The
// request keeps its own list of the batches.
func (p *Producer) sendProduce(now sim.Time, c *dconn, batches []*pbatch) {
	q := p.newRequest(c.dest, now)
	q.batches = append(q.batches, batches...)
	req := p.pool.reqSlab.New()
	*req = model.ProduceRequest{CorrelationID: q.corr, Acks: p.cfg.Acks, LeaderHints: p.hints, TimeoutMs: int32(p.cfg.RequestTimeout.Milliseconds()), TransactionalID: p.cfg.TransactionalID, TransactionV2: p.txnV2(), AbortableError: p.cfg.AbortableError, Batches: p.pool.batchSlab.Slice(len(batches))}
	for i, b := range batches {
		ps := p.parts[b.b.Partition]
		ps.unqueue(b)
		if p.cfg.EnableIdempotence && !b.hasSeq {
			if ps.pid != p.pid || ps.epoch != p.epoch {
				// The partition adopts the producer's pid/epoch now
				// that nothing of the old one is in flight
				// (maybeUpdateProducerIdAndEpoch, KAFKA-12152).
				ps.pid, ps.epoch = p.pid, p.epoch
				ps.nextSeq, ps.lastAckedSeq = 0, -1
			}
			n := int64(len(b.b.Records))
			b.b.PID, b.b.Epoch = ps.pid, ps.epoch
			b.b.FirstSeq = ps.nextSeq
			b.b.LastSeq = p.cfg.Seq.Add(ps.nextSeq, n-1)
			ps.nextSeq = p.cfg.Seq.Add(ps.nextSeq, n)
			b.hasSeq = true
			p.addUnacked(ps, b)
		} else if !p.cfg.EnableIdempotence && !slices.Contains(ps.unacked, b) {
			ps.unacked = append(grab(ps.unacked, &ps.sp.unacked), b)
		}
		if b.b.Transactional {
			p.txn.sent = true
		}
		b.attempts++
		b.req = q
		b.refs++
		ps.onWire++
		req.Batches[i] = b.b
	}
	c.inflight = append(grab(c.inflight, &c.spare), q)
	if p.nagle {
		p.nagleWrite(now, c, q.corr, req) // nagle.go
	} else {
		p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: c.dest, Msg: req})
	}
	if p.cfg.Acks == 0 {
		// acks=0: the request completes as soon as it is sent.
		c.inflight[len(c.inflight)-1] = nil
		c.inflight = c.inflight[:len(c.inflight)-1]
		for _, b := range q.batches {
			p.complete(now, b, model.ErrNone, -1, 0, false)
		}
		p.retire(q)
	}
}

// addUnacked tracks a newly sequenced batch, in the client's order
// (clientPolicy.unackedAt; the Java client's in-flight TreeSet).
func (p *Producer) addUnacked(ps *partState, b *pbatch) {
	ps.unacked = slices.Insert(grab(ps.unacked, &ps.sp.unacked), p.policy.unackedAt(ps, b), b)
}

// drainable returns the partition's batch to send now, or nil
// (RecordAccumulator.ready/drain and shouldStopDrainBatchesForPartition).
func (p *Producer) drainable(now sim.Time, ps *partState) *pbatch {
	if len(ps.queue) == 0 {
		return nil
	}
	b := ps.queue[0]
	if now < b.retryAt {
		return nil // backing off
	}
	if ps.onWire > 0 && !p.policy.pipelines(p, ps) {
		return nil // the client keeps one request of the partition on the wire
	}
	if !p.txnDrainable(ps) {
		return nil // waits for AddPartitionsToTxn
	}
	if p.cfg.EnableIdempotence {
		if !p.policy.drainsNext(p, ps, b) {
			return nil // retry mode, or the client's own order
		}
		if !b.hasSeq {
			if len(ps.unacked) > 0 && (ps.pid != p.pid || ps.epoch != p.epoch) {
				return nil // in flight under an older pid/epoch (RecordAccumulator.shouldStopDrainBatchesForPartition: hasStaleProducerIdAndEpoch)
			}
			if ps.unresolved {
				return nil // an unresolved sequence (shouldStopDrainBatchesForPartition: hasUnresolvedSequence)
			}
		}
	}
	if !b.hasSeq && b.attempts == 0 && len(ps.queue) == 1 && len(b.b.Records) < p.cfg.BatchSize && now < b.createdAt.Add(p.cfg.Linger) {
		return nil // lingering
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
	if p.initRetryAt > now {
		at(p.initRetryAt)
	}
	for i := range p.coords {
		if l := &p.coords[i]; !l.Known && l.RetryAt > now {
			// A FindCoordinator answered COORDINATOR_NOT_AVAILABLE
			// (coordlookup.go).
			at(l.RetryAt)
		}
	}
	if p.metaStale && !p.metaInflight && p.metaRetryAt > now {
		at(p.metaRetryAt)
	}
	if p.txn.retryAt > now && p.fatal == model.ErrNone {
		// A transactional request (AddPartitionsToTxn, EndTxn, the
		// offsets requests) answered with a retriable error is sent again
		// after retry.backoff.ms.
		at(p.txn.retryAt)
	}
	for _, c := range p.conns {
		if !c.ready && c.reconnectAt > now {
			at(c.reconnectAt)
		}
		if len(c.inflight) > 0 {
			// Requests are sent, and so time out, in order.
			at(c.inflight[0].sentAt.Add(p.cfg.RequestTimeout))
		}
		if c.segOut && len(c.held) > 0 {
			at(c.segAt.Add(delayedAck)) // nagle.go
		}
	}
	if p.fatal == model.ErrNone {
		for _, ps := range p.parts {
			if o, ok := p.oldestLive(ps); ok {
				at(o.Add(p.cfg.DeliveryTimeout))
			}
			if len(ps.queue) > 0 {
				b := ps.queue[0]
				if b.retryAt > now {
					at(b.retryAt)
				}
				if !b.hasSeq && len(b.b.Records) < p.cfg.BatchSize {
					at(b.createdAt.Add(p.cfg.Linger))
				}
			}
		}
	}
	if p.drainLater {
		// The drain a produce answer deferred: at this instant, after
		// the events already due at it (a later wake replaces it).
		next = now
	}
	if next == math.MaxInt64 {
		return
	}
	if p.wakeAt >= 0 && p.wakeAt <= next && p.wakeAt > now {
		return
	}
	p.wakeAt = next
	p.wakeToken++
	p.out = append(p.out, model.Out{Kind: model.OutWake, At: next, Timer: p.wakeToken})
}

// oldestLive returns the creation time of the partition's oldest batch not
// yet finished: every delivery deadline of the partition is at or after it
// plus delivery.timeout.ms. Batches are created in time order, so the
// answer is the head of the live list once finished batches are dropped
// from it (amortised O(1)); a dropped batch may be recycled.
func (p *Producer) oldestLive(ps *partState) (sim.Time, bool) {
	for len(ps.live) > 0 && ps.live[0].done {
		b := ps.live[0]
		ps.live = popFront(ps.live)
		b.inLive = false
		p.maybeFreeBatch(b)
	}
	if len(ps.live) == 0 {
		return 0, false
	}
	return ps.live[0].createdAt, true
}
