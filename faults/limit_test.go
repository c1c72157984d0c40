package faults_test

import (
	"math"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
)

// TestTiming: the default end, the horizon and the limit follow
// docs/plans.md: fault.end or the last send plus delivery.timeout.ms,
// then delivery.timeout.ms, two request.timeout.ms and a minute.
func TestTiming(t *testing.T) {
	tm := faults.Timing{LastSend: 2 * time.Second, DeliveryTimeout: 2 * time.Minute, RequestTimeout: time.Second}
	if d, h, l := tm.DefaultEnd(), tm.Horizon(10*time.Minute), tm.Limit(); d != 122*time.Second || h != 13*time.Minute+2*time.Second || l != 5*time.Minute+4*time.Second {
		t.Errorf("default end %v, horizon of a 10m end %v, limit %v", d, h, l)
	}
	tm.FaultEnd = time.Second // earlier than the last send plus delivery.timeout.ms
	if d, l := tm.DefaultEnd(), tm.Limit(); d != time.Second || l != 5*time.Minute+4*time.Second {
		t.Errorf("fault.end 1s: default end %v, limit %v", d, l)
	}
	if h := tm.Horizon(1 << 62); h != time.Duration(math.MaxInt64/4) {
		t.Errorf("a huge end's horizon %v is not capped", h)
	}
}

// TestCheckLimit: an action or an end after the limit is refused, naming
// its line, the limit and what makes it up; at the limit it passes.
func TestCheckLimit(t *testing.T) {
	tm := faults.Timing{LastSend: 2 * time.Second, DeliveryTimeout: 2 * time.Minute, RequestTimeout: time.Second}
	const why = "(allowed: up to 5m4s: the last send 2s plus delivery.timeout.ms 2m0s, then delivery.timeout.ms 2m0s, two request.timeout.ms 1s and 1m0s to converge)"
	cases := []struct{ text, want string }{
		{"1s pause p1 1s\n5m4s drift p1 +5ppm\nend 5m4s", ""},
		{"1s pause p1 1s\n5m4.001s drift p1 +5ppm", "line 2: time 5m4.001s is after the run's time limit 5m4s " + why},
		{"# x\n1s pause p1 1s\nend 1000000h", "line 3: end 1000000h0m0s is after the run's time limit 5m4s " + why},
	}
	for _, c := range cases {
		p, err := faults.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := p.CheckLimit(tm); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.text, got, c.want)
		}
	}
	tm.FaultEnd = 10 * time.Minute
	p := faults.Plan{Actions: []faults.Timed{{At: time.Minute, Action: faults.Crash{Node: "b1"}}}, End: time.Hour}
	if err := p.CheckLimit(tm); err == nil || err.Error() != "end 1h0m0s is after the run's time limit 13m2s (allowed: up to 13m2s: fault.end 10m0s, then delivery.timeout.ms 2m0s, two request.timeout.ms 1s and 1m0s to converge)" {
		t.Errorf("unparsed plan, fault.end: %v", err)
	}
}

// TestFileLines: every plan line an error names becomes the file's line.
func TestFileLines(t *testing.T) {
	got := faults.FileLines("line 2: time 2s is earlier than line 1's 3s (in force: partition p1 | b1 (line 10)); deadline 3s", 6)
	if want := "line 7: time 2s is earlier than line 6's 3s (in force: partition p1 | b1 (line 15)); deadline 3s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
