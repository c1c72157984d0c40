package client

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// harness for table tests: one producer, one partition led by broker 0,
// responses written by hand.
type ptest struct {
	t    *testing.T
	p    *Producer
	now  sim.Time
	n    int64
	outs []model.Out // everything the producer emitted, in order
	reqs []*model.ProduceRequest
	init []*model.InitProducerIDRequest
	// finds are the FindCoordinator requests not answered yet, with
	// their destinations (answer them with pt.found).
	finds     []*model.FindCoordinatorRequest
	findDests []int32
}

func newPTest(t *testing.T, mut func(*ProducerConfig)) *ptest {
	t.Helper()
	cfg := DefaultProducerConfig()
	// The tests send one record at a time and expect its request at
	// once: linger.ms 0, the pre-4.0 default.
	cfg.Linger = 0
	if mut != nil {
		mut(&cfg)
	}
	eff, _, err := cfg.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pt := &ptest{t: t, p: NewProducer(eff, 0, []int32{0}, rand.New(rand.NewPCG(1, 2)))}
	pt.take(pt.p.Start(0))
	pt.found(model.CoordSelf)
	if eff.EnableIdempotence {
		r := pt.init[len(pt.init)-1]
		pt.take(pt.p.Receive(0, model.DestCoordinator, &model.InitProducerIDResponse{CorrelationID: r.CorrelationID, PID: 1000}))
	}
	return pt
}

func (pt *ptest) take(outs []model.Out) []model.Out {
	cp := keepOuts(outs)
	for _, o := range cp {
		if o.Kind != model.OutSend {
			continue
		}
		switch m := o.Msg.(type) {
		case *model.ProduceRequest:
			pt.reqs = append(pt.reqs, m)
		case *model.InitProducerIDRequest:
			pt.init = append(pt.init, m)
		case *model.FindCoordinatorRequest:
			pt.finds = append(pt.finds, m)
			pt.findDests = append(pt.findDests, o.Dest)
		}
	}
	pt.outs = append(pt.outs, cp...)
	return cp
}

// found answers the pending FindCoordinator requests with node (a broker
// index or model.CoordSelf), oldest first.
func (pt *ptest) found(node int32) {
	for len(pt.finds) > 0 {
		f, d := pt.finds[0], pt.findDests[0]
		pt.finds, pt.findDests = pt.finds[1:], pt.findDests[1:]
		pt.take(pt.p.Receive(pt.now, d, &model.FindCoordinatorResponse{CorrelationID: f.CorrelationID, KeyType: f.KeyType, Key: f.Key, Node: node}))
	}
}

// send sends one record and returns the request that carries it.
func (pt *ptest) send() *model.ProduceRequest {
	pt.t.Helper()
	id := model.RecordID{App: 0, N: pt.n}
	pt.n++
	before := len(pt.reqs)
	pt.take(pt.p.Send(pt.now, model.Record{ID: id, Digest: model.Digest(id, 0), SentAt: pt.now}))
	if len(pt.reqs) != before+1 {
		pt.t.Fatalf("send %v: %d requests, want 1", id, len(pt.reqs)-before)
	}
	return pt.reqs[len(pt.reqs)-1]
}

func (pt *ptest) respond(req *model.ProduceRequest, err model.ErrCode, off, logStart int64) []model.Out {
	outs := pt.take(pt.p.Receive(pt.now, 0, &model.ProduceResponse{CorrelationID: req.CorrelationID,
		Partitions: []model.PartitionResponse{{Partition: 0, Err: err, BaseOffset: off, LogStartOffset: logStart}}}))
	return append(outs, pt.take(sameInstant(pt.p, pt.now, outs))...)
}

// sameInstant runs the wake at now that a produce answer's deferred
// drain asked for (policies whose drainAfterAnswers is true), as the
// world does once the events already due at now are handled, and
// returns its outputs (none when outs asked for no such wake).
func sameInstant(p *Producer, now sim.Time, outs []model.Out) []model.Out {
	for _, o := range outs {
		if o.Kind == model.OutWake && o.At == now && o.Timer == p.wakeToken && p.drainLater {
			return p.Wake(now, o.Timer)
		}
	}
	return nil
}

