package scenarios

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/sim"
)

// Messages between servers travel the network (world_server.go). These
// tests run the txntimeout scenario's transactional producer (Kafka 3.9:
// AddPartitionsToTxn, partition verification; 20 records, two
// transactions of 10, the first committed at about 0.9 s) with plans of
// their own instead of its pause.

// srvSpec is the transactional run the tests below give a plan (none:
// no fault at all).
func srvSpec(plan string, sets ...string) Spec {
	sc, _ := Lookup("txntimeout")
	if plan == "" {
		plan = "end 2m\n"
	}
	return Spec{Scenario: sc, Seed: 1, Sets: kv(append([]string{"records", "20"}, sets...)...), PlanText: plan, KeepTrace: true}
}

// traceLine is one trace line split into its time and its text.
type traceLine struct {
	at   sim.Time
	text string
}

func lines(t *testing.T, r *Result) []traceLine {
	t.Helper()
	var ls []traceLine
	for _, l := range r.Trace {
		ts, text, ok := strings.Cut(l, " ")
		if !ok || !strings.HasPrefix(ts, "t=") {
			continue
		}
		d, err := time.ParseDuration(strings.TrimPrefix(ts, "t="))
		if err != nil {
			t.Fatalf("trace line %q: %v", l, err)
		}
		ls = append(ls, traceLine{sim.Time(d), text})
	}
	return ls
}

// first returns the first line at or after from that contains all of
// subs, or ok=false.
func first(ls []traceLine, from sim.Time, subs ...string) (traceLine, bool) {
	for _, l := range ls {
		if l.at < from {
			continue
		}
		all := true
		for _, s := range subs {
			all = all && strings.Contains(l.text, s)
		}
		if all {
			return l, true
		}
	}
	return traceLine{}, false
}

func count(ls []traceLine, from, to sim.Time, subs ...string) int {
	n := 0
	for _, l := range ls {
		if l.at < from || l.at > to {
			continue
		}
		all := true
		for _, s := range subs {
			all = all && strings.Contains(l.text, s)
		}
		if all {
			n++
		}
	}
	return n
}

// settled fails the test unless the run broke no invariant and every
// record was acknowledged and committed.
func settled(t *testing.T, r *Result) {
	t.Helper()
	for _, v := range r.Violations {
		t.Errorf("%s: %s", v.Invariant, v.Detail)
	}
	if r.Acked != r.Sent || r.Appended != r.Sent || r.TxnCommitted != 2 {
		t.Errorf("sent %d, acked %d, committed %d, transactions committed %d\nreproduce: %s", r.Sent, r.Acked, r.Appended, r.TxnCommitted, r.Reproduce)
	}
}

// TestPartitionDelaysMarkers: a partition between the coordinator and the
// leader cuts the commit's WriteTxnMarkers off. Nothing tells the
// coordinator (a partition sends no reset), so the request times out
// after 30 s, which closes the connection; the markers go again on a new
// one after the reconnect backoff and are written, and the transaction
// completes, after the heal. Meanwhile the producer's next transaction is
// refused with CONCURRENT_TRANSACTIONS.
func TestPartitionDelaysMarkers(t *testing.T) {
	heal := sim.Time(3 * time.Second)
	r := mustRun(t, srvSpec("500ms partition c1 | b1\n3s heal c1 | b1\n"))
	ls := lines(t, r)
	cut, ok := first(ls, 0, "c1 send WriteTxnMarkers txn=t1", "-> b1 DROPPED partitioned")
	if !ok {
		t.Fatal("no marker request was cut off by the partition")
	}
	done, ok := first(ls, 0, "c1 txn t1", "CompleteCommit")
	if !ok || done.at <= heal {
		t.Fatalf("first CompleteCommit at %v, want after the heal at %v", done.at, heal)
	}
	if done.at < cut.at+sim.Time(30*time.Second) {
		t.Errorf("the transaction completed at %v, before the marker request cut off at %v could time out", done.at, cut.at)
	}
	if _, ok := first(ls, cut.at, "c1 WriteTxnMarkers for t1 timed out"); !ok {
		t.Error("the coordinator did not time the marker request out")
	}
	wrote, ok := first(ls, heal, "b1 marker COMMIT")
	if !ok || wrote.at > done.at {
		t.Errorf("markers written at %v (found %v), want after the heal and by %v", wrote.at, ok, done.at)
	}
	if count(ls, 0, heal, "b1 marker") != 0 {
		t.Error("a marker was written during the partition")
	}
	if n := count(ls, cut.at, done.at, "p1 recv AddPartitionsToTxnResp", "CONCURRENT_TRANSACTIONS"); n == 0 {
		t.Error("the producer's AddPartitionsToTxn was not refused with CONCURRENT_TRANSACTIONS while the markers were pending")
	}
	settled(t, r)
}

