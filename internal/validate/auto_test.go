package validate

import (
	"context"
	"github.com/idemsim/idemsim/internal/leaktest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// autoConfig is ackloss with fixedPlan and no random loss: every
// simulated run has the same counts (TestFixedPlanBothSides), so a
// stand-in real side can return exactly them, or something else.
func autoConfig(t *testing.T) (Config, Counts) {
	t.Helper()
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: sc, Runs: 1000, SimRuns: 20, Base: 1, Margin: Margin{Value: 0.05}, PlanText: fixedPlan,
		Modes: []bool{false}, Parallel: 2, Auto: true, Budget: time.Minute,
		Sets: []params.KV{{Key: "records", Value: "30"}, {Key: "net.response_loss", Value: "0"},
			{Key: "max.in.flight.requests.per.connection", Value: "1"}}}
	r, err := scenarios.Run(cfg.spec(false, 1))
	if err != nil {
		t.Fatal(err)
	}
	return cfg, Counts{Sent: r.Sent, Acked: r.Acked, Failed: r.Failed, Pending: r.Pending, Appended: r.Appended,
		Duplicates: r.Duplicates, Reordered: r.Reordered, LostAcked: r.LostAcked, Fenced: r.Fenced, Errors: r.Errors}
}

// returning is a stand-in real side that returns counts at once.
func returning(c Counts, calls *atomic.Int64) func(context.Context, RealSpec) (Counts, error) {
	return func(context.Context, RealSpec) (Counts, error) {
		calls.Add(1)
		return c, nil
	}
}