// advance fires the producer's wake-ups up to now+d.
func (pt *ptest) advance(d time.Duration) {
	end := pt.now.Add(d)
	for {
		at, tok := sim.Time(-1), uint64(0)
		for _, o := range pt.outs {
			if o.Kind == model.OutWake && o.Timer == pt.p.wakeToken {
				at, tok = o.At, o.Timer
			}
		}
		if at < 0 || at > end || pt.p.wakeAt < 0 {
			break
		}
		pt.now = at
		pt.take(pt.p.Wake(at, tok))
	}
	pt.now = end
}

func results(outs []model.Out) string {
	var s []string
	for _, o := range outs {
		if o.Kind == model.OutResult {
			if o.Result.Err == model.ErrNone {
				s = append(s, "ack:"+strconv.FormatInt(o.Result.Offset, 10))
			} else {
				s = append(s, "fail:"+o.Result.Err.String())
			}
		}
	}
	return strings.Join(s, ",")
}

// TestProducerResponses drives each produce-response path of the Java
// client (Sender.completeBatch, TransactionManager.canRetry and
// handleFailedBatch): the target batch (one record) gets err while the
// batches before it are still in flight, after acked records were
// acknowledged.
func TestProducerResponses(t *testing.T) {
	txn := func(c *ProducerConfig) { c.TransactionalID = "t1" }
	rdk := func(c *ProducerConfig) { c.Policy = PolicyLibrdkafka }
	for _, tc := range []struct {
		name     string
		cfg      func(*ProducerConfig)
		acked    int // records acknowledged first
		before   int // batches in flight before the target
		err      model.ErrCode
		logStart int64 // LogStartOffset in the response
		// expectations right after the response
		result    string // outcomes reported
		bumps     int
		fatal     model.ErrCode
		abortable model.ErrCode
		requeued  bool  // target is back in the queue
		seq       int32 // its sequence then (when requeued)
		epoch     int16
	}{
		{name: "none", err: model.ErrNone, result: "ack:7"},
		{name: "duplicate sequence is success without offset", err: model.ErrDuplicateSequenceNumber, result: "ack:-1"},
		{name: "not leader retried unchanged", acked: 1, err: model.ErrNotLeaderOrFollower, requeued: true, seq: 1},
		{name: "network exception retried unchanged", acked: 1, err: model.ErrNetworkException, requeued: true, seq: 1},
		{name: "not enough replicas retried", acked: 1, err: model.ErrNotEnoughReplicas, requeued: true, seq: 1},
		{name: "OOSN head bumps and renumbers", acked: 1, err: model.ErrOutOfOrderSequenceNumber, bumps: 1, requeued: true, seq: 0, epoch: 1},
		{name: "OOSN non-head retries without bump", acked: 1, before: 1, err: model.ErrOutOfOrderSequenceNumber, requeued: true, seq: 2},
		{name: "OOSN head first batch bumps", err: model.ErrOutOfOrderSequenceNumber, bumps: 1, requeued: true, seq: 0, epoch: 1},
		{name: "unknown producer bumps", acked: 1, err: model.ErrUnknownProducerID, bumps: 1, requeued: true, seq: 0, epoch: 1},
		{name: "unknown producer without log start retries", acked: 1, err: model.ErrUnknownProducerID, logStart: -1, requeued: true, seq: 1},
		{name: "invalid epoch fails and bumps", acked: 1, err: model.ErrInvalidProducerEpoch, result: "fail:INVALID_PRODUCER_EPOCH", bumps: 1},
		{name: "producer fenced is fatal", acked: 1, err: model.ErrProducerFenced, result: "fail:PRODUCER_FENCED", fatal: model.ErrProducerFenced},
		{name: "invalid record fails and bumps", acked: 1, err: model.ErrInvalidRecord, result: "fail:INVALID_RECORD", bumps: 1},
		{name: "retries exhausted: no bump", cfg: func(c *ProducerConfig) { c.Retries = 1 }, acked: 1, err: model.ErrNotLeaderOrFollower, result: "fail:NOT_LEADER_OR_FOLLOWER"},
		{name: "txn OOSN head is abortable", cfg: txn, acked: 1, err: model.ErrOutOfOrderSequenceNumber, result: "fail:OUT_OF_ORDER_SEQUENCE_NUMBER", abortable: model.ErrOutOfOrderSequenceNumber},
		{name: "txn OOSN non-head retries", cfg: txn, acked: 1, before: 1, err: model.ErrOutOfOrderSequenceNumber, requeued: true, seq: 2},
		{name: "txn unknown producer is abortable", cfg: txn, acked: 1, err: model.ErrUnknownProducerID, result: "fail:UNKNOWN_PRODUCER_ID", abortable: model.ErrUnknownProducerID},
		{name: "txn unknown producer after log truncation restarts at 0", cfg: txn, acked: 1, err: model.ErrUnknownProducerID, logStart: 100, requeued: true, seq: 0},
		{name: "txn invalid epoch is abortable", cfg: txn, acked: 1, err: model.ErrInvalidProducerEpoch, result: "fail:INVALID_PRODUCER_EPOCH", abortable: model.ErrInvalidProducerEpoch},
		{name: "txn transaction abortable is abortable", cfg: txn, acked: 1, err: model.ErrTransactionAbortable, result: "fail:TRANSACTION_ABORTABLE", abortable: model.ErrTransactionAbortable},
		{name: "librdkafka OOSN head is fatal", cfg: rdk, acked: 1, err: model.ErrOutOfOrderSequenceNumber, result: "fail:OUT_OF_ORDER_SEQUENCE_NUMBER", fatal: model.ErrOutOfOrderSequenceNumber},
		{name: "librdkafka OOSN non-head retries", cfg: rdk, acked: 1, before: 1, err: model.ErrOutOfOrderSequenceNumber, requeued: true, seq: 2},
		{name: "librdkafka unknown producer bumps once drained", cfg: rdk, acked: 1, err: model.ErrUnknownProducerID, bumps: 1, requeued: true, seq: 0, epoch: 1},
		// rdkafka_request.c lines 4736-4746: a permanent error leaves a
		// sequence gap, so an idempotent producer drains and bumps.
		{name: "librdkafka invalid epoch fails, then bumps once drained", cfg: rdk, acked: 1, err: model.ErrInvalidProducerEpoch, result: "fail:INVALID_PRODUCER_EPOCH", bumps: 1},
		{name: "no idempotence: retriable retried", cfg: func(c *ProducerConfig) { c.EnableIdempotence = false }, err: model.ErrNotLeaderOrFollower, requeued: true, seq: model.NoSequence, epoch: model.NoEpoch},
		{name: "no idempotence: OOSN fails", cfg: func(c *ProducerConfig) { c.EnableIdempotence = false }, err: model.ErrOutOfOrderSequenceNumber, result: "fail:OUT_OF_ORDER_SEQUENCE_NUMBER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt := newPTest(t, tc.cfg)
			// The cases are about answers: every request goes on the
			// wire as it is sent (librdkafka's Nagle hold, nagle.go, is
			// TestNagleByPolicy's).
			pt.p.nagle = false
			if tc.cfg != nil && pt.p.cfg.TransactionalID != "" {
				// newPTest answered the transactional InitProducerId too.
				if pid, _ := pt.p.PID(); pid != 1000 {
					t.Fatalf("pid = %d", pid)
				}
			}
			for i := range tc.acked {
				r := pt.send()
				pt.respond(r, model.ErrNone, int64(i), 0)
			}
			for range tc.before {
				pt.send()
			}
			target := pt.send()
			outs := pt.respond(target, tc.err, 7, tc.logStart)
			if got := results(outs); got != tc.result {
				t.Errorf("results = %q, want %q", got, tc.result)
			}
			if got := pt.p.EpochBumps(); got != tc.bumps {
				t.Errorf("bumps = %d, want %d\n%s", got, tc.bumps, pt.p.DescribeState())
			}
			if got := pt.p.Fatal(); got != tc.fatal {
				t.Errorf("fatal = %v, want %v", got, tc.fatal)
			}
			if got := pt.p.AbortableError(); got != tc.abortable {
				t.Errorf("abortable = %v, want %v", got, tc.abortable)
			}
			ps := pt.p.parts[0]
			var q *pbatch
			for _, b := range ps.queue {
				if b.b.Records[0].ID == target.Batches[0].Records[0].ID {
					q = b
				}
				if !b.queued {
					t.Errorf("batch %s is in the queue but not marked queued", b.b.AppendDescription(nil))
				}
			}
			for _, b := range ps.unacked {
				if b.queued != slices.Contains(ps.queue, b) {
					t.Errorf("batch %s: queued=%v, in the queue=%v", b.b.AppendDescription(nil), b.queued, !b.queued)
				}
			}
			if (q != nil) != tc.requeued {
				t.Fatalf("requeued = %v, want %v\n%s", q != nil, tc.requeued, pt.p.DescribeState())
			}
			if q != nil && (q.b.FirstSeq != tc.seq || q.b.Epoch != tc.epoch) {
				t.Errorf("requeued at seq %d epoch %d, want seq %d epoch %d", q.b.FirstSeq, q.b.Epoch, tc.seq, tc.epoch)
			}
			if tc.abortable != model.ErrNone {
				r := pt.init[len(pt.init)-1]
				if r.ExpectedPID != 1000 || r.ExpectedEpoch != 0 {
					t.Errorf("abortable: InitProducerId expect=%d/%d, want 1000/0", r.ExpectedPID, r.ExpectedEpoch)
				}
			}
		})
	}
}

