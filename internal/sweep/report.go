package sweep

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/plots"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// ReportFile is the Markdown report every -out directory holds.
const ReportFile = "report.md"

// maxReportFailing bounds the failing seeds the report lists; the rest
// are in summary.json.
const maxReportFailing = 12

// Report returns report.md: a title and what was run, the crossing, every
// chart with a caption that states what it shows, the summary table with
// 95% intervals, failing seeds with reproduce commands, and the command,
// version and trace-hash digest. It links only to files in its own
// directory (the charts [Summary.WriteCharts] writes).
func (s *Summary) Report() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	what := "a sweep"
	if len(s.Axes) > 0 {
		var keys []string
		for _, a := range s.Axes {
			keys = append(keys, a.Key)
		}
		what = "a sweep over " + strings.Join(keys, " and ")
	}
	p("# %s: %s\n\n", s.Scenario, what)
	p("%s\n\n", s.paragraph())
	if !s.Complete {
		p("**The sweep was interrupted: these results are partial.**\n\n")
	}
	if n := s.stressNote(); n != "" {
		p("%s\n\n", n)
	}
	if e := s.expectations(); e != "" {
		p("%s\n\n", e)
	}

	if c := s.Crossing; c != nil {
		p("## Where the %s crosses 50%%\n\n", metricLabel(c.Metric))
		for _, cs := range c.Series {
			p("- %s\n", s.crossingSentence(c, cs))
		}
		p("\nThe estimate interpolates linearly between the two grid points around the crossing; the interval runs between the nearest grid points whose 95%% intervals lie wholly on either side of 50%%, so it is as narrow as the grid is fine there.\n\n")
	}

	charts, skipped := s.charts()
	p("## Charts\n\n")
	for _, c := range charts {
		p("![%s](%s.png)\n\n", c.Chart.Title, c.Name)
		p("*%s* ([SVG](%s.svg))\n\n", s.caption(c), c.Name)
	}
	if len(skipped) > 0 {
		p("Not drawn, because the metric is zero or undefined at every point (no run had it): %s.\n\n", strings.Join(skipped, ", "))
	}

	p("## Summary\n\n")
	s.writeTable(&b)

	p("\n## Failing seeds\n\n")
	s.writeFailing(&b)

	p("\n## Reproduce\n\n")
	p("Regenerate this directory (summary, charts, runs.csv and this report) with:\n\n```sh\n%s\n```\n\n", s.Regenerate())
	p("- simulator version: idemsim %s\n", s.Version)
	var vs []string
	for _, pt := range s.Points {
		if pt.Versions != "" && !slices.Contains(vs, pt.Versions) {
			vs = append(vs, pt.Versions)
		}
	}
	if len(vs) > 0 {
		p("- Kafka versions modelled: %s\n", strings.Join(vs, "; "))
	}
	p("- %s, %d runs per point and mode\n", s.SeedRange(), s.Runs)
	p("- trace-hash digest: `%s` (a hash of every point and mode's sum of its runs' trace hashes: a rerun that gives the same digest ran the same runs)\n", s.TraceDigest)
	return b.String()
}

// paragraph says what was run, in one paragraph.
func (s *Summary) paragraph() string {
	var b strings.Builder
	fmt.Fprintf(&b, "This sweep ran the scenario `%s`", s.Scenario)
	if sc, err := scenarios.Lookup(s.Scenario); err == nil {
		fmt.Fprintf(&b, " (%s)", sc.Summary)
	}
	modes := "with idempotence off and on, on the same seeds"
	if len(s.Modes) == 1 {
		modes = "with idempotence " + s.Modes[0]
	}
	fmt.Fprintf(&b, " %d times per point (%s), %s.", s.Runs, s.SeedRange(), modes)
	for _, a := range s.Axes {
		fmt.Fprintf(&b, " It varied `%s` over %d values", a.Key, len(a.Values))
		if a.Kind == "int" || a.Kind == "float" || a.Kind == "duration" {
			fmt.Fprintf(&b, " from %s to %s", a.Values[0], a.Values[len(a.Values)-1])
		} else {
			fmt.Fprintf(&b, " (%s)", strings.Join(a.Values, ", "))
		}
		if a.Auto > 0 {
			metric := "violations"
			if s.Crossing != nil {
				metric = s.Crossing.Metric
			}
			fmt.Fprintf(&b, ": %d on an even grid, then %d added one at a time between the neighbouring points where the %s differed most", len(a.Values)-len(a.Added), len(a.Added), metricLabel(metric))
			if a.Stopped != "" {
				fmt.Fprintf(&b, " (%s)", a.Stopped)
			}
		}
		b.WriteString(".")
	}
	var set []string
	if s.Preset != "" {
		set = append(set, "-preset "+s.Preset)
	}
	for _, id := range s.Bugs {
		set = append(set, "-bug "+id)
	}
	for _, kv := range s.File {
		set = append(set, kv.Key+"="+kv.Value+" (scenario file)")
	}
	for _, kv := range s.Sets {
		set = append(set, kv.Key+"="+kv.Value)
	}
	if len(set) > 0 {
		fmt.Fprintf(&b, " Overrides: %s.", strings.Join(set, ", "))
	}
	return b.String()
}

