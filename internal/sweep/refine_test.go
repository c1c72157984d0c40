package sweep

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
)

func txntimeout(t testing.TB) *scenarios.Scenario {
	sc, err := scenarios.Lookup("txntimeout")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestAutoAxis: FROM:TO:autoN parses to an even coarse grid of about
// half the points, and bad N or kinds are refused.
func TestAutoAxis(t *testing.T) {
	a, err := ParseAxis(txntimeout(t), "pause.ms=1000:20000:auto12")
	if err != nil {
		t.Fatal(err)
	}
	if a.Auto != 12 || !slices.Equal(a.Values, []string{"1000", "4800", "8600", "12400", "16200", "20000"}) {
		t.Errorf("auto axis %+v", a)
	}
	d, err := ParseAxis(txntimeout(t), "pause.at=0s:1s:auto7")
	if err != nil || !slices.Equal(d.Values, []string{"0s", "333ms", "667ms", "1s"}) {
		t.Errorf("duration auto axis %v %v", d.Values, err)
	}
	for _, bad := range []string{"pause.ms=1000:20000:auto2", "pause.ms=1000:20000:autox", "pause.ms=20000:1000:auto5", "transactional.id=a:b:auto5"} {
		if _, err := ParseAxis(txntimeout(t), bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestCrossingOf: the 50% crossing is interpolated between the grid
// points around it and bracketed by the points whose intervals exclude
// 50%, rising or falling; a series that never crosses says so.
func TestCrossingOf(t *testing.T) {
	x := []float64{0, 10, 20, 30, 40}
	y := []float64{0, 0.2, 0.4, 0.8, 1}
	lo := []float64{0, 0.1, 0.3, 0.7, 0.9}
	hi := []float64{0.1, 0.3, 0.55, 0.9, 1}
	c := crossingOf(x, y, lo, hi, 0.5)
	if !c.Found || !c.Rising || *c.At != 22.5 || *c.Lo != 10 || *c.Hi != 30 || c.Censored || c.Crossings != 1 {
		t.Errorf("rising: %+v at %v [%v, %v]", c, *c.At, *c.Lo, *c.Hi)
	}
	rev := func(s []float64) []float64 {
		r := make([]float64, len(s))
		for i, v := range s {
			r[i] = 1 - v
		}
		return r
	}
	c = crossingOf(x, rev(y), rev(hi), rev(lo), 0.5)
	if !c.Found || c.Rising || math.Abs(*c.At-22.5) > 1e-9 || *c.Lo != 10 || *c.Hi != 30 {
		t.Errorf("falling: %+v at %v [%v, %v]", c, *c.At, *c.Lo, *c.Hi)
	}
	c = crossingOf(x, []float64{0, 0, 0, 0, 0}, lo, hi, 0.5)
	if c.Found || !strings.Contains(c.Note, "stays below") {
		t.Errorf("flat: %+v", c)
	}
	// The first point's interval already reaches 50%: censored below.
	c = crossingOf(x[:2], []float64{0.45, 0.9}, []float64{0.4, 0.85}, []float64{0.52, 0.95}, 0.5)
	if !c.Found || !c.Censored || *c.Lo != 0 || *c.Hi != 10 {
		t.Errorf("censored: %+v", c)
	}
	if err := CheckMetric("nope"); err == nil || !strings.Contains(err.Error(), "violations") {
		t.Errorf("CheckMetric: %v", err)
	}
}

// TestAdaptive: an autoN sweep over txntimeout's pause adds points where
// the violation rate jumps until it has N, finds the 50% crossing just
// above transaction.timeout.ms, and writes the summary, runs.csv and the
// failing list that a fixed grid of its final values writes, byte for
// byte, for every -parallel.
func TestAdaptive(t *testing.T) {
	cfg := Config{Scenario: txntimeout(t), Base: 1, Runs: 10, FailingK: 1, Crossing: "violations",
		Modes: []bool{true}, Axes: []Axis{}}
	a, err := ParseAxis(cfg.Scenario, "pause.ms=1000:20000:auto10")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Axes = []Axis{a}
	var want [3][]byte
	var sum *Summary
	for i, p := range []int{1, 3} {
		cfg.Parallel = p
		s, c, f := sweep(t, cfg)
		got := [3][]byte{s, c, f}
		if i == 0 {
			want = got
			sum, err = ParseSummary(s)
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		for k := range got {
			if !bytes.Equal(got[k], want[k]) {
				t.Errorf("output %d differs at -parallel %d", k, p)
			}
		}
	}
	ax := sum.Axes[0]
	if len(ax.Values) != 10 || len(ax.Added) != 5 || !slices.IsSortedFunc(ax.Values, func(a, b string) int {
		return int(parseValue("int", a) - parseValue("int", b))
	}) {
		t.Fatalf("axis %+v", ax)
	}
	c := sum.Crossing
	if c == nil || len(c.Series) != 1 || !c.Series[0].Found || *c.Series[0].Lo < 5000 || *c.Series[0].Hi > 6000 {
		t.Fatalf("crossing %+v", c)
	}
	if w := *c.Series[0].Hi - *c.Series[0].Lo; w > 300 {
		t.Errorf("crossing interval %v wide after refinement", w)
	}
	// The chart of the metric marks the crossing with its interval.
	st, err := sum.state()
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range st.Summarize().Charts() {
		if ch.Name == "violations" && (len(ch.Chart.Marks) != 1 || ch.Chart.Marks[0].Lo != *c.Series[0].Lo || !strings.Contains(ch.Chart.Marks[0].Label, "idempotence on")) {
			t.Errorf("violations chart marks %+v", ch.Chart.Marks)
		}
	}
	// The same points as a fixed list give the same runs and counts.
	fixed := cfg
	fixed.Parallel = 2
	fixed.Axes = []Axis{axisOf(t, cfg.Scenario, "pause.ms="+strings.Join(ax.Values, ","))}
	_, c2, f2 := sweep(t, fixed)
	if !bytes.Equal(c2, want[1]) || !bytes.Equal(f2, want[2]) {
		t.Errorf("runs.csv or the failing list differs from the fixed grid's")
	}
	// An autoN axis is not sharded.
	cfg.Shard = shard.Shard{Index: 0, Count: 2}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "cannot be sharded") {
		t.Errorf("sharded auto: %v", err)
	}
}

func axisOf(t testing.TB, sc *scenarios.Scenario, spec string) Axis {
	a, err := ParseAxis(sc, spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
