package client

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/model"
)

// policyOrder is the order of the wants in the policy tables.
var policyOrder = [...]ClientPolicy{PolicyJava, PolicyLibrdkafka, PolicyFranzGo}

// TestClientPolicyChosen: each configuration value has its behaviour and
// name, and a producer takes its policy from its configuration when it is
// made and again when it is reset.
func TestClientPolicyChosen(t *testing.T) {
	typ := func(v clientPolicy) string { return fmt.Sprintf("%T", v) }
	for i, want := range []struct{ name, policy string }{
		{"java", "*client.javaPolicy"}, {"librdkafka", "*client.librdkafkaPolicy"}, {"franz-go", "*client.franzGoPolicy"},
	} {
		c := policyOrder[i]
		if got := c.String(); got != want.name {
			t.Errorf("ClientPolicy(%d).String() = %q, want %q", c, got, want.name)
		}
		if got := typ(c.behaviour()); got != want.policy {
			t.Errorf("ClientPolicy(%d).behaviour() = %s, want %s", c, got, want.policy)
		}
		cfg := DefaultProducerConfig()
		cfg.Policy = c
		p := NewProducer(cfg, 0, []int32{0}, rand.New(rand.NewPCG(1, 2)))
		if got := typ(p.policy); got != want.policy {
			t.Errorf("NewProducer with %s: policy %s", c, got)
		}
		for _, next := range policyOrder {
			cfg.Policy = next
			p.Reset(cfg, 0, []int32{0}, rand.New(rand.NewPCG(1, 2)))
			if got := typ(p.policy); got != typ(next.behaviour()) {
				t.Errorf("Reset from %s to %s: policy %s", c, next, got)
			}
		}
	}
	if got := ClientPolicy(200); got.String() != "java" || typ(got.behaviour()) != "*client.javaPolicy" {
		t.Errorf("ClientPolicy(200): %q, %s; want the Java client's", got.String(), typ(got.behaviour()))
	}
}

