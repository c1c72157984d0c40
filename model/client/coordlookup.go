package client

import (
	"strconv"

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

// coordLookup is the producer's knowledge of one coordinator.
type coordLookup struct {
	// known: an answer is in hand; tag is its [model.CoordTag], stamped on
	// the requests to that coordinator.
	known bool
	tag   int32
	// busy: a FindCoordinator is on the wire; retryAt is when a failed
	// one may be sent again; tries counts the failed ones (they move the
	// lookup to the next broker).
	busy    bool
	retryAt sim.Time
	tries   int32
}

// lookups reports whether the producer finds its coordinators with
// FindCoordinator: it runs transactions.
func (p *Producer) lookups() bool { return p.txnMode() }

// coordReady returns the tag for a request to the coordinator of key type
// t and true when it is known; otherwise it sends FindCoordinator if none
// is on the wire and returns false.
func (p *Producer) coordReady(now sim.Time, t model.CoordKeyType) (int32, bool) {
	l := &p.coords[t]
	if l.known {
		return l.tag, true
	}
	if l.busy || now < l.retryAt {
		return 0, false
	}
	dest := p.findDest(l.tries)
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
	l.busy = true
	c.inflight = append(grab(c.inflight, &c.spare), q)
	p.out = append(p.out, model.Out{Kind: model.OutSend, Dest: dest, Msg: &model.FindCoordinatorRequest{CorrelationID: q.corr, KeyType: t, Key: key}})
	return 0, false
}

// findDest is the broker the next lookup goes to, after tries failed ones.
func (p *Producer) findDest(tries int32) int32 {
	if n := int32(p.cfg.Brokers); n > 0 {
		return tries % n
	}
	return p.leaders[int(tries)%len(p.leaders)]
}

// handleFind takes a FindCoordinator answer.
func (p *Producer) handleFind(now sim.Time, r *model.FindCoordinatorResponse) {
	l := &p.coords[r.KeyType]
	l.busy = false
	if r.Err == model.ErrNone {
		l.known, l.tag = true, model.CoordTag(r.Node)
		return
	}
	l.tries++
	l.retryAt = now.Add(p.cfg.RetryBackoff)
	p.note(model.NoteRetry, "FindCoordinator "+r.Err.String()+", retrying")
}

// findLost forgets a FindCoordinator lost with its connection: the next
// lookup asks the next broker.
func (p *Producer) findLost(q *prequest) {
	l := &p.coords[q.find-1]
	l.busy = false
	l.tries++
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
	l := &p.coords[t]
	if l.known && err != model.ErrNetworkException {
		kind := "transaction"
		if t == model.CoordKeyGroup {
			kind = "group"
		}
		p.note(model.NoteRetry, op+" "+err.String()+": looking the "+kind+" coordinator up again (was "+coordName(l.tag, t)+")")
	}
	l.known = false
	if err != model.ErrNetworkException {
		p.coordReady(now, t)
	}
	return true
}

// coordName names the node a tag stands for, as the trace does.
func coordName(tag int32, t model.CoordKeyType) string {
	switch {
	case tag > 0:
		return "b" + strconv.Itoa(int(tag))
	case t == model.CoordKeyGroup:
		return "g1"
	}
	return "c1"
}

// coordRetry reports whether a coordinator answer err asks for the
// request again after retry.backoff.ms: the coordinator moved or is
// loading (coordLost looks it up again).
func coordRetry(err model.ErrCode) bool {
	return err == model.ErrNotCoordinator || err == model.ErrCoordinatorNotAvailable || err == model.ErrCoordinatorLoadInProgress
}
