package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios/params"
)

// faultAtCase is a scenario with fault.at.ms: the action it moves (the
// first of the plan whose text starts with first) lands in [T+lo, T+hi)
// for fault.at.ms=T.
type faultAtCase struct {
	scenario string
	first    string
	lo, hi   time.Duration
}

var faultAtCases = []faultAtCase{
	{"acks1", "crash b1", 0, 20 * time.Millisecond},                      // one send.interval.ms of jitter
	{"failover", "", 0, 20 * time.Millisecond},                           // a crash or a partition of b1
	{"coordfailover", "crash b1", 0, 2 * time.Second},                    // 2s of jitter
	{"isolated", "partition b1", 0, 4 * time.Second},                     // 4s of jitter
	{"unclean", "partition b1", 0, time.Second},                          // 1s of jitter
	{"restart", "crash p1", 0, time.Second},                              // latency base+spread .. base+2·spread
	{"epochx", "crash p1", 50 * time.Millisecond, 60 * time.Millisecond}, // half a send.interval.ms (100ms) + a tenth of jitter
	{"statelost", "crash b1", 0, 50 * time.Millisecond},                  // iv/4 of jitter
}

// planOf returns the plan a run of scenario with sets would use.
func planOf(t *testing.T, scenario string, seed uint64, sets ...string) faults.Plan {
	t.Helper()
	sc, err := Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	text, err := PlanText(Spec{Scenario: sc, Seed: seed, Sets: kv(sets...)})
	if err != nil {
		t.Fatalf("%s %v: %v", scenario, sets, err)
	}
	p, err := faults.Parse(text)
	if err != nil {
		t.Fatalf("%s: %v\n%s", scenario, err, text)
	}
	return p
}

// actionText is a plan action without its time.
func actionText(a faults.Timed) string { return string(a.AppendTo(nil)) }

// firstAction is the index of the first action of p whose text starts
// with prefix (not a count-armed drop).
func firstAction(t *testing.T, p faults.Plan, prefix string) int {
	t.Helper()
	for i, a := range p.Actions {
		if s := actionText(a); strings.HasPrefix(s, prefix) && !strings.HasPrefix(s, "drop ") {
			return i
		}
	}
	t.Fatalf("no action %q in\n%s", prefix, p.String())
	return -1
}

// TestFaultAtMovesTheFault: fault.at.ms=T puts the scenario's scripted
// fault at T plus its jitter; moving T moves every timed scripted action
// by the same amount and leaves the jitter and the fault noise
// (fault.count) as they were; the default is the scenario's own time.
func TestFaultAtMovesTheFault(t *testing.T) {
	for _, c := range faultAtCases {
		t.Run(c.scenario, func(t *testing.T) {
			sc, err := Lookup(c.scenario)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Resolve(Spec{Scenario: sc})
			if err != nil {
				t.Fatal(err)
			}
			p := v.Values.Param("fault.at.ms")
			if p == nil || p.Unit != "ms" || p.Max != faultAtMax || p.Doc == "" {
				t.Fatalf("fault.at.ms = %+v", p)
			}
			for seed := uint64(1); seed <= 4; seed++ {
				def := planOf(t, c.scenario, seed)
				if got := planOf(t, c.scenario, seed, "fault.at.ms", p.Default); !got.Equal(&def) {
					t.Errorf("seed %d: fault.at.ms=%s (the default) gives\n%s, not the default plan\n%s", seed, p.Default, got.String(), def.String())
				}
				const t1, t2 = 30 * time.Second, 37 * time.Second
				p1 := planOf(t, c.scenario, seed, "fault.at.ms", "30000")
				p2 := planOf(t, c.scenario, seed, "fault.at.ms", "37000")
				i := firstAction(t, p1, c.first)
				if at := p1.Actions[i].At; at < t1+c.lo || at >= t1+c.hi {
					t.Errorf("seed %d: fault.at.ms=30000 puts %q at %v, want [%v, %v)", seed, actionText(p1.Actions[i]), at, t1+c.lo, t1+c.hi)
				}
				if d := def.Actions[firstAction(t, def, c.first)].At; d >= t1+c.lo && d < t1+c.hi {
					t.Errorf("seed %d: the default plan already has the fault at %v", seed, d)
				}
				if len(p1.Actions) != len(p2.Actions) {
					t.Fatalf("seed %d: %d actions at 30000, %d at 37000", seed, len(p1.Actions), len(p2.Actions))
				}
				for k := range p1.Actions {
					a1, a2 := p1.Actions[k], p2.Actions[k]
					if strings.HasPrefix(actionText(a1), "drop ") {
						continue // armed at 0s, by count
					}
					if a2.At-a1.At != t2-t1 || actionText(a1) != actionText(a2) {
						t.Errorf("seed %d: action %d is %v %s at 30000 and %v %s at 37000; want it moved by %v", seed, k, a1.At, actionText(a1), a2.At, actionText(a2), t2-t1)
					}
				}
				// The fault noise is drawn after the scripted fault: its
				// draws stay aligned whatever fault.at.ms is, its default
				// included (a scenario that draws its time draws it
				// when the parameter is set too), so the noise has the
				// same faults at the same times. (Which process one hits
				// may differ: the generator keeps clear of the processes
				// the scripted plan has down, faults.GenOptions.Around.)
				n0 := noiseOf(t, c.scenario, seed, p.Default)
				n1 := noiseOf(t, c.scenario, seed, "30000")
				n2 := noiseOf(t, c.scenario, seed, "37000")
				if !slices.Equal(n0, n1) || !slices.Equal(n1, n2) || len(n1) == 0 {
					t.Errorf("seed %d: fault.count=3 noise differs with fault.at.ms:\n%s: %v\n30000: %v\n37000: %v", seed, p.Default, n0, n1, n2)
				}
			}
		})
	}
}