// TestPolicyDecisions asks each policy each decision on the same state
// and checks the answer, and what the decision changed: the Java client's
// plain-int sequence arithmetic against the wrapping one (a 4-bit space,
// sequences 0..15), who pipelines after an error, who bumps for the whole
// producer, who drains before resending.
func TestPolicyDecisions(t *testing.T) {
	// batch returns a sequenced batch of n records at seq first.
	batch := func(p *Producer, first int32, n int) *pbatch {
		return &pbatch{b: model.Batch{FirstSeq: first, LastSeq: p.cfg.Seq.Add(first, int64(n-1)), Records: make([]model.Record, n)}, hasSeq: true}
	}
	noIdem := func(c *ProducerConfig) { c.EnableIdempotence = false }
	for _, tc := range []struct {
		name string
		cfg  func(*ProducerConfig)
		run  func(p *Producer, ps *partState) any
		want [len(policyOrder)]any // java, librdkafka, franz-go
	}{
		{name: "responded: a success after an error", run: func(p *Producer, ps *partState) any {
			p.policy.responded(ps, model.ErrNone)
			return ps.fgOK
		}, want: [...]any{false, false, true}},
		{name: "responded: an error after a success", run: func(p *Producer, ps *partState) any {
			ps.fgOK = true
			p.policy.responded(ps, model.ErrNotLeaderOrFollower)
			return ps.fgOK
		}, want: [...]any{true, true, false}},
		{name: "responded: a broken connection is no response", run: func(p *Producer, ps *partState) any {
			ps.fgOK = true
			p.policy.responded(ps, model.ErrNetworkException)
			p.policy.responded(ps, model.ErrRequestTimedOut)
			return ps.fgOK
		}, want: [...]any{true, true, true}},
		{name: "acked: a batch straddling the wrap", run: func(p *Producer, ps *partState) any {
			ps.lastAckedSeq = 14
			p.policy.acked(p, ps, batch(p, 15, 2)) // 15, 0
			return ps.lastAckedSeq
		}, want: [...]any{int32(14), int32(0), int32(0)}},
		{name: "acked: before the wrap", run: func(p *Producer, ps *partState) any {
			ps.lastAckedSeq = 3
			p.policy.acked(p, ps, batch(p, 4, 2))
			return ps.lastAckedSeq
		}, want: [...]any{int32(5), int32(5), int32(5)}},
		{name: "isNextSeq: 0 after the space's last", run: func(p *Producer, ps *partState) any {
			ps.lastAckedSeq = 15
			return p.policy.isNextSeq(p, ps, 0)
		}, want: [...]any{false, true, true}},
		{name: "isNextSeq: nothing acknowledged", run: func(p *Producer, ps *partState) any {
			return fmt.Sprint(p.policy.isNextSeq(p, ps, 0), p.policy.isNextSeq(p, ps, 1))
		}, want: [...]any{"true false", "true false", "true false"}},
		{name: "unackedAt: a batch past the wrap", run: func(p *Producer, ps *partState) any {
			ps.unacked = []*pbatch{batch(p, 14, 1), batch(p, 15, 1)}
			return p.policy.unackedAt(ps, batch(p, 0, 1))
		}, want: [...]any{0, 2, 2}},
		{name: "unresolvedNext: after a batch straddling the wrap", run: func(p *Producer, ps *partState) any {
			p.policy.unresolvedNext(p, ps, batch(p, 15, 2))
			return ps.unresolvedNext
		}, want: [...]any{int32(-15), int32(1), int32(1)}},
		{name: "unresolvedNext: an earlier batch keeps the point", run: func(p *Producer, ps *partState) any {
			ps.unresolved, ps.unresolvedNext = true, 9
			p.policy.unresolvedNext(p, ps, batch(p, 4, 2))
			return ps.unresolvedNext
		}, want: [...]any{int32(9), int32(9), int32(9)}},
		{name: "expiredGap: idempotent", run: func(p *Producer, ps *partState) any {
			return fmt.Sprint(p.policy.expiredGap(p, batch(p, 0, 1)), p.rdkBump)
		}, want: [...]any{"false false", "true true", "false false"}},
		{name: "expiredGap: transactional", cfg: func(c *ProducerConfig) { c.TransactionalID = "t1" }, run: func(p *Producer, ps *partState) any {
			return fmt.Sprint(p.policy.expiredGap(p, batch(p, 0, 1)), p.rdkBump)
		}, want: [...]any{"false false", "true false", "false false"}},
		{name: "expiredGap: without idempotence", cfg: noIdem, run: func(p *Producer, ps *partState) any {
			return fmt.Sprint(p.policy.expiredGap(p, &pbatch{b: model.Batch{FirstSeq: model.NoSequence}}), p.rdkBump)
		}, want: [...]any{"false false", "false false", "false false"}},
		{name: "bumpAll: nothing asked", run: func(p *Producer, ps *partState) any {
			p.pid, p.epoch = 7, 0
			return fmt.Sprint(p.policy.bumpAll(p), p.rdkBump, p.epoch)
		}, want: [...]any{"false false 0", "true false 0", "false false 0"}},
		{name: "bumpAll: asked, nothing on the wire", run: func(p *Producer, ps *partState) any {
			p.pid, p.epoch, p.rdkBump = 7, 0, true
			return fmt.Sprint(p.policy.bumpAll(p), p.rdkBump, p.epoch)
		}, want: [...]any{"false true 0", "true false 1", "false false 1"}},
		{name: "bumpAll: asked, a batch on the wire", run: func(p *Producer, ps *partState) any {
			p.pid, p.epoch, p.rdkBump = 7, 0, true
			ps.onWire = 1
			return fmt.Sprint(p.policy.bumpAll(p), p.rdkBump, p.epoch)
		}, want: [...]any{"false true 0", "true true 0", "true true 0"}},
		{name: "maxInFlight: idempotent", cfg: func(c *ProducerConfig) { c.MaxInFlight = 3 }, run: func(p *Producer, ps *partState) any {
			return fmt.Sprint(p.policy.maxInFlight(p, &dconn{}), p.policy.maxInFlight(p, &dconn{answered: true}))
		}, want: [...]any{"3 3", "3 3", "1 5"}},
		{name: "maxInFlight: without idempotence", cfg: func(c *ProducerConfig) { noIdem(c); c.MaxInFlight = 3 }, run: func(p *Producer, ps *partState) any {
			return fmt.Sprint(p.policy.maxInFlight(p, &dconn{}), p.policy.maxInFlight(p, &dconn{answered: true}))
		}, want: [...]any{"3 3", "3 3", "3 3"}},
		{name: "pipelines: max.in.flight 1, idempotent", cfg: func(c *ProducerConfig) { c.MaxInFlight = 1 }, run: func(p *Producer, ps *partState) any {
			ps.onWire, ps.fgOK = 1, true
			return p.policy.pipelines(p, ps)
		}, want: [...]any{false, false, true}},
		{name: "pipelines: max.in.flight 1, without idempotence", cfg: func(c *ProducerConfig) { noIdem(c); c.MaxInFlight = 1 }, run: func(p *Producer, ps *partState) any {
			ps.onWire, ps.fgOK = 1, true
			return p.policy.pipelines(p, ps)
		}, want: [...]any{false, false, false}},
		{name: "pipelines: after an error response", run: func(p *Producer, ps *partState) any {
			ps.onWire = 1
			return p.policy.pipelines(p, ps)
		}, want: [...]any{true, true, false}},
		{name: "drainsNext: a retry behind the lowest sequence", run: func(p *Producer, ps *partState) any {
			head, retry := batch(p, 0, 1), batch(p, 1, 1)
			ps.unacked = []*pbatch{head, retry}
			return fmt.Sprint(p.policy.drainsNext(p, ps, retry), p.policy.drainsNext(p, ps, head))
		}, want: [...]any{"false true", "true true", "true true"}},
		{name: "drainsNext: after an error, the wire not drained", run: func(p *Producer, ps *partState) any {
			ps.drainWait, ps.onWire = true, 1
			return fmt.Sprint(p.policy.drainsNext(p, ps, &pbatch{}), ps.drainWait)
		}, want: [...]any{"true true", "false true", "true true"}},
		{name: "drainsNext: after an error, the wire drained", run: func(p *Producer, ps *partState) any {
			ps.drainWait = true
			return fmt.Sprint(p.policy.drainsNext(p, ps, &pbatch{}), ps.drainWait)
		}, want: [...]any{"true true", "true false", "true true"}},
	} {
		for i, pol := range policyOrder {
			cfg := DefaultProducerConfig()
			cfg.Seq = model.SeqSpace{Bits: 4}
			cfg.Policy = pol
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			p := NewProducer(cfg, 0, []int32{0}, rand.New(rand.NewPCG(1, 2)))
			if got := tc.run(p, p.parts[0]); got != tc.want[i] {
				t.Errorf("%s, %s: %v (%T), want %v (%T)", tc.name, pol, got, got, tc.want[i], tc.want[i])
			}
		}
	}
}

