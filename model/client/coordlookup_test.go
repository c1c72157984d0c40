package client

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// TestCoordinatorLookup follows TransactionManager's handlers: the
// transactional producer finds its coordinator with FindCoordinator
// before InitProducerId and stamps its requests with the answer; an
// EndTxn answered NOT_COORDINATOR sends a new FindCoordinator at once and
// the EndTxn again after retry.backoff.ms, to the new coordinator;
// COORDINATOR_LOAD_IN_PROGRESS keeps the coordinator and retries; a
// FindCoordinator answered COORDINATOR_NOT_AVAILABLE is retried after the
// backoff on the next broker.
func TestCoordinatorLookup(t *testing.T) {
	pt := newPTestFound(t, 0, func(c *ProducerConfig) {
		c.TransactionalID, c.TransactionRecords, c.Brokers = "t", 1, 3
		c.RetryBackoff = 100 * time.Millisecond
	})
	if len(pt.init) != 1 || pt.init[0].Coord != model.CoordTag(0) {
		t.Fatalf("InitProducerId %+v, want one addressed to b1", pt.init)
	}
	var ends []*model.EndTxnRequest
	var adds []*model.AddPartitionsToTxnRequest
	collect := func() {
		ends, adds = ends[:0], adds[:0]
		for _, o := range pt.outs {
			switch m := o.Msg.(type) {
			case *model.EndTxnRequest:
				ends = append(ends, m)
			case *model.AddPartitionsToTxnRequest:
				adds = append(adds, m)
			}
		}
	}
	reply := func(corr int64, err model.ErrCode) {
		pt.take(pt.p.Receive(pt.now, model.DestCoordinator, &model.TxnResponse{CorrelationID: corr, Err: err}))
	}
	pt.take(pt.p.Send(0, model.Record{ID: model.RecordID{N: 0}}))
	collect()
	if len(adds) != 1 || adds[0].Coord != model.CoordTag(0) {
		t.Fatalf("AddPartitionsToTxn %+v, want one addressed to b1", adds)
	}
	// The coordinator is loading: retried after the backoff, no lookup.
	reply(adds[0].CorrelationID, model.ErrCoordinatorLoadInProgress)
	if len(pt.finds) != 0 {
		t.Fatalf("COORDINATOR_LOAD_IN_PROGRESS looked the coordinator up")
	}
	pt.advance(100 * time.Millisecond)
	collect()
	if len(adds) != 2 {
		t.Fatalf("%d AddPartitionsToTxn, want the retry after the backoff", len(adds))
	}
	reply(adds[1].CorrelationID, model.ErrNone)
	pt.respond(pt.reqs[len(pt.reqs)-1], model.ErrNone, 0, 0)
	collect()
	if len(ends) != 1 {
		t.Fatalf("%d EndTxn, want 1", len(ends))
	}
	// The coordinator moved: a lookup at once, the EndTxn after the
	// backoff, to the broker the lookup names.
	reply(ends[0].CorrelationID, model.ErrNotCoordinator)
	if len(pt.finds) != 1 || pt.finds[0].KeyType != model.CoordKeyTransaction || pt.finds[0].Key != "t" {
		t.Fatalf("FindCoordinator after NOT_COORDINATOR: %+v", pt.finds)
	}
	// The first broker knows no coordinator: the next one is asked
	// after the backoff.
	f := pt.finds[0]
	pt.finds, pt.findDests = pt.finds[:0], pt.findDests[:0]
	pt.take(pt.p.Receive(pt.now, 0, &model.FindCoordinatorResponse{CorrelationID: f.CorrelationID, KeyType: f.KeyType, Key: f.Key, Err: model.ErrCoordinatorNotAvailable}))
	pt.advance(100 * time.Millisecond)
	if len(pt.finds) != 1 || pt.findDests[0] != 1 {
		t.Fatalf("FindCoordinator retry %+v to %v, want one to broker 1", pt.finds, pt.findDests)
	}
	pt.found(1)
	pt.advance(100 * time.Millisecond)
	collect()
	if len(ends) != 2 || ends[1].Coord != model.CoordTag(1) || !ends[1].Commit {
		t.Fatalf("EndTxn %+v, want the commit again, addressed to b2", ends)
	}
	reply(ends[1].CorrelationID, model.ErrNone)
	if f := pt.p.Fatal(); f != model.ErrNone || pt.p.AbortableError() != model.ErrNone {
		t.Fatalf("fatal %v, abortable %v", f, pt.p.AbortableError())
	}
}