// TestAutoDecides: -runs auto stops at the first look (30 runs) that
// decides, agree for a real side equal to the simulated one, disagree
// for one with three times the duplicates.
func TestAutoDecides(t *testing.T) {
	cfg, same := autoConfig(t)
	if same.Duplicates == 0 {
		t.Fatalf("the fixed plan gives no duplicate: %+v", same)
	}
	more := same
	more.Duplicates *= 3
	for _, tc := range []struct {
		real Counts
		want string
	}{{same, Agree}, {more, Disagree}} {
		var calls atomic.Int64
		cfg.realRunner = returning(tc.real, &calls)
		res, err := Validate(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := res.Modes[0]
		if m.Verdict != tc.want || m.Stopped != StopDecided || m.RealRuns != AutoMinRuns || calls.Load() != AutoMinRuns || m.Looks != 1 || m.Alpha != Alpha/2 {
			t.Errorf("real %+v: verdict %s, stopped %s (%s), %d runs (%d calls), %d looks at α %v; want %s, decided at the first look of %d runs at α %v",
				tc.real, m.Verdict, m.Stopped, m.StopText, m.RealRuns, calls.Load(), m.Looks, m.Alpha, tc.want, AutoMinRuns, Alpha/2)
		}
	}
}

// TestAutoCap: a counter that 0 against 0 cannot decide at the default
// margin's floor in 40 runs of 30 records: auto looks at 30, again at
// its cap of 40, and says it stopped undecided at the cap, with an
// estimate of the runs that would decide it.
func TestAutoCap(t *testing.T) {
	cfg, same := autoConfig(t)
	cfg.Runs, cfg.Margin, cfg.SimRuns = 40, DefaultMargin, 400
	var calls atomic.Int64
	cfg.realRunner = returning(same, &calls)
	res, err := Validate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Modes[0]
	if m.Verdict != Inconclusive || m.Stopped != StopCap || m.RealRuns != 40 || m.Looks != 2 || m.Alpha != Alpha/4 || m.RunsNeeded == nil || *m.RunsNeeded <= 40 {
		t.Errorf("verdict %s, stopped %s (%s), %d runs, %d looks at α %v, runs needed %v; want inconclusive at the cap of 40 after 2 looks at α %v, needing more than 40",
			m.Verdict, m.Stopped, m.StopText, m.RealRuns, m.Looks, m.Alpha, m.RunsNeeded, Alpha/4)
	}
	var text strings.Builder
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"floor 0.002", "real runs would decide it", "reached -runs auto's most, 40 real runs, undecided"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestBudgetPartialReport: a budget that runs out is not an error: the
// report holds the runs done and says the budget ran out, both with
// -runs auto and with a fixed -runs; the run the budget cut does not
// count.
func TestBudgetPartialReport(t *testing.T) {
	cfg, same := autoConfig(t)
	slow := func(ctx context.Context, _ RealSpec) (Counts, error) {
		select {
		case <-time.After(40 * time.Millisecond):
			return same, nil
		case <-ctx.Done():
			return Counts{}, ctx.Err()
		}
	}
	stuck := func(ctx context.Context, _ RealSpec) (Counts, error) {
		<-ctx.Done()
		return Counts{}, ctx.Err()
	}
	for _, tc := range []struct {
		name     string
		auto     bool
		runner   func(context.Context, RealSpec) (Counts, error)
		min, max int
		text     string
	}{
		{"auto, stuck", true, stuck, 0, 0, "the budget ran out after 0 real runs"},
		{"fixed, slow", false, slow, 1, 999, "the budget ran out after"},
	} {
		cfg.Auto, cfg.realRunner, cfg.Budget, cfg.Margin = tc.auto, tc.runner, 700*time.Millisecond, DefaultMargin
		start := time.Now()
		res, err := Validate(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: took %v with a budget of 700ms", tc.name, took)
		}
		m := res.Modes[0]
		if m.Stopped != StopBudget || m.RealRuns < tc.min || m.RealRuns > tc.max || !strings.Contains(m.StopText, tc.text) || len(m.Comparisons) == 0 || res.Budget == "" {
			t.Errorf("%s: stopped %s (%s), %d real runs, %d comparisons, budget %q; want the budget's stop after %d..%d runs, saying %q",
				tc.name, m.Stopped, m.StopText, m.RealRuns, len(m.Comparisons), res.Budget, tc.min, tc.max, tc.text)
		}
	}
}

// TestRealRunCutLeaksNothing: a real run that the budget cuts in the
// middle returns, and closes its client, proxies and cluster.
func TestRealRunCutLeaksNothing(t *testing.T) {
	sc, _ := scenarios.Lookup("ackloss")
	res, err := scenarios.Resolve(scenarios.Spec{Scenario: sc, Sets: []params.KV{{Key: "enable.idempotence", Value: "false"},
		{Key: "records", Value: "2000"}, {Key: "net.disconnect_notice", Value: "1"}, {Key: "client.policy", Value: "franz-go"}}})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := RunReal(ctx, RealSpec{Resolved: res, Seed: 1, Scale: 1, Instances: 1, Deadline: time.Minute}); err == nil {
		t.Fatal("a run of 2,000 records at time scale 1 finished within 400ms")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the cut run took %v to return", took)
	}
	leaktest.Check(t, before, "the cut run")
}

// TestAutoLastLookDecides: the last look, at the cap or when the budget
// runs out, is one of the schedule's and may decide: the report then
// says so, not "undecided". At the default floor the counters that are
// 0 on both sides need about 80 runs of 30 records: the look at 30
// cannot decide, the last one at the cap of 100 (look 2) does. The
// margin is 50% of the simulated rate rather than the default 20%: the
// counters that are the same non-zero count in every run (the fixed
// plan's) get the Poisson interval of their totals, and 100 real runs'
// 100 NOT_ENOUGH_REPLICAS cannot show agreement within 20%.
func TestAutoLastLookDecides(t *testing.T) {
	cfg, same := autoConfig(t)
	var calls atomic.Int64
	cfg.realRunner = returning(same, &calls)
	cfg.Runs, cfg.SimRuns, cfg.Margin = 100, 400, Margin{Value: 0.5, Relative: true, Floor: DefaultFloor}
	res, err := Validate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Modes[0]
	if m.Stopped != StopCap || m.Verdict != Agree || m.Looks != 2 || m.RealRuns != 100 || !strings.Contains(m.StopText, "decided at this last look") {
		t.Errorf("stopped %s (%s), verdict %s, %d looks, %d runs; want agree at the cap's last look (2), saying so", m.Stopped, m.StopText, m.Verdict, m.Looks, m.RealRuns)
	}
}

// TestAutoFewRuns: below AutoMinRuns -runs auto gives no verdict, even
// where a fixed -runs of the same count would (equal counts at an
// absolute margin).
func TestAutoFewRuns(t *testing.T) {
	cfg, same := autoConfig(t)
	var calls atomic.Int64
	cfg.realRunner = returning(same, &calls)
	cfg.Runs = 20
	res, err := Validate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Modes[0]; m.Verdict != Inconclusive || m.Stopped != StopCap || m.RealRuns != 20 {
		t.Errorf("auto capped at 20: verdict %s, stopped %s (%s), %d runs; want inconclusive", m.Verdict, m.Stopped, m.StopText, m.RealRuns)
	}
	cfg.Auto, cfg.Budget = false, 0
	res, err = Validate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Modes[0]; m.Verdict != Agree {
		t.Errorf("fixed -runs 20: verdict %s, want agree", m.Verdict)
	}
}