// TestPolicyFailed sends the same error responses to each policy's
// producer: the Java client retries an unknown producer without a log
// start offset unchanged and bumps one partition locally for
// OUT_OF_ORDER_SEQUENCE_NUMBER on its head; librdkafka bumps for the
// whole producer and takes that OUT_OF_ORDER_SEQUENCE_NUMBER for a fatal
// desynchronization; franz-go fails the producer id for both.
func TestPolicyFailed(t *testing.T) {
	for _, tc := range []struct {
		err      model.ErrCode
		logStart int64
		want     [len(policyOrder)]string // fatal, epoch, sequence of the retry, bump note
	}{
		{model.ErrUnknownProducerID, -1, [...]string{
			"NONE epoch 0 seq 1 ",
			"NONE epoch 1 seq 0 epoch bump 0 -> 1 (all partitions)",
			"NONE epoch 1 seq 0 epoch bump 0 -> 1 (all partitions)",
		}},
		{model.ErrOutOfOrderSequenceNumber, 0, [...]string{
			"NONE epoch 1 seq 0 epoch bump 0 -> 1 (local)",
			"OUT_OF_ORDER_SEQUENCE_NUMBER epoch 0 seq none ",
			"NONE epoch 1 seq 0 epoch bump 0 -> 1 (all partitions)",
		}},
	} {
		for i, pol := range policyOrder {
			pt := newPTest(t, func(c *ProducerConfig) { c.Policy = pol })
			pt.respond(pt.send(), model.ErrNone, 0, 0)
			target := pt.send()
			outs := pt.respond(target, tc.err, -1, tc.logStart)
			note := ""
			for _, o := range outs {
				if o.Kind == model.OutNote && o.NoteKind == model.NoteEpochBump {
					note = o.Note
				}
			}
			seq := "none"
			if q := pt.p.parts[0].queue; len(q) > 0 {
				seq = strconv.FormatInt(int64(q[0].b.FirstSeq), 10)
			}
			_, epoch := pt.p.PID()
			got := pt.p.Fatal().String() + " epoch " + strconv.FormatInt(int64(epoch), 10) + " seq " + seq + " " + note
			if got != tc.want[i] {
				t.Errorf("%s on the second batch, %s: %q, want %q\n%s", tc.err, pol, got, tc.want[i], strings.TrimSpace(pt.p.DescribeState()))
			}
		}
	}
}

