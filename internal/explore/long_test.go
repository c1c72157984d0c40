package explore

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios"
)

// The validation runs of docs/explore.md: go test ./internal/explore
// -run Long -long -timeout 4h [-long.out FILE] prints (and writes) the
// tables.
var (
	long    = flag.Bool("long", false, "run the long validation explorations of docs/explore.md")
	longOut = flag.String("long.out", "", "also write the long validation tables to this file")
)

func longOnly(t *testing.T) {
	if !*long {
		t.Skip("long validation run: go test ./internal/explore -run Long -long -timeout 4h")
	}
}

// table collects Markdown rows for the report.
type table struct {
	t    *testing.T
	rows []string
}

func (tb *table) row(format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	tb.rows = append(tb.rows, s)
	tb.t.Log(s)
}

func (tb *table) flush(title string) {
	if *longOut == "" {
		return
	}
	f, err := os.OpenFile(*longOut, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tb.t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "\n### %s (%s, %d CPUs)\n\n", title, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU())
	for _, r := range tb.rows {
		fmt.Fprintln(f, r)
	}
}

// timed runs an exploration with a wall-clock cap (a cancelled run is
// incomplete).
func timed(t *testing.T, c Config, limit time.Duration) (*Result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c.Parallel = runtime.NumCPU()
	start := time.Now()
	r, err := Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	return r, time.Since(start)
}

func violated(r *Result, inv string) (int, bool) {
	for _, v := range r.Invariants {
		if v.Name == inv && !v.Holds {
			return v.Faults, true
		}
	}
	return 0, false
}

// TestLongBugs: every -bug of the catalogue is found by the explorer at
// the smallest number of faults that shows it, and never with the bug off
// at that bound; and, for comparison, how many seeds a sweep of the
// catalogue scenario needs on average to hit the same invariant.
func TestLongBugs(t *testing.T) {
	longOnly(t)
	type bugCase struct {
		bug, scenario, inv string
		sets               []string
		kmax               int
	}
	cases := []bugCase{
		{"Z16", "ackloss", "INV-DUP", []string{"records=3"}, 2},
		{"Z08", "statelost", "INV-DUP", []string{"records=3"}, 2},
		{"Z11", "seqreuse", "INV-DEDUP", nil, 2},
		{"Z11f", "seqreuse", "INV-DEDUP", nil, 2},
		{"Z12", "emptypart", "INV-SEQ", nil, 2},
		{"Z13", "crossbump", "INV-DUP", []string{"records=6"}, 2},
		{"Z05b", "txntimeout", "INV-LOSS", []string{"records=4"}, 2},
		{"Z10", "epochx", "INV-EPOCH", []string{"records=4", "epoch.bits=2"}, 2},
	}
	tb := &table{t: t}
	tb.row("| bug | scenario, explorer settings | invariant | K | schedules (≤ K) | distinct states | time | bug off, same K | sweep: seeds per hit (hits / seeds) |")
	tb.row("|---|---|---|---:|---:|---:|---:|---|---:|")
	for _, bc := range cases {
		sets := append([]string{"bug:" + bc.bug}, bc.sets...)
		found := -1
		var r *Result
		var d time.Duration
		for k := 0; k <= bc.kmax && found < 0; k++ {
			c := cfgFor(t, bc.scenario, k, sets...)
			c.All = true
			r, d = timed(t, c, 30*time.Minute)
			if f, ok := violated(r, bc.inv); ok {
				found = f
			}
		}
		if found < 0 {
			t.Errorf("%s: %s not found with ≤ %d faults: %s", bc.bug, bc.inv, bc.kmax, r.Statement)
			continue
		}
		off := cfgFor(t, bc.scenario, found, bc.sets...)
		off.All = true
		ro, _ := timed(t, off, 30*time.Minute)
		offText := bc.inv + " holds"
		if _, ok := violated(ro, bc.inv); ok {
			offText = bc.inv + " VIOLATED"
			t.Errorf("%s: %s violated with the bug off: %s", bc.bug, bc.inv, ro.Statement)
		}
		if !ro.Complete {
			offText += " (incomplete)"
		}
		// The sweep: the catalogue scenario with its defaults and the
		// bug on, idempotence on, seeds 1..n.
		sc, _ := scenarios.Lookup(bc.scenario)
		n, hits := 500, 0
		for seed := range uint64(n) {
			res, err := scenarios.Run(scenarios.Spec{Scenario: sc, Seed: seed + 1, Bugs: []string{bc.bug}})
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(res.Violations, func(v check.Violation) bool { return v.Invariant == bc.inv }) {
				hits++
			}
		}
		perHit := "never"
		if hits > 0 {
			perHit = fmt.Sprintf("%.1f", float64(n)/float64(hits))
		}
		tb.row("| `%s` | %s %s | %s | %d | %s | %s | %.2fs | %s | %s (%d / %d) |", bc.bug, bc.scenario, strings.Join(bc.sets, " "), bc.inv, found,
			Count(r.Schedules), Count(r.States), d.Seconds(), offText, perHit, hits, n)
	}
	tb.flush("Bugs")
}