// stressNote labels the parameters as stress values, or says the preset
// replaced them.
func (s *Summary) stressNote() string {
	sc, err := scenarios.Lookup(s.Scenario)
	if err != nil {
		return ""
	}
	if s.Preset != "" {
		p, err := params.LookupPreset(s.Preset)
		if err == nil {
			return fmt.Sprintf("**Parameters: preset `%s`**: %s.", p.Name, p.Doc)
		}
	}
	return "**Parameters.** " + sc.StressNote()
}

// expectations says what the scenario expects in each mode, so a reader
// can tell an expected finding from a surprise.
func (s *Summary) expectations() string {
	sc, err := scenarios.Lookup(s.Scenario)
	if err != nil {
		return ""
	}
	var parts []string
	for _, m := range s.Modes {
		e, note := sc.ExpectOn, sc.OnNote
		if m == "off" {
			e, note = sc.ExpectOff, sc.OffNote
		}
		line := fmt.Sprintf("with idempotence %s, %s", m, e)
		if note != "" && !strings.Contains(e, note) {
			line += " (" + note + ")"
		}
		parts = append(parts, line)
	}
	return "**What the scenario expects:** " + strings.Join(parts, "; ") + "."
}

// unitOf formats x with the first axis's unit.
func (s *Summary) unitOf(x float64) string {
	v := strconvG(x)
	if u := s.Axes[0].xUnit(); u != "" && u != "probability" {
		v += " " + u
	}
	return v
}

func strconvG(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4g", x)
}

func seriesName(mode, where string) string {
	n := "idempotence " + mode
	if where != "" {
		n += ", " + where
	}
	return n
}

// crossingSentence states one series' crossing in words.
func (s *Summary) crossingSentence(c *Crossing, cs CrossingSeries) string {
	key := s.Axes[0].Key
	name := seriesName(cs.Mode, cs.Where)
	if !cs.Found {
		return fmt.Sprintf("With %s, the %s does not cross 50%% between %s=%s and %s: it %s.", name, metricLabel(c.Metric),
			key, s.Axes[0].Values[0], s.Axes[0].Values[len(s.Axes[0].Values)-1], cs.Note)
	}
	dir := "rises through"
	if !cs.Rising {
		dir = "falls through"
	}
	out := fmt.Sprintf("With %s, the %s %s 50%% at **%s ≈ %s** (95%%: between %s and %s)", name, metricLabel(c.Metric), dir,
		key, s.unitOf(*cs.At), s.unitOf(*cs.Lo), s.unitOf(*cs.Hi))
	if cs.Censored {
		out += "; an end of the interval is the end of the grid, so the crossing may lie beyond it"
	}
	if cs.Crossings > 1 {
		out += fmt.Sprintf("; the series crosses 50%% %d times, this is the first", cs.Crossings)
	}
	return out + "."
}

// caption states what a chart shows, series by series.
func (s *Summary) caption(c NamedChart) string {
	if c.Name == "latency_cdf" {
		var parts []string
		pts := s.latencyPoints()
		for _, pi := range pts {
			for _, m := range s.Modes {
				l := s.Points[pi].Modes[m].LatencyMs
				where := ""
				for _, kv := range s.Points[pi].Values {
					where += ", " + kv.Key + "=" + kv.Value
				}
				if l.P50 == nil {
					parts = append(parts, fmt.Sprintf("idempotence %s%s: no acknowledged record", m, where))
					continue
				}
				parts = append(parts, fmt.Sprintf("idempotence %s%s: median %.4g ms, p99 %.4g ms", m, where, *l.P50, *l.P99))
			}
		}
		out := "Send-to-ack latency, cumulative. " + strings.Join(parts, "; ") + "."
		for i, j := range c.Chart.Coincident() {
			if j >= 0 {
				out += fmt.Sprintf(" %s and %s coincide (one line shows both).", c.Chart.Series[j].Label, c.Chart.Series[i].Label)
			}
		}
		return out
	}
	var parts []string
	key := s.Axes[0].Key
	count := c.Name == "out_of_order" || c.Name == "zombie_writes"
	for _, ser := range c.Chart.Series {
		parts = append(parts, ser.Label+": "+s.finding(ser, key, count))
	}
	y := c.Chart.YLabel
	if y != "" {
		y = strings.ToUpper(y[:1]) + y[1:]
	}
	out := y + " against " + key + ", " + fmt.Sprintf("%d runs per point and mode, 95%% intervals", s.Runs) + ". " + strings.Join(parts, "; ") + "."
	same := c.Chart.Coincident()
	for i, j := range same {
		if j >= 0 {
			out += fmt.Sprintf(" %s and %s coincide (drawn side by side).", c.Chart.Series[j].Label, c.Chart.Series[i].Label)
		}
	}
	return out
}

