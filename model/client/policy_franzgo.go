package client

import (
	"slices"
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// PolicyFranzGo is franz-go's kgo producer as v1.22.3 ships it.
const PolicyFranzGo ClientPolicy = 2

func init() { registerPolicy(PolicyFranzGo, &franzGoPolicy{}) }

// franzGoPolicy is franz-go's kgo producer (v1.22.3, pkg/kgo/sink.go
// and producer.go), where it differs from the Java client:
//   - with idempotence it keeps up to 5 produce requests in flight per
//     broker, whatever max.in.flight.requests.per.connection says
//     (MaxProduceRequestsInflightPerBroker is refused with
//     idempotence), and only 1 until the broker's first produce
//     response: newSink makes a semaphore of 5 with 4 slots taken
//     (sink.go l.71-75) and firstRespCheck frees them (l.829-838).
//     Releases up to v1.21.5 stored a semaphore of 4 instead, so they
//     kept 4 in flight;
//   - it handles responses only for a partition's first batch: when
//     that batch fails retriably, or its connection breaks, every
//     later batch of the partition on the wire is resent after it, in
//     order, and their own responses are ignored
//     (handleReqRespBatch's isOwnersFirstBatch, resetBatchDrainIdx).
//     Without idempotence that turns the Java client's reordering
//     into duplicates; there is no one-in-flight retry mode;
//   - a partition has more than one request in flight only while its
//     last produce response was a success (recBuf.okOnSink in
//     sink.createReq): at the start and after every error response it
//     sends one request at a time;
//   - answers that arrive together are all handled before the requests
//     that refill their in-flight slots go (drainAfterAnswers);
//   - OUT_OF_ORDER_SEQUENCE_NUMBER or UNKNOWN_PRODUCER_ID on that
//     first batch of an idempotent, non-transactional producer fails
//     the producer id (failProducerID): the epoch goes up for the
//     whole producer and every partition restarts at sequence 0, and
//     the batch is retried. kgo bumps the epoch locally for an
//     idempotent producer without transactional.id (producer.go
//     l.1071-1084, "locally bumping idempotent producer epoch", below
//     the largest epoch; at it, InitProducerId) and keeps a written
//     batch pinned to its old epoch; idemsim bumps once nothing is on
//     the wire, as for librdkafka.
//
// Its sequence comparisons wrap (wrapSeqs).
type franzGoPolicy struct{ wrapSeqs }

func (*franzGoPolicy) name() string { return "franz-go" }

// release: the policy follows franz-go v1.22.3, the version go.mod pins
// for the real-client validation (docs/validate.md).
func (*franzGoPolicy) release() string { return "franz-go=1.22.3" }

// transactionVersion: franz-go runs the transaction protocol the cluster
// offers, whatever client.version (the Java client's release) says. Since v1.19.2 kgo opts into
// KIP-890 part 2 at BeginTransaction when the cluster finalizes
// transaction.version 2 or more and the negotiated versions allow it
// (Produce v12, EndTxn v5, TxnOffsetCommit v5): v1.22.3 pkg/kgo/txn.go
// l.603-605 (BeginTransaction) and pkg/kgo/client.go l.1030-1053
// (supportsKIP890p2); its CHANGELOG's v1.19.2 entry. Without it (a 3.x
// cluster, or transaction.version below 2) it pins EndTxn to v4 and
// Produce to v11 (txn.go l.927-929, sink.go l.91-94): the classic protocol.
func (*franzGoPolicy) transactionVersion(cluster, _ int) int {
	if cluster >= 2 {
		return 2
	}
	return 1
}

// produceV11: kgo v1.22.3 sends Produce v11 even where it pins the
// classic transaction protocol (sink.go l.91-94, above), and handles
// TRANSACTION_ABORTABLE (sink.go, txn.go).
func (*franzGoPolicy) produceV11(int) bool { return true }

// retryInOrder: kgo keeps a partition's records in one ordered buffer
// and its rewind resends from the first failed one (the Java client's
// front insertion is the model's approximation of that).
func (*franzGoPolicy) retryInOrder() bool { return false }

// exponentialBackoff: kgo's retry backoff doubles per failure, with
// ±20% jitter, up to a cap (v1.22.3 pkg/kgo/config.go l.638-665, the
// default RetryBackoffFn); idemsim draws it from retry.backoff.ms and
// retry.backoff.max.ms.
func (*franzGoPolicy) exponentialBackoff(int) bool { return true }

// leaderHints: kgo sends Produce v10 or later (its sink pins v11 under
// the classic transaction protocol) and moves a producing partition to
// the leader a NOT_LEADER_OR_FOLLOWER answer names when the hint's
// epoch is newer than the partition's (v1.22.3 pkg/kgo/
// topics_and_partitions.go kip951move.maybeAddProducePartition and
// doMove; sink.go handleReqRespBatch, l.1116-1122).
func (*franzGoPolicy) leaderHints(int) bool { return true }

// hintReplacesMetadata: in kgo a hinted batch is retried without a
// metadata update: a newer epoch moves it and it is drained at once
// ("we do not need to backoff nor do we need to trigger a metadata
// update"), an equal or older one ("the broker hinted a leader we are
// already using") retries on the same broker after the backoff
// (v1.22.3 pkg/kgo/sink.go handleRetryBatches, l.1436-1456). Only an
// answer without a usable hint, or a partition whose epoch is unknown,
// sets failing and triggers the metadata update.
func (*franzGoPolicy) hintReplacesMetadata() bool { return true }

// lookupOnLoad: franz-go deletes its cached coordinator on
// COORDINATOR_LOAD_IN_PROGRESS as on NOT_COORDINATOR and
// COORDINATOR_NOT_AVAILABLE, and finds it again before the retry
// (pkg/kgo/client.go, Client.maybeDeleteStaleCoordinator).
func (*franzGoPolicy) lookupOnLoad() bool { return true }

// drainAfterAnswers: kgo handles a connection's produce answers on one
// goroutine (sink.go handleSeqResps, l.627-632 at v1.22.3) and writes
// requests on another (drain, waiting on the in-flight semaphore at
// l.317); an answer frees its slot only once handled (produce's promise,
// l.584-587), and the drain that fills it runs after the answers already
// read: its debug log shows several "read Produce" lines, then the
// rewind of a failure among them, with no "wrote Produce" between. So a
// failure in a bunch of answers finds the refills for the answers before
// it not yet sent (docs/validate.md, "Timing of the real side").
func (*franzGoPolicy) drainAfterAnswers() bool { return true }

// nagle: kgo dials with Go's net package, whose TCP connections have
// TCP_NODELAY set by default (net.TCPConn.SetNoDelay: "The default is
// true (no delay)").
func (*franzGoPolicy) nagle() bool { return false }

// responded: franz-go pipelines a partition's requests only while its
// last response was a success (recBuf.okOnSink, sink.go createReq); a
// broken or timed-out connection does not count as a response.
func (*franzGoPolicy) responded(ps *partState, err model.ErrCode) {
	if err != model.ErrNetworkException && err != model.ErrRequestTimedOut {
		ps.fgOK = err == model.ErrNone
	}
}

// failed handles an error under the franz-go policy (franz-go v1.22
// pkg/kgo/sink.go: handleReqRespBatch, handleRetryBatches,
// recBuf.resetBatchDrainIdx). b is the partition's first unfinished
// batch: the responses of later batches are ignored once it failed (see
// rewind), and responses come in order on a connection.
//   - DUPLICATE_SEQUENCE_NUMBER is a success ("ignorable").
//   - OUT_OF_ORDER_SEQUENCE_NUMBER and UNKNOWN_PRODUCER_ID of an
//     idempotent producer fail the producer id: the batch is retried
//     after a producer-wide epoch bump (failProducerID with
//     errReloadProducerID); a transactional producer fails the batch and
//     the transaction (abortable).
//   - Any other retriable error, or a broken connection, retries the
//     batch while delivery.timeout.ms and retries allow.
//
// Either retry resends every later batch of the partition that is on the
// wire after b, in order (rewind).
func (f *franzGoPolicy) failed(p *Producer, now sim.Time, b *pbatch, err model.ErrCode, _ int64) {
	ps := p.parts[b.b.Partition]
	inTime := now < b.createdAt.Add(p.cfg.DeliveryTimeout) && b.attempts <= p.cfg.Retries
	switch {
	case err == model.ErrDuplicateSequenceNumber:
		p.completeOK(now, b, -1)
		return
	case p.cfg.EnableIdempotence && (err == model.ErrOutOfOrderSequenceNumber || err == model.ErrUnknownProducerID):
		if p.cfg.TransactionalID != "" {
			p.failBatch(now, b, err, true)
			return
		}
		if !p.rdkBump {
			p.note(model.NoteRetry, err.String()+" on p"+strconv.FormatInt(int64(ps.id), 10)+" seq "+strconv.FormatInt(int64(b.b.FirstSeq), 10)+": producer id failed, epoch bump for every partition")
		}
		p.rdkBump = true
		if !inTime {
			p.failBatch(now, b, err, false)
			return
		}
	case !err.Retriable() || !inTime:
		p.failBatch(now, b, err, b.attempts < p.cfg.Retries)
		return
	}
	p.reenqueueRetry(now, b)
	f.rewind(p, ps, b)
}

// rewind is franz-go's resetBatchDrainIdx after the partition's first
// batch head failed: every later batch of the partition that is on the
// wire is taken off it (its response, when it comes, is ignored, as kgo
// ignores responses to batches that are not their partition's first) and
// queued again after head, in order, for the same retry time.
func (*franzGoPolicy) rewind(p *Producer, ps *partState, head *pbatch) {
	at := slices.Index(ps.queue, head)
	for _, u := range ps.unacked {
		if u == head || u.done || u.req == nil {
			continue
		}
		u.req = nil
		ps.onWire--
		u.inRetry = true
		u.retryAt = head.retryAt
		if u.hasSeq {
			p.reenqueue(ps, u)
			continue
		}
		at++
		u.queued = true
		ps.queue = slices.Insert(grab(ps.queue, &ps.sp.queue), at, u)
	}
}

// expiredGap: an expired batch makes its partition unresolved, as in the
// Java client.
func (*franzGoPolicy) expiredGap(*Producer, *pbatch) bool { return false }

// bumpAll: a failed producer id (failed) bumps the epoch for every
// partition once nothing is on the wire (Producer.rdkMaybeBump), and the
// partitions' own bumps wait for it.
func (*franzGoPolicy) bumpAll(p *Producer) bool {
	if !p.rdkBump {
		return false
	}
	p.rdkMaybeBump()
	return p.rdkBump
}

// maxInFlight: with idempotence franz-go keeps 5 requests in flight once
// the broker answered its first produce request and 1 before (franz-go
// v1.22.3 pkg/kgo/sink.go newSink and firstRespCheck; config.go refuses
// MaxProduceRequestsInflightPerBroker with idempotence); without it,
// max.in.flight.requests.per.connection.
func (*franzGoPolicy) maxInFlight(p *Producer, c *dconn) int {
	if p.cfg.EnableIdempotence {
		if !c.answered {
			return 1
		}
		return 5
	}
	return p.cfg.MaxInFlight
}

// pipelines: one request in flight until a success (okOnSink, set by
// responded); without idempotence max.in.flight.requests.per.connection=1
// keeps one too, and with it the setting is not franz-go's.
func (*franzGoPolicy) pipelines(p *Producer, ps *partState) bool {
	return ps.fgOK && (p.cfg.MaxInFlight != 1 || p.cfg.EnableIdempotence)
}

// drainsNext: no one-in-flight retry mode; the order is kept by rewind.
func (*franzGoPolicy) drainsNext(*Producer, *partState, *pbatch) bool { return true }