// TestProducerRetryKeepsSequence: a plain retry carries the same pid,
// epoch, sequence range and records (the broker's duplicate check needs
// the identical range; librdkafka #4736 broke it).
func TestProducerRetryKeepsSequence(t *testing.T) {
	pt := newPTest(t, func(c *ProducerConfig) { c.Linger = 5 * time.Millisecond })
	for range 3 {
		id := model.RecordID{N: pt.n}
		pt.n++
		pt.take(pt.p.Send(0, model.Record{ID: id}))
	}
	pt.advance(5 * time.Millisecond)
	if len(pt.reqs) != 1 {
		t.Fatalf("%d requests, want 1 batch of 3", len(pt.reqs))
	}
	first := pt.reqs[0].Batches[0]
	pt.take(pt.p.Disconnected(pt.now, 0))
	pt.advance(2 * time.Second)
	if len(pt.reqs) != 2 {
		t.Fatalf("%d requests after disconnect, want 2", len(pt.reqs))
	}
	retry := pt.reqs[1].Batches[0]
	if string(first.AppendDescription(nil)) != string(retry.AppendDescription(nil)) {
		t.Errorf("retry %s differs from first send %s", retry.AppendDescription(nil), first.AppendDescription(nil))
	}
}

// TestProducerInFlightLimit checks max.in.flight per connection and the
// one-in-flight retry mode (RecordAccumulator.shouldStopDrainBatchesForPartition).
func TestProducerInFlightLimit(t *testing.T) {
	pt := newPTest(t, nil)
	for range 7 {
		id := model.RecordID{N: pt.n}
		pt.n++
		pt.take(pt.p.Send(0, model.Record{ID: id}))
	}
	if len(pt.reqs) != 5 {
		t.Fatalf("%d requests in flight, want 5", len(pt.reqs))
	}
	// All five fail; only the lowest sequence is sent again.
	pt.take(pt.p.Disconnected(pt.now, 0))
	pt.advance(2 * time.Second)
	if len(pt.reqs) != 6 || pt.reqs[5].Batches[0].FirstSeq != 0 {
		t.Fatalf("after disconnect: %d requests, last seq %d; want 6, seq 0", len(pt.reqs), pt.reqs[len(pt.reqs)-1].Batches[0].FirstSeq)
	}
	pt.respond(pt.reqs[5], model.ErrNone, 0, 0)
	if got := pt.reqs[len(pt.reqs)-1].Batches[0].FirstSeq; len(pt.reqs) != 7 || got != 1 {
		t.Fatalf("after ack: %d requests, last seq %d; want 7, seq 1", len(pt.reqs), got)
	}
}

