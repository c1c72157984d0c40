package sweep

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/plots"
	"github.com/idemsim/idemsim/scenarios"
)

// NamedChart is a chart and its file name without extension.
type NamedChart struct {
	Name  string
	Chart *plots.Chart
}

// Footnote is the line under every chart: enough to regenerate it.
func (s *Summary) Footnote() string {
	note := fmt.Sprintf("scenario %s, %s, %d runs per point and mode, idemsim %s", s.Scenario, s.SeedRange(), s.Runs, s.Version)
	if !s.Complete {
		note += " (interrupted: partial)"
	}
	return note + "\n" + wrap(s.Regenerate(), 110)
}

// OutDir is the directory the regenerate command writes to: the -out
// the sweep (or its merge) was given, else SCENARIO-sweep.
func (s *Summary) OutDir() string {
	if s.Out != "" {
		return s.Out
	}
	return s.Scenario + "-sweep"
}

// Regenerate is the command that regenerates the directory:
// [Summary.Command] with -out, and -force, which replaces the directory
// as an earlier output.
func (s *Summary) Regenerate() string {
	return s.Command() + " -out " + scenarios.ShellQuote(s.OutDir()) + " -force"
}

// flagParts splits a command line before each " -" that is outside
// single quotes (a quoted -vary value may hold " -").
func flagParts(cmd string) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i < len(cmd); i++ {
		switch {
		case cmd[i] == '\'':
			quoted = !quoted
		case !quoted && cmd[i] == ' ' && i+1 < len(cmd) && cmd[i+1] == '-':
			parts = append(parts, cmd[start:i])
			start = i + 1
		}
	}
	return append(parts, cmd[start:])
}

// wrap breaks a command line before " -" flags so no line is longer than
// width (a single long flag stays whole); each broken line ends in " \\",
// so the lines paste into a shell as one command.
func wrap(cmd string, width int) string { return joinWrapped(flagParts(cmd), width, " \\\n") }

// joinWrapped joins parts with spaces into lines of at most width
// characters (a longer part stays whole), each line after the first
// indented by four spaces, the lines joined by sep.
func joinWrapped(parts []string, width int, sep string) string {
	var lines []string
	line := ""
	for _, part := range parts {
		switch {
		case line == "":
			line = part
		case len(line)+1+len(part) > width:
			lines = append(lines, line)
			line = "    " + part
		default:
			line += " " + part
		}
	}
	return strings.Join(append(lines, line), sep)
}

func modeLabel(m string) string { return "idempotence " + m }

// seriesOf builds, for each mode (and each value of a second axis), a
// series over the first axis with y(stats) giving value, lo, hi.
func (s *Summary) seriesOf(prefix string, y func(*Stats) (v, lo, hi *float64)) []plots.Series {
	var out []plots.Series
	for _, ls := range s.series(prefix, y) {
		out = append(out, ls.Series)
	}
	return out
}

// labelled is a series with the mode and second-axis value it is of.
type labelled struct {
	plots.Series
	mode, where string
}

func (s *Summary) series(prefix string, y func(*Stats) (v, lo, hi *float64)) []labelled {
	xs, _ := s.Axes[0].numeric()
	inner := 1
	var second *Axis
	if len(s.Axes) == 2 {
		second = &s.Axes[1]
		inner = len(second.Values)
	}
	var out []labelled
	for _, m := range s.Modes {
		for j := range inner {
			label := prefix + modeLabel(m)
			where := ""
			if second != nil {
				where = second.Key + "=" + second.Values[j]
				label += ", " + where
			}
			ser := plots.Series{Label: label}
			for i, x := range xs {
				v, lo, hi := y(s.Points[i*inner+j].Modes[m])
				ser.X = append(ser.X, x)
				ser.Y = append(ser.Y, val(v))
				ser.Lo = append(ser.Lo, val(lo))
				ser.Hi = append(ser.Hi, val(hi))
			}
			out = append(out, labelled{ser, m, where})
		}
	}
	return out
}

var nan = func() float64 { z := 0.0; return z / z }()

func val(p *float64) float64 {
	if p == nil {
		return nan
	}
	return *p
}

func rateOf(name string) func(*Stats) (v, lo, hi *float64) {
	return func(st *Stats) (v, lo, hi *float64) {
		r := st.Rates[name]
		return r.Value, r.Lo, r.Hi
	}
}

// Charts returns the sweep's charts. With an axis: the fraction of runs
// with any violation; the duplicate rate; OUT_OF_ORDER_SEQUENCE_NUMBER
// errors and duplicates per run; and, when any zombie produced, the
// fencing rate and zombie writes per run; the -crossing metric, if not
// one of these; all against the first axis, on against off, with 95%
// error bars. A chart whose metric is zero at every point is left out
// (Summary.ChartsSkipped names it). Always: the send-to-ack latency CDF,
// on against off.
func (s *Summary) Charts() []NamedChart {
	out, _ := s.charts()
	return out
}

