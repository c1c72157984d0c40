package validate

import (
	"math"
	"strings"
	"testing"
)

// runsOf returns a pair of n runs, each with x events in y records.
func runsOf(n int, x, y int64) *pair {
	var p pair
	for range n {
		p.add(x, y)
	}
	return &p
}

// alternating returns n runs alternating x1 and x2 events in y records.
func alternating(n int, x1, x2, y int64) *pair {
	var p pair
	for i := range n {
		if i%2 == 0 {
			p.add(x1, y)
		} else {
			p.add(x2, y)
		}
	}
	return &p
}

func TestVerdicts(t *testing.T) {
	abs := Margin{Value: 0.05}
	for _, tc := range []struct {
		name      string
		sim, real *pair
		m         Margin
		want      string
	}{
		{"equal rates, many runs", alternating(1000, 4, 6, 20), alternating(100, 4, 6, 20), abs, Agree},
		{"zero against zero", runsOf(1000, 0, 20), runsOf(100, 0, 20), abs, Agree},
		{"far apart", alternating(1000, 4, 6, 20), alternating(100, 9, 11, 20), abs, Disagree},
		{"few runs", alternating(1000, 4, 6, 20), alternating(4, 4, 6, 20), abs, Inconclusive},
		{"noisy, not shown equivalent nor different", alternating(1000, 4, 6, 20), alternating(12, 0, 12, 20), abs, Inconclusive},
		{"no denominator", runsOf(100, 0, 0), runsOf(100, 0, 0), abs, Inconclusive},
		{"relative margin", alternating(1000, 4, 6, 20), alternating(100, 4, 6, 20), Margin{Value: 0.25, Relative: true}, Agree},
	} {
		c := compare("duplicates", "sent", tc.sim, tc.real, tc.m, Alpha, true)
		if c.Verdict != tc.want {
			t.Errorf("%s: verdict %s (%s), want %s; sim %+v real %+v diff %v [%v, %v]", tc.name, c.Verdict, c.Why, tc.want, c.Sim, c.Real, c.Diff, c.DiffLo, c.DiffHi)
		}
	}
}

// TestZeroBound: a rate that is 0 in every run gets the rule-of-three
// upper bound, not the degenerate [0, 0].
func TestZeroBound(t *testing.T) {
	e := runsOf(100, 0, 20).estimate()
	if e.Hi == nil || *e.Hi < 2.9/2000 || *e.Hi > 3.1/2000 {
		t.Errorf("upper bound %v, want about 3/2000", e.Hi)
	}
}

// TestMarginRules: the default margin is 20% of the simulated rate,
// never below its floor; an absolute margin is what it says.
func TestMarginRules(t *testing.T) {
	for _, tc := range []struct {
		m        Margin
		sim      *pair
		want     float64
		wantRule string
	}{
		{DefaultMargin, alternating(100, 4, 6, 20), 0.05, "relative"},       // 20% of 0.25
		{DefaultMargin, alternating(100, 0, 1, 200), DefaultFloor, "floor"}, // 20% of 0.0025 is 0.0005
		{DefaultMargin, runsOf(100, 0, 20), DefaultFloor, "floor"},
		{DefaultMargin, runsOf(100, 0, 0), DefaultFloor, "floor"}, // no simulated rate
		{Margin{Value: 0.05}, alternating(100, 4, 6, 20), 0.05, "absolute"},
		{Margin{Value: 0.25, Relative: true}, runsOf(100, 0, 20), 0, "relative"}, // no floor: 0
	} {
		c := compare("duplicates", "sent", tc.sim, alternating(100, 4, 6, 20), tc.m, Alpha, true)
		if math.Abs(c.Margin-tc.want) > 1e-12 || c.MarginRule != tc.wantRule || c.MarginText == "" {
			t.Errorf("%v with sim %v: margin %v (%s, %q), want %v (%s)", tc.m, c.Sim.Value, c.Margin, c.MarginRule, c.MarginText, tc.want, tc.wantRule)
		}
	}
}

// TestDefaultMarginNotAutomatic: a real rate of 0.005 against a simulated
// 0 (or the other way round) is not "agree" under the default margin,
// however many runs; the old absolute 0.05 called it agree.
func TestDefaultMarginNotAutomatic(t *testing.T) {
	sim, real := runsOf(2000, 0, 200), alternating(500, 0, 2, 200) // 0 against 0.005
	if c := compare("duplicates", "sent", sim, real, DefaultMargin, Alpha, true); c.Verdict != Disagree {
		t.Errorf("0 against 0.005 at the default margin: %s, want disagree", c.Verdict)
	}
	if c := compare("duplicates", "sent", sim, real, Margin{Value: 0.05}, Alpha, true); c.Verdict != Agree {
		t.Errorf("0 against 0.005 at the absolute 0.05: %s, want agree (the old default's weakness)", c.Verdict)
	}
}