// TestProducerBackoff checks KIP-580's exponential backoff with jitter.
func TestProducerBackoff(t *testing.T) {
	pt := newPTest(t, nil)
	for _, tc := range []struct {
		attempts int32
		lo, hi   time.Duration
	}{{1, 80 * time.Millisecond, 120 * time.Millisecond}, {2, 160 * time.Millisecond, 240 * time.Millisecond},
		{4, 640 * time.Millisecond, 960 * time.Millisecond}, {10, 800 * time.Millisecond, 1200 * time.Millisecond}} {
		for range 50 {
			if d := pt.p.backoff(tc.attempts); d < tc.lo || d > tc.hi {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", tc.attempts, d, tc.lo, tc.hi)
			}
		}
	}
	// Before KIP-580 (the Java client before 3.7, librdkafka 2.2.0) every
	// retry waits retry.backoff.ms, with no jitter.
	for _, mut := range []func(*ProducerConfig){
		func(c *ProducerConfig) { c.ClientVersion = 306 },
		func(c *ProducerConfig) { c.Policy = PolicyLibrdkafka },
	} {
		old := newPTest(t, mut)
		for _, a := range []int32{1, 2, 4, 10} {
			if d := old.p.backoff(a); d != 100*time.Millisecond {
				t.Errorf("%s client %d: backoff(%d) = %v, want retry.backoff.ms, 100ms", old.p.cfg.Policy, old.p.cfg.ClientVersion, a, d)
			}
		}
	}
	at37 := newPTest(t, func(c *ProducerConfig) { c.ClientVersion = 307 })
	if d := at37.p.backoff(4); d < 640*time.Millisecond {
		t.Errorf("client 3.7: backoff(4) = %v, want KIP-580's 800ms ±20%%", d)
	}
}

