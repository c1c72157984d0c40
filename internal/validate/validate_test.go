package validate

import (
	"bytes"
	"context"
	"github.com/idemsim/idemsim/internal/leaktest"
	stdnet "net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// fixedPlan loses exact messages on the producer's link to the broker:
// two responses (the batches were appended, so without idempotence their
// retries land twice), one request (nothing appended; the retry lands
// once) and one batch answered NOT_ENOUGH_REPLICAS (retried, lands once).
const fixedPlan = `0s drop response 3 p1>b1
0s drop response 8 p1>b1
0s drop request 12 p1>b1
0s reject 15 p1>b1 NOT_ENOUGH_REPLICAS
`

// TestFixedPlanBothSides runs a small validate (30 records, 2 runs per
// side and mode) with a fixed plan and no random loss, so its counts are
// exact on both sides, whatever the timing: with one request in flight
// and one record per batch, the n-th request is the same on both sides.
func TestFixedPlanBothSides(t *testing.T) {
	t.Parallel() // its real runs mostly wait; no goroutine count here
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: sc, Runs: 2, SimRuns: 2, Base: 1, Margin: Margin{Value: 0.05}, PlanText: fixedPlan,
		Modes: []bool{false, true}, Parallel: 2,
		Sets: []params.KV{{Key: "records", Value: "30"}, {Key: "net.response_loss", Value: "0"},
			{Key: "max.in.flight.requests.per.connection", Value: "1"},
			// Every loss closes its connection at once (validate's
			// net.disconnect_notice=1), so no timeout is needed: a long
			// one keeps a slow machine from timing out a slow response
			// and retrying it, which would add a duplicate.
			{Key: "request.timeout.ms", Value: "100000"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	res, err := Validate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("validate took %v", time.Since(start))
	want := map[string]Counts{
		"off": {Sent: 30, Acked: 30, Appended: 32, Duplicates: 2},
		"on":  {Sent: 30, Acked: 30, Appended: 30},
	}
	for _, r := range res.Runs {
		w := want[r.Mode]
		got := r.Counts
		if got.Sent != w.Sent || got.Acked != w.Acked || got.Failed != 0 || got.Pending != 0 || got.Appended != w.Appended ||
			got.Duplicates != w.Duplicates || got.Reordered != 0 || got.LostAcked != 0 || got.Fenced != 0 {
			t.Errorf("%s side, idempotence %s, run %d: %+v, want %+v", r.Side, r.Mode, r.Run, got, w)
		}
		if r.Mode == "off" && got.Errors["NOT_ENOUGH_REPLICAS"] != 1 {
			t.Errorf("%s side, idempotence off, run %d: errors %v, want NOT_ENOUGH_REPLICAS once", r.Side, r.Run, got.Errors)
		}
		if r.Side == "real" && (!strings.HasPrefix(r.TraceHash, "none:") || !strings.HasPrefix(r.Reproduce, "none:")) {
			t.Errorf("real run %d: trace hash %q, reproduce %q: want them to say why there is none", r.Run, r.TraceHash, r.Reproduce)
		}
	}
	if len(res.Runs) != 8 {
		t.Errorf("%d runs, want 8", len(res.Runs))
	}
	for _, m := range res.Modes {
		for _, c := range m.Comparisons {
			if c.Counter == "duplicates" && (c.Sim.Num != c.Real.Num || c.Verdict != Inconclusive) {
				t.Errorf("idempotence %s: duplicates %d (sim) and %d (real), verdict %s; want equal counts, inconclusive with 2 runs", m.Mode, c.Sim.Num, c.Real.Num, c.Verdict)
			}
		}
	}
	dir := t.TempDir()
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{RunsFile, SummaryFile, ReportFile, ChartName + "_off.svg", ChartName + "_on.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	if !bytes.Contains(md, []byte("not byte-identical")) || !bytes.Contains(md, []byte("margin")) {
		t.Errorf("report.md does not state the real side is statistical and the margin:\n%s", md)
	}
}

// TestBootstrapThroughProxy runs the real side against a "user's
// cluster" (an in-process kfake cluster on loopback, reached only through
// -bootstrap): the run creates its own topic, the proxies rewrite the
// advertised brokers, and the fixed plan's counts are exact.
func TestBootstrapThroughProxy(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ListenFn(func(network, _ string) (stdnet.Listener, error) {
		return stdnet.Listen(network, "127.0.0.1:0")
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, _ := scenarios.Lookup("ackloss")
	res, err := scenarios.Resolve(scenarios.Spec{Scenario: sc, Sets: []params.KV{{Key: "enable.idempotence", Value: "false"},
		{Key: "max.in.flight.requests.per.connection", Value: "1"}, {Key: "net.response_loss", Value: "0"},
		{Key: "net.disconnect_notice", Value: "1"}, {Key: "client.policy", Value: "franz-go"}, {Key: "request.timeout.ms", Value: "100000"}}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := faults.Parse(fixedPlan)
	if err != nil {
		t.Fatal(err)
	}
	r := &realRun{spec: RealSpec{Resolved: res, Plan: plan, Seed: 1, Scale: 0.05, Bootstrap: c.ListenAddrs()[0], Instances: 1, Deadline: 30 * time.Second},
		cfg: res.Config, acked: map[int64]bool{}, failed: map[int64]bool{}, outcome: map[int64]bool{}, errs: map[string]int64{}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer r.close()
	if err := r.setup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.drive(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := r.count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sent != 20 || got.Acked != 20 || got.Duplicates != 2 || got.Appended != 22 || got.Errors["NOT_ENOUGH_REPLICAS"] != 1 {
		t.Errorf("counts %+v, want 20 sent and acked, 2 duplicates, NOT_ENOUGH_REPLICAS once", got)
	}
	if st := r.proxies[0][0].Stats(); st.Rewritten == 0 {
		t.Errorf("no Metadata or FindCoordinator response was rewritten: %+v", st)
	}
	if !strings.HasPrefix(r.topic, "idemsim-validate-") {
		t.Errorf("topic %q: want a fresh idemsim-validate- topic", r.topic)
	}
}

// TestNoLeaks: a real run closes every client, proxy connection, proxy
// goroutine and the cluster: the goroutine count comes back to where it
// was.
func TestNoLeaks(t *testing.T) {
	sc, _ := scenarios.Lookup("ackloss")
	res, err := scenarios.Resolve(scenarios.Spec{Scenario: sc, Sets: []params.KV{{Key: "enable.idempotence", Value: "true"},
		{Key: "net.response_loss", Value: "0.2"}, {Key: "net.disconnect_notice", Value: "1"}, {Key: "client.policy", Value: "franz-go"},
		{Key: "max.in.flight.requests.per.connection", Value: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for seed := uint64(1); seed <= 4; seed++ {
		client := ClientFranzGo
		if seed > 2 {
			client = ClientSarama
		}
		if _, err := RunReal(context.Background(), RealSpec{Resolved: res, Seed: seed, Scale: 0.05, Instances: 1, Deadline: 30 * time.Second, Client: client}); err != nil {
			t.Fatal(err)
		}
	}
	leaktest.Check(t, before, "the runs")
}

// TestFixedPlanSarama is TestFixedPlanBothSides with sarama as the real
// client (compared with the Java client's policy, one request in
// flight): the same exact counts on both sides, two duplicates without
// idempotence and none with it.
func TestFixedPlanSarama(t *testing.T) {
	t.Parallel() // its real runs mostly wait; no goroutine count here
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: sc, Client: ClientSarama, Runs: 2, SimRuns: 2, Base: 1, Margin: Margin{Value: 0.05}, PlanText: fixedPlan,
		Modes: []bool{false, true}, Parallel: 2,
		Sets: []params.KV{{Key: "records", Value: "30"}, {Key: "net.response_loss", Value: "0"},
			{Key: "request.timeout.ms", Value: "100000"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Validate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Counts{
		"off": {Sent: 30, Acked: 30, Appended: 32, Duplicates: 2},
		"on":  {Sent: 30, Acked: 30, Appended: 30},
	}
	for _, r := range res.Runs {
		w, got := want[r.Mode], r.Counts
		if got.Sent != w.Sent || got.Acked != w.Acked || got.Failed != 0 || got.Appended != w.Appended || got.Duplicates != w.Duplicates || got.Reordered != 0 || got.LostAcked != 0 {
			t.Errorf("%s side, idempotence %s, run %d: %+v, want %+v", r.Side, r.Mode, r.Run, got, w)
		}
	}
	if len(res.Runs) != 8 || !strings.Contains(res.Client, "sarama") {
		t.Errorf("%d runs, client %q; want 8 runs of sarama", len(res.Runs), res.Client)
	}
}
