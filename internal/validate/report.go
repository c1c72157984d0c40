package validate

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/plots"
)

// Output files of -out.
const (
	RunsFile    = "runs.csv"
	SummaryFile = "summary.json"
	ReportFile  = "report.md"
	ChartName   = "rates" // rates_off.svg, rates_on.png, ...
)

func num(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*p, 'f', 4, 64)
}

func interval(e Estimate) string {
	if e.Value == nil {
		return "n/a (no " + "events to divide by)"
	}
	if e.Lo == nil {
		return num(e.Value)
	}
	mark := ""
	if e.Poisson {
		mark = "*"
	}
	return num(e.Value) + " [" + num(e.Lo) + ", " + num(e.Hi) + "]" + mark
}

func diffText(c Comparison) string {
	if c.Diff == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.4f [%+.4f, %+.4f]", *c.Diff, *c.DiffLo, *c.DiffHi)
}

// needText is a counter's runs-needed estimate.
func needText(c Comparison) string {
	if c.RunsNeeded == nil {
		if c.NeedWhy == "" {
			return "n/a"
		}
		return "n/a: " + c.NeedWhy
	}
	return fmt.Sprintf("%d (%s)", *c.RunsNeeded, c.NeedWhy)
}

// modeHead is a mode's summary line: runs, why they stopped, the level.
func modeHead(m ModeResult) string {
	s := fmt.Sprintf("%d simulated runs, %d real runs (%.1fs of real runs); %s", m.SimRuns, m.RealRuns, float64(m.RealWallMs)/1000, m.StopText)
	if m.Verdict == Inconclusive && m.RunsNeeded != nil {
		s += fmt.Sprintf("; about %d real runs would decide it at this margin", *m.RunsNeeded)
	}
	return s
}

func verdictText(c Comparison) string {
	v := c.Verdict
	if c.Excluded != "" {
		v += " (not in the verdict: " + c.Excluded + ")"
	}
	return v
}

// WriteText writes the side-by-side report for a terminal.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "idemsim validate: scenario %s\n", r.Scenario)
	fmt.Fprintf(&b, "  simulated: idemsim, seeds %d..; real: %s against %s, through a fault-injecting proxy (loopback)\n", r.BaseSeed, r.Client, r.Broker)
	for _, kv := range r.Sets {
		fmt.Fprintf(&b, "  -set %s=%s\n", kv.Key, kv.Value)
	}
	for _, kv := range r.Overrides {
		fmt.Fprintf(&b, "  validate sets %s=%s on both sides\n", kv.Key, kv.Value)
	}
	fmt.Fprintf(&b, "  real time scale %g; margin %s\n", r.TimeScale, r.Margin)
	if r.Budget != "" {
		fmt.Fprintf(&b, "  budget %s (wall time, both sides, every mode)\n", r.Budget)
	}
	for _, m := range r.Modes {
		fmt.Fprintf(&b, "\nidempotence %s: %s\n", m.Mode, modeHead(m))
		fmt.Fprintf(&b, "  %-34s %-30s %-30s %-30s %-34s %-14s %s\n", "counter (per)", "simulated, 95%", "real, 95%", "real - sim, 90%", "margin", "verdict", "real runs to decide")
		for _, c := range m.Comparisons {
			fmt.Fprintf(&b, "  %-34s %-30s %-30s %-30s %-34s %-14s %s\n", c.Counter+" ("+c.Per+")", interval(c.Sim), interval(c.Real), diffText(c), c.MarginText, verdictText(c), needText(c))
		}
		fmt.Fprintf(&b, "  verdict: %s\n", m.Verdict)
		for _, n := range m.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.Statement)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes report.md.