// TestLongIdempotence: with idempotence on, the safety invariants over
// every schedule within K=2, and K=3 where that finishes in 5 minutes,
// with the full menu and with message faults only.
func TestLongIdempotence(t *testing.T) {
	longOnly(t)
	type cfg struct {
		scenario string
		sets     []string
	}
	var cases []cfg
	for _, sc := range []string{"ackloss", "reorder", "inflight6", "zombie", "statelost"} {
		for _, n := range []string{"3", "5"} {
			sets := []string{"records=" + n}
			if sc == "inflight6" {
				sets = append(sets, "max.in.flight.requests.per.connection=5")
			}
			cases = append(cases, cfg{sc, sets})
		}
	}
	cases = append(cases, cfg{"wrap", []string{"sequence.bits=3", "records=12"}})
	menus := []struct{ name, kinds string }{{"all", ""}, {"messages", "fault.kinds=drop,partition"}}
	tb := &table{t: t}
	tb.row("| scenario | menu | K | verdict | schedules | distinct states | pruned | time | violated (faults) |")
	tb.row("|---|---|---:|---|---:|---:|---:|---:|---|")
	for _, c := range cases {
		for _, m := range menus {
			for _, k := range []int{2, 3} {
				sets := slices.Clone(c.sets)
				if m.kinds != "" {
					sets = append(sets, m.kinds)
				}
				ec := cfgFor(t, c.scenario, k, sets...)
				ec.All = true
				r, d := timed(t, ec, 5*time.Minute)
				var broken []string
				for _, v := range r.Invariants {
					if !v.Holds {
						broken = append(broken, fmt.Sprintf("%s (%d)", v.Name, v.Faults))
					}
				}
				verdict := r.Verdict
				if r.Stop == "interrupted" {
					verdict = "not done in 5 min"
				}
				tb.row("| %s %s | %s | %d | %s | %s | %s | %s | %.1fs | %s |", c.scenario, strings.Join(c.sets, " "), m.name, k, verdict,
					Count(r.Schedules), Count(r.States), Count(r.Pruned), d.Seconds(), strings.Join(broken, ", "))
				if k == 2 && !r.Complete {
					t.Errorf("%s %v: K=2 did not finish", c.scenario, sets)
				}
				if !r.Complete {
					break
				}
			}
		}
	}
	tb.flush("Idempotence on")
}

// TestLongDeterminism: the same exploration gives the same summary for
// every -parallel, on a larger search.
func TestLongDeterminism(t *testing.T) {
	longOnly(t)
	var first []byte
	for _, p := range []int{1, 2, 4} {
		c := cfgFor(t, "reorder", 2, "records=4")
		c.All, c.Parallel = true, p
		r, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := r.JSON()
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Errorf("-parallel %d: another summary", p)
		}
	}
	if first == nil {
		t.Fatal(errors.New("no run"))
	}
}
