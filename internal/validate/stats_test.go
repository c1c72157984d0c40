package validate

import "testing"

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
		c := compare("duplicates", "sent", tc.sim, tc.real, tc.m)
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