// TestOneWayCutNoticesMarkers: a one-way cut c1>b1 drops the markers, but
// the leader's reset still reaches the coordinator: it learns of the
// break one latency later (model.Disconnected), not at its request
// timeout, and retries with a reconnect backoff doubling up to 1 s, so the
// transaction completes within about a second of the heal.
func TestOneWayCutNoticesMarkers(t *testing.T) {
	heal := sim.Time(5 * time.Second)
	r := mustRun(t, srvSpec("500ms partition-oneway c1 > b1\n5s heal-oneway c1 > b1\n"))
	ls := lines(t, r)
	cut, ok := first(ls, 0, "c1 send WriteTxnMarkers txn=t1", "DROPPED partitioned")
	if !ok {
		t.Fatal("no marker request was cut off")
	}
	if _, ok := first(ls, cut.at, "c1 disconnected c1>b1"); !ok {
		t.Error("the coordinator got no disconnect notice")
	}
	// 50, 100, 200, 400, 800 ms, then every second.
	if n := count(ls, cut.at, heal, "c1 send WriteTxnMarkers txn=t1", "DROPPED partitioned"); n < 6 || n > 12 {
		t.Errorf("%d marker requests cut off during the cut, want a retry per reconnect backoff (6..12)", n)
	}
	done, ok := first(ls, 0, "c1 txn t1", "CompleteCommit")
	if !ok || done.at <= heal || done.at > heal+sim.Time(1100*time.Millisecond) {
		t.Fatalf("first CompleteCommit at %v, want within 1.1 s after the heal at %v", done.at, heal)
	}
	if _, ok := first(ls, 0, "timed out"); ok {
		t.Error("a request timed out: the notice should have been enough")
	}
	settled(t, r)
}

// TestBrokerCrashDuringMarkers: the leader crashes with the commit's
// markers on their way to it. They are lost; the crash breaks the
// coordinator's connection (a reset), the coordinator retries with its
// reconnect backoff, and the markers are written once the broker is back.
func TestBrokerCrashDuringMarkers(t *testing.T) {
	// Slow the coordinator's link to the leader, so that the markers are
	// on the wire long enough to crash the leader under them.
	sets := []string{"net.link.latency", "c1>b1 constant base=200ms"}
	base := mustRun(t, srvSpec("", sets...))
	sent, ok := first(lines(t, base), 0, "c1 send WriteTxnMarkers txn=t1", "-> b1")
	if !ok {
		t.Fatal("no marker request")
	}
	crash := sent.at + sim.Time(100*time.Millisecond)
	restart := crash + sim.Time(3*time.Second)
	plan := crash.Duration().String() + " crash b1\n" + restart.Duration().String() + " restart b1\n"
	r := mustRun(t, srvSpec(plan, sets...))
	ls := lines(t, r)
	if _, ok := first(ls, crash, "b1 lost-on-wire WriteTxnMarkers txn=t1", "crashed"); !ok {
		t.Error("the markers in flight were not lost with the crash")
	}
	if _, ok := first(ls, crash, "c1 disconnected c1>b1"); !ok {
		t.Error("the coordinator was not told its connection broke")
	}
	if n := count(ls, 0, restart-1, "b1 marker"); n != 0 {
		t.Errorf("%d markers written before the restart", n)
	}
	wrote, ok := first(ls, restart, "b1 marker COMMIT")
	done, ok2 := first(ls, restart, "c1 txn t1", "CompleteCommit")
	if !ok || !ok2 || done.at < wrote.at {
		t.Fatalf("after the restart at %v: markers written %v at %v, CompleteCommit %v at %v", restart, ok, wrote.at, ok2, done.at)
	}
	if done.at > restart+sim.Time(1500*time.Millisecond) {
		t.Errorf("CompleteCommit at %v, more than a reconnect backoff after the restart at %v", done.at, restart)
	}
	settled(t, r)
}

