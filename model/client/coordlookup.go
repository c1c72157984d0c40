package client

import (
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Coordinator lookup, after the Java client's TransactionManager
// (clients/src/main/java/org/apache/kafka/clients/producer/internals/TransactionManager.java):
//   - a transactional producer finds its transaction coordinator with
//     FindCoordinator (key type TRANSACTION, the transactional id) before
//     its first request to it, and the group coordinator (key type GROUP,
//     the group id) before its first TxnOffsetCommit
//     (TxnRequestHandler.needsCoordinator, TxnOffsetCommitHandler
//     .coordinatorType); the request goes to a broker
//     (Sender.maybeSendAndPollTransactionalRequest: leastLoadedNode);
//   - a NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE answer to a
//     coordinator request, and the break of its connection
//     (TxnRequestHandler.onComplete, wasDisconnected), forget the
//     coordinator and look it up again (lookupCoordinator); the request is
//     sent again after retry.backoff.ms (reenqueue: a retry waits
//     retryBackoffMs), as it is after COORDINATOR_LOAD_IN_PROGRESS, which
//     keeps the coordinator;
//   - FindCoordinator answered COORDINATOR_NOT_AVAILABLE is sent again
//     after retry.backoff.ms (FindCoordinatorHandler.handleResponse,
//     reenqueue).
//
// librdkafka also finds the coordinator with FindCoordinator
// (rd_kafka_txn_coord_query, src/rdkafka_txnmgr.c) and evicts it on
// NOT_COORDINATOR; franz-go deletes its cached coordinator on
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and also
// COORDINATOR_LOAD_IN_PROGRESS (Client.maybeDeleteStaleCoordinator,
// pkg/kgo/client.go): clientPolicy.lookupOnLoad. Every policy waits the
// producer's retry.backoff.ms before the request again.
//
// Simplified: the broker asked is chosen in turn (the first, then the next
// after each failed lookup), not as NetworkClient.leastLoadedNode chooses;
// an idempotent producer without a transactional id sends InitProducerId
// to the coordinator node as before, with no lookup (in Kafka any broker
// answers it), and so does the producer.whatif.fence_only what-if (a
// transactional id without transactions, which Kafka's send() refuses).

// coordLookup is the producer's knowledge of one coordinator (the
// shared [model.CoordLookup]).
type coordLookup = model.CoordLookup

// lookups reports whether the producer finds its coordinators with
// FindCoordinator: it runs transactions.
func (p *Producer) lookups() bool { return p.txnMode() }

// coordReady returns the tag for a request to the coordinator of key type
// t and true when it is known; otherwise it sends FindCoordinator if none
// is on the wire and returns false.
func (p *Producer) coordReady(now sim.Time, t model.CoordKeyType) (int32, bool) {
	l := &p.coords[t]
	if l.Known {
		return l.Tag, true
	}
	if !l.Due(now) {
		return 0, false
	}
	dest := l.Dest(p.cfg.Brokers, p.leaders)
	c := p.conn(dest)
	if !p.ensureConn(now, c) {
		return 0, false
	}
	key := p.cfg.TransactionalID
	if t == model.CoordKeyGroup {
		key = p.cfg.GroupID
	}
	q := p.newRequest(dest, now)
	q.find = uint8(t) + 1
	l.Busy = true
	c.inflight = append(grab(c.inflight, &c.spare), q)
	p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: dest, Msg: &model.FindCoordinatorRequest{CorrelationID: q.corr, KeyType: t, Key: key}})
	return 0, false
}

// handleFind takes a FindCoordinator answer.
func (p *Producer) handleFind(now sim.Time, r *model.FindCoordinatorResponse) {
	if p.coords[r.KeyType].Found(now, r, p.cfg.RetryBackoff) {
		return
	}
	p.note(model.NoteRetry, "FindCoordinator "+r.Err.String()+", retrying")
}

// findLost forgets a FindCoordinator lost with its connection: the next
// lookup asks the next broker.
func (p *Producer) findLost(q *prequest) {
	p.coords[q.find-1].LostFind()
}

// coordLost forgets the coordinator of key type t after a coordinator
// request's answer err (or its lost connection, err ErrNetworkException)
// and reports whether it did. After an answer the lookup goes out at
// once (FindCoordinator comes first in the Java client's queue,
// Priority.FIND_COORDINATOR), the request after retry.backoff.ms; after
// a lost connection with the next request.
func (p *Producer) coordLost(now sim.Time, t model.CoordKeyType, op string, err model.ErrCode) bool {
	if !p.lookups() {
		return false
	}
	switch err {
	case model.ErrNotCoordinator, model.ErrCoordinatorNotAvailable, model.ErrNetworkException:
	case model.ErrCoordinatorLoadInProgress:
		if !p.policy.lookupOnLoad() {
			return false
		}
	default:
		return false
	}
	if was, known := p.coords[t].Forget(); known && err != model.ErrNetworkException {
		kind := "transaction"
		if t == model.CoordKeyGroup {
			kind = "group"
		}
		p.note(model.NoteRetry, op+" "+err.String()+": looking the "+kind+" coordinator up again (was "+string(model.AppendCoordName(nil, was, t))+")")
	}
	if err != model.ErrNetworkException {
		p.coordReady(now, t)
	}
	return true
}

// coordRetry reports whether a coordinator answer err asks for the
// request again after retry.backoff.ms: the coordinator moved or is
// loading (coordLost looks it up again).
func coordRetry(err model.ErrCode) bool {
	return model.CoordMoved(err) || err == model.ErrCoordinatorLoadInProgress
}
