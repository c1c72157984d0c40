package client

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// PolicyLibrdkafka is librdkafka's idempotent producer as v2.2.0 ships it.
const PolicyLibrdkafka ClientPolicy = 1

func init() { registerPolicy(PolicyLibrdkafka, &librdkafkaPolicy{}) }

// librdkafkaPolicy is librdkafka's idempotent producer as v2.2.0 ships it
// (src/rdkafka_request.c rd_kafka_handle_Produce_error, src/rdkafka_broker.c
// rd_kafka_toppar_producer_serve, src/rdkafka_idempotence.c): it bumps
// the epoch for an unknown producer, for OUT_OF_ORDER_SEQUENCE_NUMBER on a
// batch after the head ("skipped sequence numbers", every release to
// v2.15; librdkafka issue #4953), and after a batch failed for good
// (message.timeout.ms or a permanent error leaves a sequence gap), each
// time for all partitions at once after draining them, possibly-written
// batches included; it has no unresolved sequences; it keeps "possibly
// persisted" bookkeeping, so OUT_OF_ORDER_SEQUENCE_NUMBER after a
// disconnected or timed-out batch is a fatal "sequence desynchronization"
// (librdkafka v2.3.0 changed that, pull request #4438; the model follows
// v2.2.0); and it
// resends after an error only once the partition has nothing on the wire,
// with no one-in-flight retry mode. Its sequence comparisons wrap
// (wrapSeqs). Without idempotence the producer is the Java client's,
// but for two things in every mode: retried batches go back at their
// place in send order (retryInOrder), and its sockets run Nagle's
// algorithm (nagle, nagle.go), so requests written back to back leave
// the first alone and the others with its answer.
type librdkafkaPolicy struct{ wrapSeqs }

func (*librdkafkaPolicy) name() string { return "librdkafka" }

// release: the policy follows librdkafka v2.2.0 (the last release before
// pull request #4438 changed its "possibly persisted" handling).
func (*librdkafkaPolicy) release() string { return "librdkafka=2.2.0" }

// transactionVersion: librdkafka runs the classic transaction protocol
// (KIP-890 part 2 is in the Java client from 4.0).
func (*librdkafkaPolicy) transactionVersion(int, int) int { return 1 }

// produceV11: librdkafka never sends Produce v11: its
// rd_kafka_ProduceRequest_max_version (src/rdkafka_msgset_writer.c) is 7
// in 2.2.0 and 10 in later releases, so a failed partition verification
// reaches it as INVALID_TXN_STATE.
func (*librdkafkaPolicy) produceV11(int) bool { return false }

// retryInOrder: librdkafka puts retried messages back into the
// partition's queue at their sorted position by message id
// (src/rdkafka_partition.c, rd_kafka_toppar_retry_msgq ->
// rd_kafka_retry_msgq: "Insert retryable list at sorted position",
// rd_kafka_msgq_insert_msgq with the topic's msg_order_cmp), so requests
// that fail together are sent again in their order.
func (*librdkafkaPolicy) retryInOrder() bool { return true }

// exponentialBackoff: librdkafka 2.2.0 waits retry.backoff.ms before
// every retry; KIP-580's exponential backoff and retry.backoff.max.ms came
// in 2.3.0 (its CHANGELOG; 2.2.0's rd_kafka_conf_set refuses
// retry.backoff.max.ms: "No such configuration property").
func (*librdkafkaPolicy) exponentialBackoff(int) bool { return false }

// leaderHints: the policy reads no KIP-951 hint; a NOT_LEADER_OR_FOLLOWER
// waits for a Metadata answer, as before. Whether librdkafka 2.2.0 sends
// Produce v10 and reads the hint was not read in its source
// (docs/versions.md).
func (*librdkafkaPolicy) leaderHints(int) bool { return false }

// hintReplacesMetadata: no hint is read.
func (*librdkafkaPolicy) hintReplacesMetadata() bool { return false }

// lookupOnLoad: librdkafka's txn handlers retry
// COORDINATOR_LOAD_IN_PROGRESS (RD_KAFKA_ERR_ACTION_RETRY) and evict the
// cached coordinator only on NOT_COORDINATOR (src/rdkafka_txnmgr.c,
// rd_kafka_coord_cache_evict).
func (*librdkafkaPolicy) lookupOnLoad() bool { return false }