// TestProducerConfigResolve checks Kafka's defaults and conflict rules
// (ProducerConfig.postProcessAndValidateIdempotenceConfigs,
// KafkaProducer.configureDeliveryTimeout).
func TestProducerConfigResolve(t *testing.T) {
	d := DefaultProducerConfig()
	if !d.EnableIdempotence || d.Acks != -1 || d.Retries != 2147483647 || d.MaxInFlight != 5 ||
		d.DeliveryTimeout != 120*time.Second || d.RequestTimeout != 30*time.Second ||
		d.RetryBackoff != 100*time.Millisecond || d.RetryBackoffMax != time.Second || d.Linger != 5*time.Millisecond || d.TransactionalID != "" {
		t.Errorf("defaults = %+v", d)
	}
	for _, tc := range []struct {
		name    string
		mut     func(*ProducerConfig)
		idem    bool
		err     string // substring of the error, "" for none
		note    string // substring of a note
		timeout time.Duration
	}{
		{name: "defaults", mut: func(*ProducerConfig) {}, idem: true},
		{name: "implicit acks=1 disables", mut: func(c *ProducerConfig) { c.Acks = 1 }, note: "acks=1"},
		{name: "implicit retries=0 disables", mut: func(c *ProducerConfig) { c.Retries = 0 }, note: "retries=0"},
		{name: "implicit in-flight 6 disables", mut: func(c *ProducerConfig) { c.MaxInFlight = 6 }, note: "max.in.flight.requests.per.connection=6"},
		{name: "explicit acks=1 is an error", mut: func(c *ProducerConfig) { c.Acks = 1; c.IdempotenceExplicit = true }, err: "acks=1"},
		{name: "explicit acks=0 is an error", mut: func(c *ProducerConfig) { c.Acks = 0; c.IdempotenceExplicit = true }, err: "acks=0"},
		{name: "explicit retries=0 is an error", mut: func(c *ProducerConfig) { c.Retries = 0; c.IdempotenceExplicit = true }, err: "retries=0"},
		{name: "explicit in-flight 6 is an error", mut: func(c *ProducerConfig) { c.MaxInFlight = 6; c.IdempotenceExplicit = true }, err: "max.in.flight.requests.per.connection=6"},
		{name: "what-if in-flight 6", mut: func(c *ProducerConfig) {
			c.MaxInFlight = 6
			c.IdempotenceExplicit = true
			c.AllowInFlightAboveFive = true
		}, idem: true, note: "what-if"},
		{name: "transactional.id needs idempotence", mut: func(c *ProducerConfig) { c.TransactionalID = "t"; c.EnableIdempotence = false }, err: "transactional.id"},
		{name: "transactional.id with implicit conflict", mut: func(c *ProducerConfig) { c.TransactionalID = "t"; c.Acks = 1 }, err: "transactional.id"},
		{name: "idempotence off explicitly", mut: func(c *ProducerConfig) { c.EnableIdempotence = false; c.IdempotenceExplicit = true; c.Acks = 1 }},
		{name: "acks=2 invalid", mut: func(c *ProducerConfig) { c.Acks = 2 }, err: "acks=2"},
		{name: "delivery timeout raised", mut: func(c *ProducerConfig) { c.DeliveryTimeout = time.Second }, idem: true, note: "delivery.timeout.ms raised", timeout: 30*time.Second + 5*time.Millisecond},
		{name: "explicit delivery timeout too low", mut: func(c *ProducerConfig) { c.DeliveryTimeout = time.Second; c.DeliveryTimeoutExplicit = true }, err: "delivery.timeout.ms=1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultProducerConfig()
			tc.mut(&c)
			eff, notes, err := c.Resolve()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if eff.EnableIdempotence != tc.idem {
				t.Errorf("idempotence = %v, want %v", eff.EnableIdempotence, tc.idem)
			}
			all := strings.Join(notes, "; ")
			if (tc.note == "") != (all == "") || !strings.Contains(all, tc.note) {
				t.Errorf("notes = %q, want one with %q", all, tc.note)
			}
			if tc.timeout != 0 && eff.DeliveryTimeout != tc.timeout {
				t.Errorf("delivery timeout = %v, want %v", eff.DeliveryTimeout, tc.timeout)
			}
		})
	}
}