// TestLostVerificationAnswer: the coordinator's answer to the leader's
// first verification is lost. The loss breaks the leader's connection;
// the reset reaches the leader, which fails the verification as Kafka's
// AddPartitionsToTxnManager does (NETWORK_EXCEPTION) and answers the
// produce request with the retriable NOT_ENOUGH_REPLICAS; the producer
// retries and the batch is appended.
func TestLostVerificationAnswer(t *testing.T) {
	r := mustRun(t, srvSpec("0s drop response 1 b1>c1\n"))
	ls := lines(t, r)
	drop, ok := first(ls, 0, "c1 send VerifyPartitionsResp", "-> b1 DROPPED lost (plan: response 1 b1>c1")
	if !ok {
		t.Fatal("the verification answer was not dropped")
	}
	if _, ok := first(ls, drop.at, "b1 disconnected b1>c1"); !ok {
		t.Error("the leader was not told its connection broke")
	}
	ner, ok := first(ls, drop.at, "b1 send ProduceResp#", "NOT_ENOUGH_REPLICAS", "-> p1")
	if !ok {
		t.Fatal("the produce request was not answered NOT_ENOUGH_REPLICAS")
	}
	if ner.at > drop.at+sim.Time(time.Second) {
		t.Errorf("answered at %v: the leader waited for its timeout, not the reset", ner.at)
	}
	// The request number of the failed produce, and its retry's append.
	i := strings.Index(ner.text, "ProduceResp#")
	no := ner.text[i+len("ProduceResp#"):]
	no = no[:strings.IndexByte(no, ' ')]
	if _, err := strconv.Atoi(no); err != nil {
		t.Fatalf("request number in %q: %v", ner.text, err)
	}
	if _, ok := first(ls, ner.at, "p1 recv ProduceResp#"+no, "NOT_ENOUGH_REPLICAS"); !ok {
		t.Error("the producer did not get the NOT_ENOUGH_REPLICAS answer")
	}
	if _, ok := first(ls, ner.at, "b1 append p0 pid=1000 e=0 seq=0..0"); !ok {
		t.Error("the retried batch was not appended")
	}
	settled(t, r)
}

// TestServerTrafficDeterministic: runs with server traffic, faults on
// server links and random server losses repeat to the trace hash.
func TestServerTrafficDeterministic(t *testing.T) {
	for _, spec := range []Spec{
		srvSpec("500ms partition-oneway c1 > b1\n5s heal-oneway c1 > b1\n"),
		srvSpec("", "net.server_loss", "0.2"),
		srvSpec("", "net.server_loss", "0.2", "net.mode", "datagram"),
	} {
		a, b := mustRun(t, spec), mustRun(t, spec)
		if a.TraceHash != b.TraceHash || len(a.Trace) != len(b.Trace) {
			t.Fatalf("sets %v plan %q: trace hashes %s and %s", spec.Sets, spec.PlanText, a.TraceHash, b.TraceHash)
		}
	}
}

// TestServerLossIsServers: net.server_loss loses messages between servers
// only, and the producers' loss rates none of theirs.
func TestServerLossIsServers(t *testing.T) {
	r := mustRun(t, srvSpec("", "net.server_loss", "0.3"))
	if r.Net.ServerDropped == 0 || r.Net.RequestsLost != 0 || r.Net.ResponsesLost != 0 {
		t.Errorf("net.server_loss=0.3: %+v", r.Net)
	}
	settled(t, r)
	r = mustRun(t, srvSpec("", "net.request_loss", "0.3", "net.response_loss", "0.3"))
	if r.Net.ServerSent == 0 || r.Net.ServerDropped != 0 || r.Net.RequestsLost+r.Net.ResponsesLost == 0 {
		t.Errorf("client losses 0.3: %+v", r.Net)
	}
}