// allZero reports whether every finite value of every series is 0.
func allZero(c *plots.Chart) bool {
	for _, ser := range c.Series {
		for _, y := range ser.Y {
			if finite(y) && y != 0 {
				return false
			}
		}
	}
	return true
}

func (s *Summary) charts() (out []NamedChart, skipped []string) {
	foot := s.Footnote()
	if len(s.Axes) > 0 {
		xs, xl := s.Axes[0].numeric()
		title := func(what string) string { return fmt.Sprintf("%s: %s against %s", s.Scenario, what, s.Axes[0].Key) }
		ticks := xs // on the data's grid
		cats, catNote := s.Axes[0].categories()
		if catNote != "" {
			foot = wrapWords(catNote, 110) + "\n" + foot
		}
		add := func(name string, c *plots.Chart) {
			c.XTicks, c.Categories, c.Footnote = ticks, cats, foot
			if cr := s.Crossing; cr != nil && (name == cr.Metric || name == "violations" && cr.Metric == "violations" || name == chartName(cr.Metric)) {
				for _, cs := range cr.Series {
					if cs.Found {
						c.Marks = append(c.Marks, plots.XMark{X: *cs.At, Lo: *cs.Lo, Hi: *cs.Hi,
							Label: fmt.Sprintf("50%% at %s [%s, %s], %s", strconvG(*cs.At), strconvG(*cs.Lo), strconvG(*cs.Hi), seriesName(cs.Mode, cs.Where))})
					}
				}
			}
			if allZero(c) {
				skipped = append(skipped, name)
				return
			}
			out = append(out, NamedChart{name, c})
		}
		metric := func(name string) func(*Stats) (v, lo, hi *float64) {
			return func(st *Stats) (v, lo, hi *float64) {
				a, b, d, ok := metricOf(st, name)
				if !ok {
					return nil, nil, nil
				}
				return &a, &b, &d
			}
		}
		// One chart per invariant that any run broke: an anomaly class
		// each, so that expected duplicates never sit on the same curve
		// as data loss.
		for _, inv := range s.brokenInvariants() {
			add(chartName(inv), &plots.Chart{
				Title: title("runs with " + inv + " (" + check.Meaning(inv) + ")"), XLabel: xl, YLabel: "fraction of runs violating " + inv,
				Footnote: foot, Series: s.seriesOf("", metric(inv)), YMin0: true})
		}
		add("violations", &plots.Chart{
			Title: title("runs with any violation (secondary: all anomaly classes together)"), XLabel: xl, YLabel: "fraction of runs with any violation",
			Footnote: foot, Series: s.seriesOf("", metric("violations")), YMin0: true})
		add("duplicate_rate", &plots.Chart{
			Title: title("duplicate rate"), XLabel: xl, YLabel: "duplicates / records sent",
			Footnote: foot, Series: s.seriesOf("", rateOf("duplicate_rate")), YMin0: true})

		// OUT_OF_ORDER_SEQUENCE_NUMBER against duplicates: drawn only
		// when some run got the error (never without idempotence), else
		// it is a chart of zeros beside the duplicate rate.
		oooSeen := false
		for _, pt := range s.Points {
			for _, st := range pt.Modes {
				oooSeen = oooSeen || st.State.Errors["OUT_OF_ORDER_SEQUENCE_NUMBER"] != nil && st.State.Errors["OUT_OF_ORDER_SEQUENCE_NUMBER"].Sum > 0
			}
		}
		ooo := s.seriesOf("OUT_OF_ORDER_SEQUENCE_NUMBER, ", func(st *Stats) (v, lo, hi *float64) {
			m := Moments{}
			if e := st.State.Errors["OUT_OF_ORDER_SEQUENCE_NUMBER"]; e != nil {
				m = *e
			}
			r := mean(m, st.Runs)
			return r.Mean, r.Lo, r.Hi
		})
		dups := s.seriesOf("duplicates, ", func(st *Stats) (v, lo, hi *float64) {
			r := mean(st.State.Duplicate.X, st.Runs)
			return r.Mean, r.Lo, r.Hi
		})
		// Without idempotence there are no sequence numbers, so no such
		// error: its series would only be zeros.
		ooo = slices.DeleteFunc(ooo, func(ser plots.Series) bool { return strings.Contains(ser.Label, modeLabel("off")) })
		if oooSeen {
			add("out_of_order", &plots.Chart{
				Title: s.Scenario + ": OUT_OF_ORDER_SEQUENCE_NUMBER errors and duplicates", XLabel: xl,
				YLabel: "per run (errors; duplicate records)", Footnote: foot, Series: append(ooo, dups...), YMin0: true})
		} else {
			skipped = append(skipped, "out_of_order")
		}

		lost := false
		for _, pt := range s.Points {
			for _, st := range pt.Modes {
				lost = lost || st.State.LostAcked.X.Sum > 0
			}
		}
		if lost {
			add("lost_acked_rate", &plots.Chart{
				Title: title("lost acknowledged records"), XLabel: xl, YLabel: "lost / acknowledged records",
				Footnote: foot, Series: s.seriesOf("", rateOf("lost_acked_rate")), YMin0: true})
		} else {
			skipped = append(skipped, "lost_acked_rate")
		}

		zombies := false
		for _, pt := range s.Points {
			for _, st := range pt.Modes {
				zombies = zombies || st.State.Fencing.Y.Sum > 0 || st.State.ZombieWrites.Sum > 0
			}
		}
		if zombies {
			add("fencing_rate", &plots.Chart{
				Title: title("fencing rate"), XLabel: xl, YLabel: "zombie batches rejected / zombie batches sent",
				Footnote: foot, Series: s.seriesOf("", rateOf("fencing_rate")), YMin0: true})
			add("zombie_writes", &plots.Chart{
				Title: title("zombie writes"), XLabel: xl, YLabel: "zombie writes per run (records)",
				Footnote: foot, YMin0: true, Series: s.seriesOf("", func(st *Stats) (v, lo, hi *float64) {
					m := st.ZombieWritesPerRun
					return m.Mean, m.Lo, m.Hi
				})})
		} else {
			skipped = append(skipped, "fencing_rate", "zombie_writes") // undefined: no superseded instance sent
		}
		// A group member's stall on UNSTABLE_OFFSET_COMMIT: drawn (and
		// named in ChartsSkipped) only in a sweep where one stalled, as
		// other scenarios have no group members to stall.
		stalled := false
		for _, pt := range s.Points {
			for _, st := range pt.Modes {
				stalled = stalled || st.OffsetFetchStallMs != nil
			}
		}
		if stalled {
			add("offset_fetch_stall", &plots.Chart{
				Title: title("a group member's longest stall on UNSTABLE_OFFSET_COMMIT"), XLabel: xl, YLabel: "offset_fetch_stall_ms per run (ms)",
				Footnote: foot, YMin0: true, Series: s.seriesOf("", func(st *Stats) (v, lo, hi *float64) {
					m := mean(Moments{}, st.Runs) // no run stalled: 0, with its interval
					if st.OffsetFetchStallMs != nil {
						m = *st.OffsetFetchStallMs
					}
					return m.Mean, m.Lo, m.Hi
				})})
		}
		if c := s.Crossing; c != nil && !slices.Contains([]string{"violations", "duplicate_rate", "fencing_rate"}, c.Metric) {
			add(chartName(c.Metric), &plots.Chart{
				Title: title(metricLabel(c.Metric)), XLabel: xl, YLabel: metricLabel(c.Metric),
				Footnote: foot, Series: s.seriesOf("", metric(c.Metric)), YMin0: true})
		}
	}

	// Latency: every mode at the latency points (latencyPoints).
	var cdf []plots.Series
	pts := s.latencyPoints()
	for _, p := range pts {
		for _, m := range s.Modes {
			label := modeLabel(m)
			for _, kv := range s.Points[p].Values {
				label += ", " + kv.Key + "=" + kv.Value
			}
			x, y := CDF(s.Points[p].Modes[m].State.Latency)
			cdf = append(cdf, plots.Series{Label: label, X: x, Y: y})
		}
	}
	out = append(out, NamedChart{"latency_cdf", plots.NewCDF(s.Scenario+": send-to-ack latency",
		"send-to-ack latency (ms)", foot, cdf...)})
	return out, skipped
}

