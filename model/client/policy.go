package client

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// ClientPolicy chooses whose client behaviour the producer models on the
// same fault schedule. It is the configuration value (client.policy);
// the behaviour is a clientPolicy value, one file per client, that the
// producer picks once, when it is made or reset. Each policy's file
// declares its constant and registers its behaviour ([registerPolicy]):
// adding a client is that one file.
type ClientPolicy uint8

// clientPolicies holds each ClientPolicy's behaviour, indexed by the
// constant; the policies' files fill it in as the package starts.
var clientPolicies []clientPolicy

// registerPolicy makes p the behaviour of c; p.name() is its
// client.policy value. Each policy's file calls it from an init
// function; two policies with one constant or one name are a
// programming error.
func registerPolicy(c ClientPolicy, p clientPolicy) {
	for i, q := range clientPolicies {
		if q != nil && (ClientPolicy(i) == c || q.name() == p.name()) {
			panic("client: policy " + p.name() + " registered twice")
		}
	}
	for int(c) >= len(clientPolicies) {
		clientPolicies = append(clientPolicies, nil)
	}
	clientPolicies[c] = p
}

// Policies returns the client.policy values, in the order of their
// constants (PolicyJava, the reference, first).
func Policies() []string {
	var out []string
	for _, p := range clientPolicies {
		if p != nil {
			out = append(out, p.name())
		}
	}
	return out
}

// ParsePolicy returns the policy whose client.policy value is name.
func ParsePolicy(name string) (ClientPolicy, bool) {
	for i, p := range clientPolicies {
		if p != nil && p.name() == name {
			return ClientPolicy(i), true
		}
	}
	return 0, false
}

// behaviour returns c's policy. A value without one is the Java client,
// as String names it.
func (c ClientPolicy) behaviour() clientPolicy {
	if int(c) < len(clientPolicies) && clientPolicies[c] != nil {
		return clientPolicies[c]
	}
	return clientPolicies[PolicyJava]
}

// String returns "java", "librdkafka" or "franz-go".
func (c ClientPolicy) String() string { return c.behaviour().name() }

// TransactionVersion returns the transaction protocol the client runs
// (1: the classic protocol; 2: KIP-890 part 2) against a cluster whose
// finalized transaction.version is cluster (0, 1 or 2), where a Java
// client of the run's client.version would run java (2 only from the 4.0
// client, against a cluster at 2).
func (c ClientPolicy) TransactionVersion(cluster, java int) int {
	return c.behaviour().transactionVersion(cluster, java)
}

// ProduceV11 reports whether the client sends Produce v11 or later to a
// broker that takes it (3.8 or later), where the Java client would be
// of release client (major*100+minor, 0: the newest modelled).
func (c ClientPolicy) ProduceV11(client int) bool { return c.behaviour().produceV11(client) }

// Release names the client release the policy models, as reports print
// it ("librdkafka=2.2.0"); "" for the Java client, whose release is
// client.version.
func (c ClientPolicy) Release() string { return c.behaviour().release() }

// Nagle reports whether the client's broker sockets run Nagle's
// algorithm by default, so that socket.nagle.disable means something
// (nagle.go).
func (c ClientPolicy) Nagle() bool { return c.behaviour().nagle() }