// TestCoordinatorLookupAfterDisconnect: a transactional request lost with
// its connection looks the coordinator up again before it is sent again
// (TxnRequestHandler.onComplete, wasDisconnected).
func TestCoordinatorLookupAfterDisconnect(t *testing.T) {
	pt := newPTestFound(t, 0, func(c *ProducerConfig) { c.TransactionalID, c.TransactionRecords = "t", 1 })
	pt.take(pt.p.Send(0, model.Record{ID: model.RecordID{N: 0}}))
	pt.take(pt.p.Disconnected(pt.now, model.DestCoordinator))
	pt.advance(time.Second)
	if len(pt.finds) != 1 {
		t.Fatalf("%d FindCoordinator after the disconnect, want 1", len(pt.finds))
	}
}

// TestIdempotentNoLookup: an idempotent producer without a transactional
// id sends InitProducerId without a lookup, unaddressed.
func TestIdempotentNoLookup(t *testing.T) {
	pt := newPTest(t, nil)
	for _, o := range pt.outs {
		if _, ok := o.Msg.(*model.FindCoordinatorRequest); ok {
			t.Fatalf("an idempotent producer sent FindCoordinator")
		}
	}
	if len(pt.init) != 1 || pt.init[0].Coord != 0 {
		t.Fatalf("InitProducerId %+v", pt.init)
	}
}

// newPTestFound is newPTest whose first lookup names broker node.
func newPTestFound(t *testing.T, node int32, mut func(*ProducerConfig)) *ptest {
	t.Helper()
	cfg := DefaultProducerConfig()
	cfg.Linger = 0
	mut(&cfg)
	eff, _, err := cfg.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	pt := &ptest{t: t, p: NewProducer(eff, 0, []int32{0}, rand.New(rand.NewPCG(1, 2)))}
	pt.take(pt.p.Start(0))
	pt.found(node)
	r := pt.init[len(pt.init)-1]
	pt.take(pt.p.Receive(0, model.DestCoordinator, &model.InitProducerIDResponse{CorrelationID: r.CorrelationID, PID: 1000}))
	return pt
}

// TestCoordinatorLoadLookupByPolicy: COORDINATOR_LOAD_IN_PROGRESS keeps
// the coordinator for the Java client and librdkafka, and makes franz-go
// find it again (Client.maybeDeleteStaleCoordinator).
func TestCoordinatorLoadLookupByPolicy(t *testing.T) {
	for _, c := range []struct {
		policy ClientPolicy
		finds  int
	}{{PolicyJava, 0}, {PolicyLibrdkafka, 0}, {PolicyFranzGo, 1}} {
		pt := newPTestFound(t, 0, func(cfg *ProducerConfig) {
			cfg.TransactionalID, cfg.TransactionRecords, cfg.Policy = "t", 1, c.policy
		})
		pt.take(pt.p.Send(0, model.Record{ID: model.RecordID{N: 0}}))
		var add *model.AddPartitionsToTxnRequest
		for _, o := range pt.outs {
			if m, ok := o.Msg.(*model.AddPartitionsToTxnRequest); ok {
				add = m
			}
		}
		if add == nil {
			t.Fatalf("%v: no AddPartitionsToTxn", c.policy)
		}
		pt.take(pt.p.Receive(pt.now, model.DestCoordinator, &model.TxnResponse{CorrelationID: add.CorrelationID, Err: model.ErrCoordinatorLoadInProgress}))
		if len(pt.finds) != c.finds {
			t.Errorf("%v: %d FindCoordinator after COORDINATOR_LOAD_IN_PROGRESS, want %d", c.policy, len(pt.finds), c.finds)
		}
	}
}
