package sweep

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the summary for a terminal: per point, one column per
// mode.
func (s *Summary) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "sweep: scenario %s  %s  %d runs per point and mode  idemsim %s\n", s.Scenario, s.SeedRange(), s.Runs, s.Version)
	s.writeSources(tw)
	if !s.Complete {
		fmt.Fprintln(tw, "INTERRUPTED: partial results")
	}
	pct := func(p Prop) string {
		return fmt.Sprintf("%d  %.2f%% [%.2f, %.2f]", p.Runs, 100*p.Fraction, 100*p.Lo, 100*p.Hi)
	}
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.4g", *p)
	}
	for i, pt := range s.Points {
		fmt.Fprintln(tw)
		if len(pt.Values) > 0 {
			var vs []string
			for _, kv := range pt.Values {
				vs = append(vs, kv.Key+"="+kv.Value)
			}
			fmt.Fprintf(tw, "point %d/%d: %s\n", i+1, len(s.Points), strings.Join(vs, " "))
		}
		row := func(name string, f func(*Stats) string) {
			fmt.Fprintf(tw, "  %s", name)
			for _, m := range s.Modes {
				fmt.Fprintf(tw, "\t%s", f(pt.Modes[m]))
			}
			fmt.Fprintln(tw, "\t")
		}
		fmt.Fprint(tw, "  idempotence")
		for _, m := range s.Modes {
			fmt.Fprintf(tw, "\t%s", m)
		}
		fmt.Fprintln(tw, "\t")
		row("runs", func(st *Stats) string { return fmt.Sprint(st.Runs) })
		row("any violation", func(st *Stats) string { return pct(st.AnyViolation) })
		invs := map[string]bool{}
		for _, st := range pt.Modes {
			for inv := range st.Violations {
				invs[inv] = true
			}
		}
		names := make([]string, 0, len(invs))
		for inv := range invs {
			names = append(names, inv)
		}
		slices.Sort(names)
		for _, inv := range names {
			row("  "+inv, func(st *Stats) string { return pct(st.Violations[inv]) })
		}
		for _, r := range []string{"duplicate_rate", "reorder_rate", "lost_acked_rate", "fencing_rate"} {
			row(strings.ReplaceAll(r, "_", " "), func(st *Stats) string {
				x := st.Rates[r]
				return fmt.Sprintf("%s [%s, %s]%s  %d/%d", num(x.Value), num(x.Lo), num(x.Hi), boundMark(x.Method), x.Num, x.Den)
			})
		}
		row("zombie writes/run", func(st *Stats) string {
			z := st.ZombieWritesPerRun
			return fmt.Sprintf("%s [%s, %s]%s", num(z.Mean), num(z.Lo), num(z.Hi), boundMark(z.Method))
		})
		row("client epoch bumps", func(st *Stats) string { return fmt.Sprint(st.ClientEpochBumps) })
		row("coord. epoch bumps", func(st *Stats) string { return fmt.Sprint(st.CoordEpochBumps) })
		row("latency p50/p99/p99.9", func(st *Stats) string {
			l := st.LatencyMs
			return fmt.Sprintf("%s / %s / %s ms", num(l.P50), num(l.P99), num(l.P999))
		})
		errs := map[string]bool{}
		for _, st := range pt.Modes {
			for e := range st.Errors {
				errs[e] = true
			}
		}
		enames := make([]string, 0, len(errs))
		for e := range errs {
			enames = append(enames, e)
		}
		slices.Sort(enames)
		for _, e := range enames {
			row(e, func(st *Stats) string { return fmt.Sprint(st.Errors[e]) })
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.hasBounds() {
		fmt.Fprintf(w, "\n%s\n", boundNote)
	}
	if c := s.Crossing; c != nil {
		fmt.Fprintf(w, "\ncrossing of 50%%:\n")
		for _, cs := range c.Series {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(s.crossingSentence(c, cs), "**", ""))
		}
	}
	if len(s.ChartsSkipped) > 0 {
		fmt.Fprintf(w, "\ncharts not drawn (zero or undefined at every point): %s\n", strings.Join(s.ChartsSkipped, ", "))
	}
	var any bool
	for _, pt := range s.Points {
		for _, m := range s.Modes {
			if len(pt.Modes[m].Failing) > 0 {
				any = true
			}
		}
	}
	if any {
		fmt.Fprintf(w, "\nfailing seeds (first %d per point, mode and invariant):\n", s.FailingK)
		for _, pt := range s.Points {
			for _, m := range s.Modes {
				for _, f := range pt.Modes[m].Failing {
					fmt.Fprintf(w, "  %-3s %-9s %s\n", m, f.Invariant, f.Reproduce)
				}
			}
		}
	}
	return nil
}
