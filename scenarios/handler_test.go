package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/sim"
)

// lineAt returns the time and index of the first trace line containing
// all of parts, or -1.
func lineAt(trace []string, parts ...string) (sim.Time, int) {
	for i, l := range trace {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return traceTime(l), i
		}
	}
	return 0, -1
}

// TestRequestOutlivesConnection: a request that reached a paused broker
// is read when the broker resumes and executed to the end although its
// client timed out and disconnected meanwhile; only the response is lost
// (Kafka's SocketServer, Processor.sendResponse). The requests buffered
// behind it on the same
// connection are discarded once that response cannot be sent. Without
// idempotence the client's retry lands a second copy (INV-DUP); with it,
// the retry is answered as a duplicate.
func TestRequestOutlivesConnection(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	plan := "0.09s pause b1 3s\nend 4s\n"
	sets := []params.KV{{Key: "records", Value: "3"}, {Key: "send.interval.ms", Value: "100"}, {Key: "net.response_loss", Value: "0"}}
	for _, on := range []bool{false, true} {
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, PlanText: plan, KeepTrace: true, Sets: append(slices.Clone(sets), idem(on)...)})
		resume, ir := lineAt(r.Trace, "b1 resumes with")
		timeout, it := lineAt(r.Trace, "p1 request #", "timed out: disconnecting")
		_, ia := lineAt(r.Trace, "b1 append p0", "[a0:1] off=1..1")
		_, id := lineAt(r.Trace, "b1 send ProduceResp#", "DROPPED conn-broken")
		_, il := lineAt(r.Trace, "b1 lost-on-wire Produce#", "[a0:2]", "channel-closed")
		if ir < 0 || it < 0 || ia < 0 || id < 0 || il < 0 {
			t.Fatalf("idempotence=%v: missing lines (resume %d, timeout %d, late append %d, dropped response %d, discarded %d):\n%s",
				on, ir, it, ia, id, il, strings.Join(r.Trace, "\n"))
		}
		if !(timeout < resume && it < ir && ir < ia && ia < id && id < il) {
			t.Fatalf("idempotence=%v: want timeout, resume, late append, dropped response, discarded request, in that order: %d %d %d %d %d", on, it, ir, ia, id, il)
		}
		dup := false
		for _, v := range r.Violations {
			dup = dup || v.Invariant == "INV-DUP"
		}
		if dup == on {
			t.Fatalf("idempotence=%v: INV-DUP fired=%v (%v)", on, dup, r.Violations)
		}
		if on {
			if _, i := lineAt(r.Trace, "b1 duplicate p0", "[a0:1]"); i < 0 {
				t.Fatalf("idempotence on: the retry of a0:1 was not answered as a duplicate")
			}
		}
	}
}

// TestProcessingTimeOneAtATime: with a handling time, a broker handles
// the requests of one connection one at a time (SocketServer mutes the
// connection until the response is sent): five requests in
// flight are appended at least the handling time apart, and the run's
// verdicts do not change.
func TestProcessingTimeOneAtATime(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, Spec{Scenario: sc, Seed: 2, KeepTrace: true, Sets: []params.KV{{Key: "records", Value: "10"}, {Key: "send.interval.ms", Value: "1"},
		{Key: "net.response_loss", Value: "0"}, {Key: "broker.processing.time", Value: "50ms"}}})
	var at []sim.Time
	for _, l := range r.Trace {
		if strings.Contains(l, " b1 append ") {
			at = append(at, traceTime(l))
		}
	}
	if len(at) != 10 {
		t.Fatalf("%d appends, want 10", len(at))
	}
	for i := 1; i < len(at); i++ {
		if d := at[i].Sub(at[i-1]); d < 50*time.Millisecond {
			t.Fatalf("appends %d and %d are %v apart, less than the 50ms handling time", i-1, i, d)
		}
	}
	if len(r.Violations) > 0 || r.Acked != 10 {
		t.Fatalf("acked %d, violations %v", r.Acked, r.Violations)
	}
	// A spread draws from the broker's own stream: deterministic.
	sets := []params.KV{{Key: "broker.processing.time", Value: "1ms"}, {Key: "broker.processing.spread", Value: "20ms"}}
	a, b := mustRun(t, Spec{Scenario: sc, Seed: 5, Sets: sets}), mustRun(t, Spec{Scenario: sc, Seed: 5, Sets: sets})
	if a.TraceHash != b.TraceHash {
		t.Fatalf("same spec, hashes %s and %s", a.TraceHash, b.TraceHash)
	}
}

// TestStallVersusPause: a stalled broker keeps running its timers (its
// producer-state expiry check fires during the stall) while a paused one
// does not; both buffer the requests that arrive and handle them in order
// when they end. Only servers stall.
func TestStallVersusPause(t *testing.T) {
	sc, err := Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	sets := []params.KV{{Key: "records", Value: "4"}, {Key: "send.interval.ms", Value: "100"}, {Key: "net.response_loss", Value: "0"},
		{Key: "producer.id.expiration.ms", Value: "1000"}, {Key: "producer.id.expiration.check.interval.ms", Value: "500"}, {Key: "request.timeout.ms", Value: "30000"}, {Key: "delivery.timeout.ms", Value: "60000"}}
	for _, verb := range []string{"stall", "pause"} {
		plan := "0.25s " + verb + " b1 5s\nend 6s\n"
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, PlanText: plan, KeepTrace: true, Sets: sets})
		exp, ie := lineAt(r.Trace, "b1 expire p0")
		end, ir := lineAt(r.Trace, "b1 resumes with")
		if ie < 0 || ir < 0 {
			t.Fatalf("%s: expire line %d, resume line %d\n%s", verb, ie, ir, strings.Join(r.Trace, "\n"))
		}
		if during := exp < end; during != (verb == "stall") {
			t.Errorf("%s: expiry at %v, end at %v: want the expiry during a stall only", verb, exp, end)
		}
		if len(r.Violations) > 0 || r.Acked != 4 {
			t.Errorf("%s: acked %d, violations %v", verb, r.Acked, r.Violations)
		}
	}
	_, err = Run(Spec{Scenario: sc, Seed: 1, PlanText: "1s stall p1 1s\n"})
	if err == nil || !strings.Contains(err.Error(), "stall: p1 is not a server") {
		t.Fatalf("stall of a producer: %v", err)
	}
}

// traceTime reads the time of a trace line ("t=1.234000000s ..."),
// exactly, or -1.
func traceTime(line string) sim.Time {
	var s, ns int64
	if _, err := fmt.Sscanf(line, "t=%d.%09ds", &s, &ns); err != nil {
		return -1
	}
	return sim.Time(s*1e9 + ns)
}