// WriteCharts writes every chart to dir as NAME.svg and NAME.png.
func (s *Summary) WriteCharts(dir string) error {
	for _, c := range s.Charts() {
		for _, ext := range []string{".svg", ".png"} {
			if err := c.Chart.Save(filepath.Join(dir, c.Name+ext)); err != nil {
				return err
			}
		}
	}
	return nil
}

// chartName is the file name of a metric's own chart.
func chartName(metric string) string { return strings.ToLower(strings.ReplaceAll(metric, "-", "_")) }

// wrapWords breaks text into lines of at most width characters at spaces
// (a longer word stays whole).
func wrapWords(text string, width int) string { return joinWrapped(strings.Fields(text), width, "\n") }

// brokenInvariants returns the invariants some run of the sweep broke,
// in report order.
func (s *Summary) brokenInvariants() []string {
	var out []string
	for _, inv := range scenarios.Invariants() {
		for _, pt := range s.Points {
			if slices.ContainsFunc(s.Modes, func(m string) bool { return pt.Modes[m].Violations[inv].Runs > 0 }) {
				out = append(out, inv)
				break
			}
		}
	}
	return out
}

// latencyPoints are the points whose latency the CDF draws: the first and,
// with axes, the last (the ends of a numeric range); every point when the
// first axis is categorical and there are at most maxEnumerated points,
// since no category stands for the ones between others.
func (s *Summary) latencyPoints() []int {
	if len(s.Axes) > 0 && s.Axes[0].categorical() && len(s.Points) <= maxEnumerated {
		pts := make([]int, len(s.Points))
		for i := range pts {
			pts[i] = i
		}
		return pts
	}
	pts := []int{0}
	if len(s.Points) > 1 {
		pts = append(pts, len(s.Points)-1)
	}
	return pts
}