// drainAfterAnswers: not modelled for librdkafka; it sends as each
// answer is handled.
func (*librdkafkaPolicy) drainAfterAnswers() bool { return false }

// nagle: librdkafka 2.2.0 leaves Nagle's algorithm on: its
// socket.nagle.disable defaults to false (src/rdkafka_conf.c l.538-539
// at v2.2.0), and only that setting sets TCP_NODELAY
// (src/rdkafka_transport.c l.603-613). librdkafka 2.10.0 turned it off
// by default (CHANGELOG.md of v2.10.0: "The Nagle algorithm
// (TCP_NODELAY) is now disabled by default", #4986).
func (*librdkafkaPolicy) nagle() bool { return true }

// responded: librdkafka's pipelining does not depend on the last
// response (it waits for the wire to drain instead, drainsNext).
func (*librdkafkaPolicy) responded(*partState, model.ErrCode) {}

// failed handles an error under the librdkafka policy (librdkafka v2.2.0,
// src/rdkafka_request.c rd_kafka_handle_Produce_error):
//   - a disconnect or timeout of a sent batch is "possibly persisted": the
//     partition remembers the sequence after it (the earliest such);
//   - every error makes the partition wait until nothing of it is on the
//     wire, then its batches are resent in order, with no one-in-flight
//     retry mode;
//   - OUT_OF_ORDER_SEQUENCE_NUMBER after a possibly-persisted batch, or on
//     the head batch, is a fatal "sequence desynchronization"; on a later
//     batch ("skipped sequence numbers") it is retried and, unless
//     producer.whatif.librdkafka_no_skip_bump, bumps the epoch as below;
//   - UNKNOWN_PRODUCER_ID bumps the epoch for the whole producer once all
//     partitions are drained, and every partition restarts at sequence 0,
//     including batches that were possibly persisted;
//   - a batch that fails for good leaves a gap in the sequence, so a
//     producer without transactional.id drains and bumps the epoch too
//     (bumpAfterGap); a transactional one fails the batch without a
//     bump.
//
// Without idempotence it is the Java client's.
func (l *librdkafkaPolicy) failed(p *Producer, now sim.Time, b *pbatch, err model.ErrCode, logStart int64) {
	if !p.cfg.EnableIdempotence {
		(&javaPolicy{}).failed(p, now, b, err, logStart)
		return
	}
	ps := p.parts[b.b.Partition]
	ps.drainWait = true
	timeUp := now >= b.createdAt.Add(p.cfg.DeliveryTimeout) || b.attempts >= p.cfg.Retries
	switch {
	case err == model.ErrNetworkException || err == model.ErrRequestTimedOut:
		next := p.cfg.Seq.Add(b.b.LastSeq, 1)
		if ps.ppNext < 0 || p.seqAfter(ps.ppNext, next) {
			ps.ppNext = next
		}
	case err == model.ErrOutOfOrderSequenceNumber:
		pp := ps.ppNext >= 0 && !p.seqAfter(ps.ppNext, b.b.FirstSeq)
		if pp || l.isNextSeq(p, ps, b.b.FirstSeq) {
			p.finish(now, b, err, -1)
			p.note(model.NoteInfo, "p"+strconv.FormatInt(int64(ps.id), 10)+" seq "+strconv.FormatInt(int64(b.b.FirstSeq), 10)+": sequence desynchronization")
			p.enterFatal(now, model.ErrOutOfOrderSequenceNumber)
			return
		}
		if p.cfg.BugTxnBumpInTxn && p.txnMode() && !p.txnBump {
			// librdkafka #3575 (fixed in v1.8.2, commit 2d78e928d): the
			// epoch bump goes to the coordinator while the transaction
			// stays open in the client's view.
			p.note(model.NoteRetry, "bug Z17: OUT_OF_ORDER_SEQUENCE_NUMBER on p"+strconv.FormatInt(int64(ps.id), 10)+" inside a transaction: bump the epoch through the coordinator without aborting")
			p.txnBump, p.bumpInTxn = true, true
		}
		if !p.cfg.WhatIfNoSkipBump && !p.rdkBump {
			// "skipped sequence numbers": librdkafka drains every
			// partition and bumps the epoch (rd_kafka_idemp_drain_epoch_bump,
			// src/rdkafka_request.c l.2947 at v2.2.0, l.4244 at v2.15.0).
			p.note(model.NoteRetry, "OUT_OF_ORDER_SEQUENCE_NUMBER on p"+strconv.FormatInt(int64(ps.id), 10)+" after the head: skipped sequence numbers, drain and bump the epoch")
			p.rdkBump = true
		}
		if !timeUp {
			p.reenqueueRetry(now, b)
			return
		}
	case err == model.ErrUnknownProducerID:
		if !p.rdkBump {
			p.note(model.NoteRetry, "UNKNOWN_PRODUCER_ID on p"+strconv.FormatInt(int64(ps.id), 10)+": drain and bump the epoch")
		}
		p.rdkBump = true
		if !timeUp {
			p.reenqueueRetry(now, b)
			return
		}
	case err == model.ErrDuplicateSequenceNumber:
		p.completeOK(now, b, -1)
		return
	case err == model.ErrProducerFenced:
		p.finish(now, b, err, -1)
		p.enterFatal(now, model.ErrProducerFenced)
		return
	}
	if err.Retriable() && !timeUp {
		p.reenqueueRetry(now, b)
		return
	}
	p.finish(now, b, err, -1)
	l.bumpAfterGap(p, b, err)
}

