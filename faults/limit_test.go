package faults_test

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
)

// TestCheckLimit: an action or an end after the limit is refused, naming
// its line, the limit and why; at the limit it passes.
func TestCheckLimit(t *testing.T) {
	const why = "the reason"
	cases := []struct{ text, want string }{
		{"1s pause p1 1s\n10s drift p1 +5ppm\nend 10s", ""},
		{"1s pause p1 1s\n10.001s drift p1 +5ppm", "line 2: time 10.001s is after the run's time limit 10s (allowed: up to 10s: the reason)"},
		{"# x\n1s pause p1 1s\nend 1000000h", "line 3: end 1000000h0m0s is after the run's time limit 10s (allowed: up to 10s: the reason)"},
	}
	for _, c := range cases {
		p, err := faults.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := p.CheckLimit(10*time.Second, why); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
	p := faults.Plan{Actions: []faults.Timed{{At: time.Minute, Action: faults.Crash{Node: "b1"}}}, End: time.Hour}
	if err := p.CheckLimit(time.Minute, why); err == nil || err.Error() != "end 1h0m0s is after the run's time limit 1m0s (allowed: up to 1m0s: the reason)" {
		t.Errorf("unparsed plan: %v", err)
	}
}