// maxEnumerated is the most points a caption gives one by one; beyond
// it, a caption describes the trend and gives its ends.
const maxEnumerated = 6

// finding states a series' values with their 95% intervals: point by
// point for up to maxEnumerated points, else the trend and its ends.
// A fraction is given in percent, 0 as "none" with its upper bound and 1
// as "all" with its lower bound; a per-run count (count) as a number.
func (s *Summary) finding(ser plots.Series, key string, count bool) string {
	labels := s.Axes[0].Values
	at := func(i int) string {
		y, lo, hi := ser.Y[i], nan, nan
		if ser.Lo != nil {
			lo, hi = ser.Lo[i], ser.Hi[i]
		}
		where := key + "=" + labels[i]
		switch {
		case !finite(y):
			return where + " undefined"
		case count && finite(lo) && finite(hi):
			return fmt.Sprintf("%s %.3g [%.3g, %.3g]", where, y, lo, hi)
		case count:
			return fmt.Sprintf("%s %.3g", where, y)
		case y == 0 && finite(hi):
			return fmt.Sprintf("%s none (≤ %s)", where, pct(hi))
		case y == 1 && finite(lo):
			return fmt.Sprintf("%s all (≥ %s)", where, pct(lo))
		case finite(lo) && finite(hi):
			return fmt.Sprintf("%s %s [%s, %s]", where, pct(y), pct(lo), pct(hi))
		}
		return where + " " + pct(y)
	}
	if len(ser.Y) <= maxEnumerated {
		parts := make([]string, len(ser.Y))
		for i := range ser.Y {
			parts[i] = at(i)
		}
		return strings.Join(parts, ", ")
	}
	return describe(ser.Y, key, labels) + " (" + at(0) + " … " + at(len(ser.Y)-1) + ")"
}

// pct formats a fraction in percent with three significant digits.
func pct(f float64) string {
	return strconv.FormatFloat(100*f, 'g', 3, 64) + "%"
}

// describe says in words how y moves along x: constant, rising, falling
// (with the step that holds most of the change) or varying.
func describe(y []float64, key string, labels []string) string {
	var xs []string
	var ys []float64
	for i := range y {
		if finite(y[i]) {
			xs, ys = append(xs, labels[i]), append(ys, y[i])
		}
	}
	if len(ys) == 0 {
		return "no data"
	}
	f := func(v float64) string { return fmt.Sprintf("%.3g", v) }
	lo, hi := slices.Min(ys), slices.Max(ys)
	if lo == hi {
		return f(lo) + " at every point"
	}
	up, down := true, true
	for i := 1; i < len(ys); i++ {
		up = up && ys[i] >= ys[i-1]
		down = down && ys[i] <= ys[i-1]
	}
	step := func() string {
		best, bi := 0.0, 0
		for i := 1; i < len(ys); i++ {
			if d := math.Abs(ys[i] - ys[i-1]); d > best {
				best, bi = d, i
			}
		}
		if best > 0.5*(hi-lo) {
			return fmt.Sprintf(", most of it between %s=%s (%s) and %s (%s)", key, xs[bi-1], f(ys[bi-1]), xs[bi], f(ys[bi]))
		}
		return ""
	}
	n := len(ys) - 1
	switch {
	case up:
		return fmt.Sprintf("rises from %s at %s=%s to %s at %s%s", f(ys[0]), key, xs[0], f(ys[n]), xs[n], step())
	case down:
		return fmt.Sprintf("falls from %s at %s=%s to %s at %s%s", f(ys[0]), key, xs[0], f(ys[n]), xs[n], step())
	}
	return fmt.Sprintf("varies between %s (at %s=%s) and %s (at %s=%s)", f(lo), key, xs[slices.Index(ys, lo)], f(hi), key, xs[slices.Index(ys, hi)])
}