// noiseOf is the fault.count=3 noise of a run with fault.at.ms=at: the
// times and kinds of the plan's actions that the plan without noise does
// not have.
func noiseOf(t *testing.T, scenario string, seed uint64, at string) []string {
	t.Helper()
	bare := planOf(t, scenario, seed, "fault.at.ms", at)
	noisy := planOf(t, scenario, seed, "fault.at.ms", at, "fault.count", "3")
	var scripted []string
	for _, a := range bare.Actions {
		scripted = append(scripted, fmt.Sprint(a.At, " ", actionText(a)))
	}
	var noise []string
	for _, a := range noisy.Actions {
		s := fmt.Sprint(a.At, " ", actionText(a))
		if i := slices.Index(scripted, s); i >= 0 {
			scripted = slices.Delete(scripted, i, i+1)
			continue
		}
		kind, _, _ := strings.Cut(actionText(a), " ")
		noise = append(noise, fmt.Sprint(a.At, " ", kind))
	}
	if len(scripted) > 0 {
		t.Errorf("%s seed %d: the noisy plan lost scripted actions %v", scenario, seed, scripted)
	}
	return noise
}

// TestFaultAtRange: a scenario that draws its fault's time takes -1 (its
// default) and refuses -2; one with a fixed time refuses -1; both refuse
// more than an hour. The error is one line naming the key and the range.
func TestFaultAtRange(t *testing.T) {
	for _, c := range []struct {
		scenario, value, want string
	}{
		{"acks1", "-2", "fault.at.ms=-2 is out of range (allowed: -1..3600000)"},
		{"acks1", "3600001", "fault.at.ms=3600001 is out of range (allowed: -1..3600000)"},
		{"unclean", "-1", "fault.at.ms=-1 is out of range (allowed: 0..3600000)"},
		{"statelost", "soon", `fault.at.ms="soon" is not an integer`},
	} {
		sc, err := Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Resolve(Spec{Scenario: sc, Sets: kv("fault.at.ms", c.value)})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s fault.at.ms=%s: error %v, want %q", c.scenario, c.value, err, c.want)
		}
	}
}

// TestFaultAtStatelostDrop: in statelost the lost acknowledgement follows
// fault.at.ms: it is the last send's at least 1.5 send intervals (200ms)
// before the crash, the first send's at the earliest and the last's at
// the latest.
func TestFaultAtStatelostDrop(t *testing.T) {
	for _, c := range []struct {
		at   string
		want string
	}{
		{"0", "drop response 1 p1>b1"},
		{"1000", "drop response 4 p1>b1"},   // send 3 at 600ms
		{"1099", "drop response 4 p1>b1"},   // send 4 at 800ms is 299ms before
		{"1100", "drop response 5 p1>b1"},   // send 4 at 800ms is 300ms before
		{"60000", "drop response 20 p1>b1"}, // records=20: the last send
	} {
		p := planOf(t, "statelost", 1, "fault.at.ms", c.at)
		if got := actionText(p.Actions[0]); got != c.want || p.Actions[0].At != 0 {
			t.Errorf("fault.at.ms=%s: first action %v %q, want 0s %q", c.at, p.Actions[0].At, got, c.want)
		}
	}
}

// TestFaultAtTrace: the run carries the fault out at the time the
// parameter gives: acks1's trace shows b1 crashing within one send
// interval after fault.at.ms.
func TestFaultAtTrace(t *testing.T) {
	sc, err := Lookup("acks1")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"300", "900"} {
		r := mustRun(t, Spec{Scenario: sc, Seed: 1, Sets: append(idem(false), params.KV{Key: "fault.at.ms", Value: at}), KeepTrace: true})
		var line string
		for _, l := range r.Trace {
			if strings.HasSuffix(l, " fault crash b1") {
				line = l
				break
			}
		}
		tm, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "t="), " ")
		d, err := time.ParseDuration(tm)
		want, _ := time.ParseDuration(at + "ms")
		if err != nil || d < want || d >= want+20*time.Millisecond {
			t.Errorf("fault.at.ms=%s: crash line %q, want the crash in [%v, %v)", at, line, want, want+20*time.Millisecond)
		}
	}
}