// clientPolicy is how a modelled client decides where the clients differ:
// the producer (Producer.policy) follows the Java client everywhere else,
// and asks its policy at each of these points. The wire protocol is the
// same for all. A policy holds no state: what it remembers lives in the
// producer and its partitions (Producer.rdkBump, drainLater,
// partState.ppNext, drainWait, fgOK), so that a reset clears it and the
// state hash sees it.
//
// Sequences are numbers of the producer's [model.SeqSpace]. A method that
// takes a batch is called only for a sequenced one (b.hasSeq) unless it
// says otherwise.
type clientPolicy interface {
	// name is the policy's client.policy value.
	name() string
	// release names the client release the policy models, "" for the
	// Java client (client.version names it).
	release() string
	// transactionVersion is the transaction protocol the client runs
	// against a cluster at transaction.version cluster, where the Java
	// client of the run's client.version runs java
	// ([ClientPolicy.TransactionVersion]).
	transactionVersion(cluster, java int) int
	// exponentialBackoff reports whether a retry waits retry.backoff.ms
	// doubled per attempt up to retry.backoff.max.ms, with jitter
	// (KIP-580), or retry.backoff.ms every time; client is the Java
	// client's release (ProducerConfig.ClientVersion).
	exponentialBackoff(client int) bool
	// produceV11 reports whether the client sends Produce v11 or later
	// ([ClientPolicy.ProduceV11]).
	produceV11(client int) bool
	// retryInOrder reports whether a retried batch without sequence
	// numbers goes back into its partition's queue at its place in
	// send order (true) or at the front (false, the Java client's
	// addFirst).
	retryInOrder() bool
	// leaderHints reports whether the client sends Produce v10 or later
	// and moves a partition to the leader a NOT_LEADER_OR_FOLLOWER answer
	// names (KIP-951, leaderhint.go); client is the Java client's
	// release.
	leaderHints(client int) bool
	// hintReplacesMetadata reports whether a NOT_LEADER_OR_FOLLOWER answer
	// that carries a usable leader hint is handled by the hint alone: a
	// newer epoch moves the partition and its retry goes at once, an
	// equal or older one retries after the backoff, and neither asks for
	// Metadata (false: the Java client asks for Metadata either way).
	hintReplacesMetadata() bool

	// drainAfterAnswers reports whether the requests that refill the
	// in-flight slots a produce answer frees wait until every answer
	// arriving at the same instant is handled (true), or go as each
	// answer is handled (false).
	drainAfterAnswers() bool

	// nagle reports whether the client's broker sockets run Nagle's
	// algorithm (no TCP_NODELAY): a request written while an earlier
	// segment on the connection is unacknowledged waits in the socket
	// for the acknowledgement (nagle.go).
	nagle() bool

	// lookupOnLoad reports whether a COORDINATOR_LOAD_IN_PROGRESS answer
	// makes the client find its coordinator again (coordlookup.go), as
	// NOT_COORDINATOR does, or only retry the request.
	lookupOnLoad() bool

	// responded records that a request carrying batch b of partition ps
	// came back with err: a produce response's partition error (ErrNone
	// for a success), or ErrNetworkException / ErrRequestTimedOut for a
	// broken or timed-out connection. It runs for every such outcome,
	// before anything else is decided about b.
	responded(ps *partState, err model.ErrCode)
	// failed handles a produce error err (not ErrNone) for batch b, which
	// is not done, of an instance that is not fatal: retry it
	// (Producer.reenqueueRetry), complete it (Producer.completeOK) or
	// fail it (Producer.failBatch), and request what the error calls
	// for. b may be unsequenced. logStart is the response's log start
	// offset, -1 when unknown.
	failed(p *Producer, now sim.Time, b *pbatch, err model.ErrCode, logStart int64)
	// acked moves ps.lastAckedSeq to acknowledged batch b's last
	// sequence when that is later.
	acked(p *Producer, ps *partState, b *pbatch)
	// isNextSeq reports whether seq is the partition's head, the sequence
	// after lastAckedSeq (0 when nothing is acknowledged).
	isNextSeq(p *Producer, ps *partState, seq int32) bool
	// unackedAt returns where newly sequenced batch b goes in ps.unacked
	// (0..len): the order retries are queued in, an epoch bump renumbers
	// in, and whose first batch is the partition's head.
	unackedAt(ps *partState, b *pbatch) int
	// expiredGap handles the gap in its partition's sequence that batch b
	// leaves by expiring (delivery.timeout.ms, after Producer.failBatch),
	// and reports whether it did; false leaves it to the Java client's
	// bookkeeping: an unresolved partition, or the BugReuseExpiredSeq
	// rewind. b may be unsequenced, the producer not idempotent.
	expiredGap(p *Producer, b *pbatch) bool
	// unresolvedNext moves ps.unresolvedNext to the sequence after
	// expired batch b, or keeps it when it is later and ps is already
	// unresolved.
	unresolvedNext(p *Producer, ps *partState, b *pbatch)
	// bumpAll carries out the producer-wide epoch bump Producer.rdkBump
	// asks for, once it can, and reports whether Producer.maybeBump is to
	// stop there, without the Java client's per-partition bump: it runs
	// first in every maybeBump of an idempotent producer.
	bumpAll(p *Producer) (wait bool)
	// maxInFlight is the produce requests connection c may have in
	// flight, >= 1.
	maxInFlight(p *Producer, c *dconn) int
	// pipelines reports whether partition ps, which has batches on the
	// wire (ps.onWire > 0), may put another one beside them.
	pipelines(p *Producer, ps *partState) bool
	// drainsNext reports whether an idempotent producer may send batch b,
	// the head of ps.queue (sequenced or not), as far as the order of the
	// partition's sequences goes. Producer.drainable asks once the
	// in-flight and transaction checks passed, before its own idempotent
	// checks; a true answer may change the partition's policy state.
	drainsNext(p *Producer, ps *partState, b *pbatch) bool
}