// writeTable writes the summary as a Markdown table: one row per point
// and mode, with 95% intervals.
func (s *Summary) writeTable(b *strings.Builder) {
	pct := func(p Prop) string {
		return fmt.Sprintf("%.2f%% [%.2f, %.2f]", 100*p.Fraction, 100*p.Lo, 100*p.Hi)
	}
	num := func(p *float64) string {
		if p == nil {
			return "–"
		}
		return fmt.Sprintf("%.4g", *p)
	}
	invs := map[string]bool{}
	rates := map[string]bool{}
	for _, pt := range s.Points {
		for _, st := range pt.Modes {
			for inv, v := range st.Violations {
				if v.Runs > 0 {
					invs[inv] = true
				}
			}
			for _, r := range rateNames {
				if st.Rates[r].Num > 0 {
					rates[r] = true
				}
			}
		}
	}
	var invNames []string
	for inv := range invs {
		invNames = append(invNames, inv)
	}
	slices.Sort(invNames)
	var rateCols []string
	for _, r := range rateNames {
		if rates[r] {
			rateCols = append(rateCols, r)
		}
	}
	var head []string
	for _, a := range s.Axes {
		head = append(head, a.Key)
	}
	head = append(head, "idempotence", "runs", "any violation (95%)")
	for _, inv := range invNames {
		head = append(head, inv)
	}
	for _, r := range rateCols {
		head = append(head, strings.ReplaceAll(r, "_", " ")+" (95%)")
	}
	head = append(head, "latency p50 / p99 (ms)")
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
	for _, pt := range s.Points {
		for _, m := range s.Modes {
			st := pt.Modes[m]
			var row []string
			for _, kv := range pt.Values {
				row = append(row, kv.Value)
			}
			row = append(row, m, fmt.Sprint(st.Runs), pct(st.AnyViolation))
			for _, inv := range invNames {
				row = append(row, pct(st.Violations[inv]))
			}
			for _, r := range rateCols {
				x := st.Rates[r]
				row = append(row, fmt.Sprintf("%s [%s, %s]%s", num(x.Value), num(x.Lo), num(x.Hi), boundMark(x.Method)))
			}
			row = append(row, num(st.LatencyMs.P50)+" / "+num(st.LatencyMs.P99))
			fmt.Fprintf(b, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintf(b, "\nPercentages are of runs, with Wilson score 95%% intervals; rates are ratios over all runs' records with delta-method 95%% intervals (the simulator's docs/sweeps.md explains both).\n")
	if s.hasBounds() {
		fmt.Fprintf(b, "\n%s\n", boundNote)
	}
}

// writeFailing lists failing seeds per point, mode and invariant, each
// group with the command that reproduces its first seed.
func (s *Summary) writeFailing(b *strings.Builder) {
	var groups []string
	total := 0
	for _, pt := range s.Points {
		where := ""
		for _, kv := range pt.Values {
			where += kv.Key + "=" + kv.Value + ", "
		}
		for _, m := range s.Modes {
			fs := pt.Modes[m].Failing
			for i := 0; i < len(fs); {
				j := i
				var seeds []string
				for j < len(fs) && fs[j].Invariant == fs[i].Invariant {
					seeds = append(seeds, fmt.Sprint(fs[j].Seed))
					j++
				}
				total++
				if len(groups) < maxReportFailing {
					groups = append(groups, fmt.Sprintf("# %sidempotence %s, %s: seeds %s\n%s", where, m, fs[i].Invariant, strings.Join(seeds, ", "), fs[i].Reproduce))
				}
				i = j
			}
		}
	}
	if total == 0 {
		b.WriteString("No run violated an invariant.\n")
		return
	}
	fmt.Fprintf(b, "The first %d failing seeds of each point, mode and invariant (summary.json has them all, with a command each)", s.FailingK)
	if total > len(groups) {
		fmt.Fprintf(b, "; %d of the %d groups shown", len(groups), total)
	}
	fmt.Fprintf(b, ". Each command reproduces the group's first seed; change -seed for the others:\n\n```sh\n%s\n```\n", strings.Join(groups, "\n"))
}

// WriteReport writes report.md to dir.
func (s *Summary) WriteReport(dir string) error {
	return os.WriteFile(filepath.Join(dir, ReportFile), []byte(s.Report()), 0o644)
}