// expiredGap: librdkafka has no unresolved sequences: a
// message.timeout.ms expiry of an idempotent producer's batch drains and
// bumps the epoch instead (bumpAfterGap; unresolved sequences are the
// Java client's, TransactionManager.markSequenceUnresolved and
// maybeResolveSequences).
func (l *librdkafkaPolicy) expiredGap(p *Producer, b *pbatch) bool {
	if !p.cfg.EnableIdempotence {
		return false
	}
	l.bumpAfterGap(p, b, model.ErrDeliveryTimeout)
	return true
}

// bumpAfterGap asks for the producer-wide drain and epoch bump after
// batch b of an idempotent producer without transactional.id failed for
// good: its sequence numbers are never sent again, and the partition's
// next batch would otherwise arrive after a gap. librdkafka
// (src/rdkafka_request.c, rd_kafka_handle_Produce_error, lines 4736-4746
// at v2.15.0: "message sequence gap", without enable.gapless.guarantee)
// bumps on every permanent error, and a message.timeout.ms expiry in the
// partition's queues bumps too (src/rdkafka_broker.c,
// rd_kafka_toppar_producer_serve, lines 4213-4237: "Message timeouts will
// lead to gaps the in the message sequence and thus trigger
// OutOfOrderSequence errors from the broker. Bump the epoch"). librdkafka
// retries a timed-out request whatever its messages' age and fails them
// only in that queue scan, so every final failure here stands for one of
// the two. INTRODUCTION.md ("Message timeout considerations", lines
// 587-592) documents the drain and bump: "the base sequence number is
// reset to the first message in the queue". A queued retry that was
// possibly persisted is renumbered with the rest and may be appended
// twice, the hazard librdkafka #4953 describes.
func (*librdkafkaPolicy) bumpAfterGap(p *Producer, b *pbatch, err model.ErrCode) {
	if p.cfg.TransactionalID != "" || p.rdkBump {
		return
	}
	p.note(model.NoteRetry, err.String()+" on p"+strconv.FormatInt(int64(b.b.Partition), 10)+" leaves a sequence gap: drain and bump the epoch")
	p.rdkBump = true
}

// bumpAll: librdkafka bumps only producer-wide (Producer.rdkMaybeBump),
// never one partition.
func (*librdkafkaPolicy) bumpAll(p *Producer) bool {
	p.rdkMaybeBump()
	return true
}

// maxInFlight is max.in.flight.requests.per.connection
// (max.in.flight).
func (*librdkafkaPolicy) maxInFlight(p *Producer, _ *dconn) int { return p.cfg.MaxInFlight }

// pipelines: with max.in.flight=1 a partition has one request on the
// wire at a time.
func (*librdkafkaPolicy) pipelines(p *Producer, _ *partState) bool { return p.cfg.MaxInFlight != 1 }

// drainsNext: after an error (failed sets drainWait) the partition sends
// nothing until everything of it on the wire is back, then resends in
// sequence order.
func (*librdkafkaPolicy) drainsNext(_ *Producer, ps *partState, _ *pbatch) bool {
	if ps.drainWait {
		if ps.onWire > 0 {
			return false
		}
		ps.drainWait = false
	}
	return true
}