// TestPolicyRegistry: each policy's file registers its constant, and
// client.policy's values are their names in constant order, the shipped
// clients first (a new policy's file adds its name after them).
func TestPolicyRegistry(t *testing.T) {
	got := Policies()
	if want := []string{"java", "librdkafka", "franz-go"}; len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("Policies() = %v, want %v first", got, want)
	}
	for _, name := range got {
		c, ok := ParsePolicy(name)
		if !ok || c.String() != name {
			t.Errorf("ParsePolicy(%q) = %d, %v: does not name it back", name, c, ok)
		}
	}
	if _, ok := ParsePolicy("kafka-python"); ok {
		t.Error("ParsePolicy accepts a name no policy registered")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second policy under PolicyJava's constant was accepted")
		}
	}()
	registerPolicy(PolicyJava, &franzGoPolicy{})
}

// TestPolicyTransactionVersion: the Java client runs the transaction
// protocol its release and the cluster offer; franz-go (v1.19.2 and
// later) the one the cluster finalizes, whatever client.version says;
// librdkafka the classic one whatever is offered.
func TestPolicyTransactionVersion(t *testing.T) {
	for _, c := range []struct {
		p             ClientPolicy
		cluster, java int
		want          int
	}{
		{PolicyJava, 1, 1, 1}, {PolicyJava, 2, 2, 2}, {PolicyJava, 2, 1, 1},
		{PolicyLibrdkafka, 1, 1, 1}, {PolicyLibrdkafka, 2, 2, 1},
		{PolicyFranzGo, 0, 1, 1}, {PolicyFranzGo, 1, 1, 1}, {PolicyFranzGo, 2, 2, 2}, {PolicyFranzGo, 2, 1, 2},
	} {
		if got := c.p.TransactionVersion(c.cluster, c.java); got != c.want {
			t.Errorf("%s against transaction.version %d (a Java client would run %d) runs %d, want %d", c.p, c.cluster, c.java, got, c.want)
		}
	}
}

// TestDrainAfterAnswers: two answers arrive at the same instant, the
// first a success that frees an in-flight slot and the second a
// NOT_ENOUGH_REPLICAS. The Java client's model sends the queued batch at
// the first answer, so the failure finds it on the wire; franz-go
// handles both answers before its drain (kgo sink.go: answers on one
// goroutine, requests on another), so the queued batch is not sent until
// the same-instant wake, after the failure, and is not resent.
func TestDrainAfterAnswers(t *testing.T) {
	for _, tc := range []struct {
		pol          ClientPolicy
		atFirst      int // produce requests the first answer sends
		afterBunch   int // produce requests sent by the whole bunch, wake included
		queuedOnWire bool
	}{
		{PolicyJava, 1, 1, true},
		{PolicyFranzGo, 0, 0, false},
	} {
		pt := newPTest(t, func(c *ProducerConfig) {
			c.Policy, c.EnableIdempotence, c.MaxInFlight = tc.pol, false, 3
		})
		pt.respond(pt.send(), model.ErrNone, 0, 0) // a success: franz-go pipelines from here
		r1, r2 := pt.send(), pt.send()
		pt.send()
		// A fourth record waits for a slot.
		pt.take(pt.p.Send(pt.now, model.Record{ID: model.RecordID{App: 0, N: pt.n}}))
		pt.n++
		before := len(pt.reqs)
		outs := pt.take(pt.p.Receive(pt.now, 0, &model.ProduceResponse{CorrelationID: r1.CorrelationID,
			Partitions: []model.PartitionResponse{{Partition: 0, BaseOffset: 1, LogStartOffset: 0}}}))
		if got := len(pt.reqs) - before; got != tc.atFirst {
			t.Errorf("%s: the first answer sent %d requests, want %d", tc.pol, got, tc.atFirst)
		}
		outs = append(outs, pt.take(pt.p.Receive(pt.now, 0, &model.ProduceResponse{CorrelationID: r2.CorrelationID,
			Partitions: []model.PartitionResponse{{Partition: 0, Err: model.ErrNotEnoughReplicas, BaseOffset: -1, LogStartOffset: -1}}}))...)
		pt.take(sameInstant(pt.p, pt.now, outs))
		if got := len(pt.reqs) - before; got != tc.afterBunch {
			t.Errorf("%s: the bunch sent %d requests, want %d", tc.pol, got, tc.afterBunch)
		}
		fourth := pt.p.parts[0].live[len(pt.p.parts[0].live)-1]
		if onWire := fourth.attempts > 0; onWire != tc.queuedOnWire {
			t.Errorf("%s: the queued batch went on the wire %v, want %v\n%s", tc.pol, onWire, tc.queuedOnWire, pt.p.DescribeState())
		}
	}
}
