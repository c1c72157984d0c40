package client

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/model"
)

// sendN sends n records and returns the produce requests that went on the
// wire meanwhile.
func (pt *ptest) sendN(n int) []*model.ProduceRequest {
	before := len(pt.reqs)
	for range n {
		id := model.RecordID{N: pt.n}
		pt.n++
		pt.take(pt.p.Send(pt.now, model.Record{ID: id}))
	}
	return pt.reqs[before:]
}

// TestNagleByPolicy: six records, five in flight at most. The Java
// client (TCP_NODELAY) puts five requests on the wire at once; librdkafka 2.2.0's socket (Nagle's algorithm) sends the first
// alone and holds the other four until an answer acknowledges it, then
// sends them together, and the refill waits behind them in turn.
func TestNagleByPolicy(t *testing.T) {
	for _, c := range []struct {
		policy        ClientPolicy
		first, second int
	}{
		{PolicyJava, 5, 1},
		{PolicyLibrdkafka, 1, 4},
	} {
		pt := newPTest(t, func(cfg *ProducerConfig) { cfg.EnableIdempotence = false; cfg.Policy = c.policy })
		sent := pt.sendN(6)
		if len(sent) != c.first {
			t.Fatalf("%v: %d requests on the wire, want %d", c.policy, len(sent), c.first)
		}
		if n := len(pt.p.conn(0).inflight); n != 5 {
			t.Errorf("%v: %d requests in flight, want 5", c.policy, n)
		}
		before := len(pt.reqs)
		pt.respond(sent[0], model.ErrNone, 0, 0)
		if got := len(pt.reqs) - before; got != c.second {
			t.Errorf("%v: the first answer put %d requests on the wire, want %d", c.policy, got, c.second)
		}
		if c.policy != PolicyLibrdkafka {
			continue
		}
		// The refill (the sixth record) is held behind the four: the
		// answer to the second request acknowledges their segment.
		before = len(pt.reqs)
		pt.respond(pt.reqs[1], model.ErrNone, 1, 0)
		if got := len(pt.reqs) - before; got != 1 || pt.reqs[len(pt.reqs)-1].Batches[0].Records[0].ID.N != 5 {
			t.Errorf("the second answer put %d requests on the wire, want 1 (record 5)", got)
		}
	}
}

// TestNagleDelayedAck: with no answer, the broker's delayed
// acknowledgement (40 ms) releases the held requests.
func TestNagleDelayedAck(t *testing.T) {
	pt := newPTest(t, func(cfg *ProducerConfig) {
		cfg.EnableIdempotence = false
		cfg.Policy = PolicyLibrdkafka
		cfg.RequestTimeout = 10 * time.Second
	})
	if sent := pt.sendN(3); len(sent) != 1 {
		t.Fatalf("%d requests on the wire, want 1", len(sent))
	}
	pt.advance(39 * time.Millisecond)
	if len(pt.reqs) != 1 {
		t.Fatalf("%d requests on the wire after 39 ms, want 1", len(pt.reqs))
	}
	pt.advance(2 * time.Millisecond)
	if len(pt.reqs) != 3 {
		t.Errorf("%d requests on the wire after 41 ms, want 3", len(pt.reqs))
	}
}

// TestNagleDisconnect: the requests a broken connection held never go
// on its wire; they fail with it and are sent again on the next one.
func TestNagleDisconnect(t *testing.T) {
	pt := newPTest(t, func(cfg *ProducerConfig) { cfg.EnableIdempotence = false; cfg.Policy = PolicyLibrdkafka })
	pt.sendN(3)
	pt.take(pt.p.Disconnected(pt.now, 0))
	if c := pt.p.conn(0); len(c.held) != 0 || c.segOut {
		t.Fatalf("after the break: %d held, segment outstanding %v; want none", len(c.held), c.segOut)
	}
	ids := func() (ids []int64) {
		for _, r := range pt.reqs[1:] {
			ids = append(ids, r.Batches[0].Records[0].ID.N)
		}
		return ids
	}
	pt.advance(pt.p.cfg.RetryBackoff)
	if got := ids(); len(got) != 1 || got[0] != 0 {
		t.Errorf("sent at the retry %v, want [0] (the others held behind it)", got)
	}
	pt.advance(delayedAck)
	if got := ids(); len(got) != 3 {
		t.Errorf("sent %v after the delayed acknowledgement, want [0 1 2]", got)
	}
}