// TestRunsNeeded: the runs-needed estimate is what it takes. With equal
// rates (d = 0) a run count well short of the estimate (40% of it, where
// the TOST's own z² is about 44% of the estimate's) is inconclusive, and
// the estimate itself agrees.
func TestRunsNeeded(t *testing.T) {
	sim := alternating(4000, 4, 6, 20) // 0.25, small interval
	real := alternating(20, 2, 8, 20)  // 0.25, noisy
	c := compare("duplicates", "sent", sim, real, DefaultMargin, Alpha, false)
	if c.Verdict != Inconclusive || c.RunsNeeded == nil || c.NeedWhy != "agree" {
		t.Fatalf("20 noisy runs: %s, runs needed %v (%s); want inconclusive and an estimate towards agree", c.Verdict, c.RunsNeeded, c.NeedWhy)
	}
	n := int(*c.RunsNeeded)
	t.Logf("runs needed: %d", n)
	few := n * 4 / 10 &^ 1
	if got := compare("duplicates", "sent", sim, alternating(few, 2, 8, 20), DefaultMargin, Alpha, false); got.Verdict != Inconclusive {
		t.Errorf("%d runs (40%% of the estimate %d): %s, want inconclusive", few, n, got.Verdict)
	}
	if got := compare("duplicates", "sent", sim, alternating(n+n%2, 2, 8, 20), DefaultMargin, Alpha, false); got.Verdict != Agree {
		t.Errorf("%d runs (the estimate): %s, want agree", n, got.Verdict)
	}
	// A difference: the estimate aims at disagree and reaches it.
	far := alternating(20, 5, 9, 20) // 0.35
	c = compare("duplicates", "sent", sim, far, Margin{Value: 0.05}, Alpha, false)
	if c.RunsNeeded == nil || c.NeedWhy != "disagree" {
		t.Fatalf("0.35 against 0.25 at 0.05: runs needed %v (%s), want an estimate towards disagree", c.RunsNeeded, c.NeedWhy)
	}
	n = int(*c.RunsNeeded)
	if got := compare("duplicates", "sent", sim, alternating(n+n%2, 5, 9, 20), Margin{Value: 0.05}, Alpha, false); got.Verdict != Disagree {
		t.Errorf("%d runs (the estimate): %s, want disagree", n, got.Verdict)
	}
	// 0 against 0: the Poisson bound's SE shrinks as 1/n, and the
	// estimate is reached, not much overshot.
	zs := runsOf(2000, 0, 20)
	c = compare("reordered", "sent", zs, runsOf(30, 0, 20), DefaultMargin, Alpha, false)
	if c.Verdict != Inconclusive || c.RunsNeeded == nil {
		t.Fatalf("0 against 0 in 30 runs of 20: %s, runs needed %v (%s)", c.Verdict, c.RunsNeeded, c.NeedWhy)
	}
	n = int(*c.RunsNeeded)
	t.Logf("0 against 0: runs needed %d", n)
	if got := compare("reordered", "sent", zs, runsOf(n, 0, 20), DefaultMargin, Alpha, false); got.Verdict != Agree {
		t.Errorf("0 against 0 in %d runs (the estimate): %s, want agree", n, got.Verdict)
	}
	if got := compare("reordered", "sent", zs, runsOf(n/2, 0, 20), DefaultMargin, Alpha, false); got.Verdict != Inconclusive {
		t.Errorf("0 against 0 in %d runs (half the estimate): %s, want inconclusive", n/2, got.Verdict)
	}
	// The simulated side alone too wide for the margin: not reachable
	// with a fixed simulated side.
	if r, why := Need(0, 0.01, 20, 0.01, 0.01, false, false, false); r != nil || why == "" {
		t.Errorf("simulated interval wider than the margin: %v (%s), want none and a reason", r, why)
	}
}

// TestLookAlpha: -runs auto's looks spend at most Alpha in all.
func TestLookAlpha(t *testing.T) {
	sum := 0.0
	for j := 1; j <= 60; j++ {
		sum += lookAlpha(j)
	}
	if sum > Alpha || lookAlpha(1) != Alpha/2 {
		t.Errorf("looks spend %v, first %v; want at most %v, first %v", sum, lookAlpha(1), Alpha, Alpha/2)
	}
}

// TestNoSpreadIsNotZeroWidth: a rate that is the same, and not 0, in
// every run gets the exact Poisson interval of its total count, marked,
// not the delta method's zero-width interval.
func TestNoSpreadIsNotZeroWidth(t *testing.T) {
	var p pair
	for range 30 {
		p.add(1, 60)
	}
	e := p.estimate()
	if !e.Poisson || e.Lo == nil || e.Hi == nil || !(*e.Lo < *e.Value && *e.Value < *e.Hi) || e.SE <= 0 {
		t.Fatalf("30 runs of 1 in 60: %+v (lo %v hi %v); want a marked interval around 1/60 with SE > 0", e, e.Lo, e.Hi)
	}
	// 30 events over 1800: the exact Poisson 95% interval of 30 is
	// [20.24, 42.83] (Garwood).
	if lo, hi := *e.Lo*1800, *e.Hi*1800; math.Abs(lo-20.24) > 0.01 || math.Abs(hi-42.83) > 0.01 {
		t.Errorf("interval of the count [%.2f, %.2f], want [20.24, 42.83]", lo, hi)
	}
	if got := interval(e); !strings.HasSuffix(got, "]*") {
		t.Errorf("printed %q, want the * mark", got)
	}
	var q pair
	q.add(1, 60)
	q.add(3, 60)
	if e := q.estimate(); e.Poisson {
		t.Errorf("runs with spread got the Poisson interval: %+v", e)
	}
}