// BenchmarkProducerSendAck measures one send + produce request + ack
// cycle of the producer alone (the response is written by hand, so the
// broker's growing log is not measured).
func BenchmarkProducerSendAck(b *testing.B) {
	cfg, _, _ := DefaultProducerConfig().Resolve()
	p := NewProducer(cfg, 0, []int32{0}, rand.New(rand.NewPCG(1, 2)))
	var corr int64
	for _, o := range p.Start(0) {
		if r, ok := o.Msg.(*model.InitProducerIDRequest); ok {
			corr = r.CorrelationID
		}
	}
	p.Receive(0, model.DestCoordinator, &model.InitProducerIDResponse{CorrelationID: corr, PID: 1000})
	resp := &model.ProduceResponse{Partitions: []model.PartitionResponse{{}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := sim.Time(i) * 1000
		id := model.RecordID{N: int64(i)}
		var req *model.ProduceRequest
		for _, o := range p.Send(now, model.Record{ID: id, Digest: uint64(i), SentAt: now}) {
			if r, ok := o.Msg.(*model.ProduceRequest); ok {
				req = r
			}
		}
		resp.CorrelationID = req.CorrelationID
		resp.Partitions[0] = model.PartitionResponse{BaseOffset: int64(i)}
		acked := false
		for _, o := range p.Receive(now, 0, resp) {
			acked = acked || o.Kind == model.OutResult && o.Result.Err == model.ErrNone
		}
		if !acked {
			b.Fatal("not acked")
		}
	}
}

// TestTxnErrorAction pins the Java client's classes of AddPartitionsToTxn
// and EndTxn errors (TransactionManager.java's AddPartitionsToTxnHandler
// and EndTxnHandler).
func TestTxnErrorAction(t *testing.T) {
	for _, c := range []struct {
		err      model.ErrCode
		add, end txnAction
	}{
		{model.ErrConcurrentTransactions, txnRetry, txnRetry},
		{model.ErrNetworkException, txnRetry, txnRetry},
		{model.ErrProducerFenced, txnFatal, txnFatal},
		{model.ErrInvalidProducerEpoch, txnFatal, txnFatal},
		{model.ErrInvalidTxnState, txnFatal, txnFatal},
		{model.ErrUnknownProducerID, txnAbortableBump, txnAbortableBump},
		{model.ErrInvalidProducerIDMapping, txnFatal, txnFatal},
		{model.ErrTransactionAbortable, txnAbortable, txnAbortable},
		{model.ErrInvalidRequest, txnAbortable, txnFatal},
	} {
		if got := txnErrorAction(txnOpAdd, c.err, 401); got != c.add {
			t.Errorf("AddPartitionsToTxn %v: %d, want %d", c.err, got, c.add)
		}
		if got := txnErrorAction(txnOpEnd, c.err, 401); got != c.end {
			t.Errorf("EndTxn %v: %d, want %d", c.err, got, c.end)
		}
	}
	// Before the 4.0 client (KAFKA-18019) INVALID_PRODUCER_ID_MAPPING was
	// abortable with an epoch bump (KIP-360).
	for _, v := range []int{302, 309} {
		for _, op := range []uint8{txnOpAdd, txnOpEnd} {
			if got := txnErrorAction(op, model.ErrInvalidProducerIDMapping, v); got != txnAbortableBump {
				t.Errorf("client %d, op %d: INVALID_PRODUCER_ID_MAPPING is %d, want abortable with a bump", v, op, got)
			}
		}
	}
}

// TestTxnEndUnknownProducer: UNKNOWN_PRODUCER_ID on EndTxn(COMMIT) is
// abortable with a bump: the abort sends EndTxn(ABORT); when that fails
// the same way, the abort goes on to the bump without another EndTxn.
// The acknowledged record keeps its acknowledgement; the transaction is
// reported aborted.
func TestTxnEndUnknownProducer(t *testing.T) {
	pt := newPTest(t, func(c *ProducerConfig) { c.TransactionalID = "t"; c.TransactionRecords = 1 })
	ends := func() []*model.EndTxnRequest {
		var out []*model.EndTxnRequest
		for _, o := range pt.outs {
			if m, ok := o.Msg.(*model.EndTxnRequest); ok && o.Kind == model.OutSend {
				out = append(out, m)
			}
		}
		return out
	}
	txnReply := func(corr int64, err model.ErrCode) {
		pt.take(pt.p.Receive(pt.now, model.DestCoordinator, &model.TxnResponse{CorrelationID: corr, Err: err}))
	}
	pt.take(pt.p.Send(0, model.Record{ID: model.RecordID{N: 0}}))
	add := pt.outs[len(pt.outs)-1].Msg.(*model.AddPartitionsToTxnRequest)
	txnReply(add.CorrelationID, model.ErrNone)
	pt.respond(pt.reqs[len(pt.reqs)-1], model.ErrNone, 0, 0)
	if e := ends(); len(e) != 1 || !e[0].Commit {
		t.Fatalf("EndTxn requests %+v, want one COMMIT", e)
	}
	txnReply(ends()[0].CorrelationID, model.ErrUnknownProducerID)
	if got := pt.p.AbortableError(); got != model.ErrUnknownProducerID {
		t.Fatalf("abortable = %v", got)
	}
	if e := ends(); len(e) != 2 || e[1].Commit {
		t.Fatalf("EndTxn requests %+v, want COMMIT then ABORT", e)
	}
	before := len(pt.init)
	txnReply(ends()[1].CorrelationID, model.ErrUnknownProducerID)
	if len(ends()) != 2 || len(pt.init) != before+1 {
		t.Fatalf("after the failed abort: %d EndTxn, %d InitProducerId, want 2 and a bump", len(ends()), len(pt.init)-before)
	}
	var acks, results int
	var res model.TxnResult
	for _, o := range pt.outs {
		switch o.Kind {
		case model.OutResult:
			if o.Result.Err == model.ErrNone && o.Result.Txn {
				acks++
			}
		case model.OutTxnResult:
			results++
			res = *o.Txn
		}
	}
	if acks != 1 || results != 1 || res.Committed || res.Failed || res.Err != model.ErrUnknownProducerID || len(res.Records) != 1 {
		t.Errorf("acks %d, transaction results %d (last %+v), want 1 ack and one aborted transaction of 1 record", acks, results, res)
	}
	if f := pt.p.Fatal(); f != model.ErrNone {
		t.Errorf("fatal %v", f)
	}
}

// TestTxnAbortNothingAdded: when no partition of the transaction was
// added, the abort sends no EndTxn (TransactionManager.nextRequest: the
// coordinator knows no transaction) and goes on to the epoch bump.
func TestTxnAbortNothingAdded(t *testing.T) {
	pt := newPTest(t, func(c *ProducerConfig) { c.TransactionalID = "t"; c.TransactionRecords = 2 })
	pt.take(pt.p.Send(0, model.Record{ID: model.RecordID{N: 0}}))
	add := pt.outs[len(pt.outs)-1].Msg.(*model.AddPartitionsToTxnRequest)
	before := len(pt.init)
	pt.take(pt.p.Receive(0, model.DestCoordinator, &model.TxnResponse{CorrelationID: add.CorrelationID, Err: model.ErrTransactionAbortable}))
	var ends, aborted int
	for _, o := range pt.outs {
		if _, ok := o.Msg.(*model.EndTxnRequest); ok && o.Kind == model.OutSend {
			ends++
		}
		if o.Kind == model.OutTxnResult && !o.Txn.Committed && len(o.Txn.Records) == 0 {
			aborted++
		}
	}
	if ends != 0 || aborted != 1 || len(pt.init) != before+1 || pt.p.Fatal() != model.ErrNone {
		t.Errorf("EndTxn %d, aborted results %d, InitProducerId %d, fatal %v; want 0, 1, 1, NONE", ends, aborted, len(pt.init)-before, pt.p.Fatal())
	}
	if got := results(pt.outs); !strings.Contains(got, "fail:TRANSACTION_ABORTABLE") {
		t.Errorf("record outcomes %q", got)
	}
}

// TestRetryOrderByPolicy: without idempotence, five requests in flight
// fail together at a disconnect and are sent again. The Java client puts
// each failed batch first in its deque (addFirst), so they go out newest
// first; librdkafka puts retried messages back at their sorted position
// (rd_kafka_toppar_retry_msgq), so they go out in their order, ahead of
// the records sent after them.
func TestRetryOrderByPolicy(t *testing.T) {
	for _, c := range []struct {
		policy ClientPolicy
		want   []int64
	}{
		{PolicyJava, []int64{4, 3, 2, 1, 0, 5}},
		{PolicyLibrdkafka, []int64{0, 1, 2, 3, 4, 5}},
	} {
		pt := newPTest(t, func(cfg *ProducerConfig) { cfg.EnableIdempotence = false; cfg.Policy = c.policy })
		for range 6 {
			id := model.RecordID{N: pt.n}
			pt.n++
			pt.take(pt.p.Send(0, model.Record{ID: id}))
		}
		if n := len(pt.p.conn(0).inflight); n != 5 {
			t.Fatalf("%v: %d requests in flight, want 5", c.policy, n)
		}
		// librdkafka's socket holds four of them behind the first
		// (Nagle's algorithm, nagle.go); they fail with the connection
		// all the same.
		base := len(pt.reqs)
		pt.take(pt.p.Disconnected(pt.now, 0))
		var got []int64
		for i := 0; i < 20 && len(got) < 6; i++ {
			pt.advance(time.Second)
			for _, r := range pt.reqs[base+len(got):] {
				got = append(got, r.Batches[0].Records[0].ID.N)
				pt.respond(r, model.ErrNone, int64(len(got)), 0)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%v: sent again in the order %v, want %v", c.policy, got, c.want)
		}
	}
}