func (r *Result) WriteMarkdown(w io.Writer, charts bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# idemsim validate: %s\n\n", r.Scenario)
	fmt.Fprintf(&b, "- simulated: idemsim, seeds from %d\n- real: %s against %s, every connection through a fault-injecting TCP proxy on loopback\n", r.BaseSeed, r.Client, r.Broker)
	for _, kv := range r.Sets {
		fmt.Fprintf(&b, "- `-set %s=%s`\n", kv.Key, kv.Value)
	}
	for _, kv := range r.Overrides {
		fmt.Fprintf(&b, "- validate sets `%s=%s` on both sides\n", kv.Key, kv.Value)
	}
	fmt.Fprintf(&b, "- real time scale %g\n- equivalence margin: %s\n", r.TimeScale, r.Margin)
	if r.Budget != "" {
		fmt.Fprintf(&b, "- budget: %s (wall time, both sides, every mode)\n", r.Budget)
	}
	b.WriteString("\n")
	for _, m := range r.Modes {
		fmt.Fprintf(&b, "## Idempotence %s: %s\n\n%s.\n\n", m.Mode, m.Verdict, modeHead(m))
		b.WriteString("| counter | per | simulated (95%) | real (95%) | real − sim (90%) | margin | p (equivalence) | p (difference) | verdict | real runs to decide |\n|---|---|---|---|---|---|---|---|---|---|\n")
		for _, c := range m.Comparisons {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Counter, c.Per, interval(c.Sim), interval(c.Real), diffText(c), c.MarginText, num(c.PEquiv), num(c.PDiff), verdictText(c), needText(c))
		}
		b.WriteString("\n")
		for _, n := range m.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		if charts {
			fmt.Fprintf(&b, "\n![rates, idempotence %s](%s_%s.svg)\n", m.Mode, ChartName, m.Mode)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s\n", r.Statement)
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON returns summary.json.
func (r *Result) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteCSV writes runs.csv: one row per run and side. The real side's
// trace_hash and reproduce columns say why they have no value.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"side", "mode", "run", "seed", "sent", "acked", "failed", "pending", "appended", "duplicates", "reordered", "lost_acked", "fenced", "errors", "wall_ms", "trace_hash", "reproduce"})
	for _, run := range r.Runs {
		errs, _ := json.Marshal(run.Errors)
		if run.Errors == nil {
			errs = []byte("{}")
		}
		i := func(n int64) string { return strconv.FormatInt(n, 10) }
		wall := i(run.WallMs)
		if run.Side == "sim" {
			wall = "none: simulated time"
		}
		cw.Write([]string{run.Side, run.Mode, strconv.Itoa(run.Run), strconv.FormatUint(run.Seed, 10), i(run.Sent), i(run.Acked), i(run.Failed), i(run.Pending),
			i(run.Appended), i(run.Duplicates), i(run.Reordered), i(run.LostAcked), i(run.Fenced), string(errs), wall, run.TraceHash, run.Reproduce})
	}
	cw.Flush()
	return cw.Error()
}

// chart draws one mode's rates: simulated and real side by side with
// their 95% intervals, one X position per counter.
func (r *Result) chart(m ModeResult) *plots.Chart {
	var sim, real plots.Series
	sim.Label, real.Label = "simulated (idemsim)", "real ("+r.Client+")"
	var names []string
	for k, c := range m.Comparisons {
		x := float64(k + 1)
		names = append(names, strconv.Itoa(k+1)+" "+c.Counter)
		add := func(s *plots.Series, e Estimate, dx float64) {
			if e.Value == nil {
				return
			}
			s.X = append(s.X, x+dx)
			s.Y = append(s.Y, *e.Value)
			lo, hi := *e.Value, *e.Value
			if e.Lo != nil {
				lo, hi = *e.Lo, *e.Hi
			}
			s.Lo = append(s.Lo, lo)
			s.Hi = append(s.Hi, hi)
		}
		add(&sim, c.Sim, -0.1)
		add(&real, c.Real, 0.1)
	}
	return &plots.Chart{
		Title:  fmt.Sprintf("%s, idempotence %s: simulated and real rates (verdict: %s)", r.Scenario, m.Mode, m.Verdict),
		XLabel: "counter: " + strings.Join(names, ", "),
		YLabel: "rate (per record sent; lost_acked per record acked)",
		Footnote: fmt.Sprintf("%d simulated runs (seeds from %d), %d real runs at time scale %g; 95%% intervals; margin %s.\nReal time: the real side is statistical, not byte-identical. Redraw: simulate validate -scenario %s -runs %d -out DIR",
			m.SimRuns, r.BaseSeed, m.RealRuns, r.TimeScale, r.Margin, r.Scenario, m.RealRuns),
		Series: []plots.Series{sim, real},
		YMin0:  true,
	}
}

// WriteDir writes runs.csv, summary.json, report.md and each mode's
// chart (SVG and PNG) to dir.
func (r *Result) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, RunsFile))
	if err != nil {
		return err
	}
	if err := r.WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	b, err := r.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), b, 0o644); err != nil {
		return err
	}
	var md strings.Builder
	if err := r.WriteMarkdown(&md, true); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ReportFile), []byte(md.String()), 0o644); err != nil {
		return err
	}
	for _, m := range r.Modes {
		c := r.chart(m)
		for _, ext := range []string{"svg", "png"} {
			if err := c.Save(filepath.Join(dir, ChartName+"_"+m.Mode+"."+ext)); err != nil {
				return err
			}
		}
	}
	return nil
}
