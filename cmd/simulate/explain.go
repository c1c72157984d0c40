package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/plots"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/explain"
	"github.com/idemsim/idemsim/scenarios/world"
)

// explainFlags are the flags that explain a failing run (docs/explain.md):
// -shrink, -shrink-budget, -diagram and -timeline.
type explainFlags struct {
	shrink   *bool
	budget   *int
	diagram  *string
	timeline *string
	latency  *string
}

func addExplainFlags(fs *flag.FlagSet) *explainFlags {
	return &explainFlags{
		shrink:   fs.Bool("shrink", false, "shrink the failing run's fault plan to a minimal one that breaks the same invariant and print it; with -plan-out FILE also save it and print the command that replays it (without, nothing is written)"),
		budget:   fs.Int("shrink-budget", explain.DefaultShrinkBudget, "most runs -shrink may use, >= 1"),
		diagram:  fs.String("diagram", "", "write a Mermaid sequence diagram of the run (of the shrunk run with -shrink) to `FILE`"),
		timeline: fs.String("timeline", "", "draw the run (the shrunk run with -shrink) as swim lanes into `FILE`.svg or .png"),
		latency:  fs.String("latency-chart", "", "chart each acknowledged record's latency against its send time, the faults marked, into `FILE`.svg or .png (docs/operations.md)"),
	}
}

// record reports whether the run must keep its event log.
func (x *explainFlags) record() bool {
	return *x.diagram != "" || *x.timeline != "" || *x.latency != ""
}

// check validates the flags; it returns a usage message or "".
func (x *explainFlags) check() string {
	if *x.budget < 1 {
		return fmt.Sprintf("-shrink-budget %d is not allowed (allowed: an integer >= 1)", *x.budget)
	}
	for _, f := range [2][2]string{{"timeline", *x.timeline}, {"latency-chart", *x.latency}} {
		flag, t := f[0], f[1]
		if ext := strings.ToLower(filepath.Ext(t)); t != "" && !slices.Contains(plots.Formats, ext) {
			return fmt.Sprintf("-%s %s: extension %q is not allowed (allowed: %s)", flag, t, ext, strings.Join(plots.Formats, ", "))
		}
	}
	return ""
}

// run carries out -shrink, when set, and reports the exit code and true;
// otherwise it checks the flags and returns false unless they are wrong.
func (x *explainFlags) run(spec scenarios.Spec, planOut string, stdout, stderr io.Writer) (int, bool) {
	if msg := x.check(); msg != "" {
		return usageErr(stderr, msg), true
	}
	if !*x.shrink {
		return exitOK, false
	}
	s, err := explain.Shrink(spec, *x.budget)
	if errors.Is(err, explain.ErrNoViolation) {
		fmt.Fprintf(stdout, "shrink: scenario %s seed %d: %v\n", spec.Scenario.Name, spec.Seed, err)
		return exitOK, true
	}
	if err != nil {
		return usageErr(stderr, "-shrink: "+err.Error()), true
	}
	// The plan is saved only where -plan-out names a file: without it,
	// nothing is written (the plan is printed below).
	path := planOut
	text := s.Plan.String()
	header := fmt.Sprintf("# minimal fault plan: scenario %s seed %d breaks %s\n# shrunk from %d actions in %d runs by simulate -shrink (docs/explain.md)\n",
		spec.Scenario.Name, spec.Seed, s.Invariant, s.Before, s.Runs)
	if path != "" {
		if err := os.WriteFile(path, []byte(faults.FileText(header+text)), 0o644); err != nil {
			return usageErr(stderr, fmt.Sprintf("-shrink: cannot write %s: %v", path, unwrapPath(err))), true
		}
	}
	fmt.Fprintf(stdout, "shrink: scenario %s seed %d breaks %s\n", spec.Scenario.Name, spec.Seed, s.Invariant)
	fmt.Fprintf(stdout, "minimal plan (%d of %d actions):\n", len(s.Plan.Actions), s.Before)
	for _, ln := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintln(stdout, "  "+ln)
	}
	budget := ""
	if s.Exhausted {
		budget = " (budget reached: the plan may not be minimal; raise -shrink-budget)"
	}
	fmt.Fprintf(stdout, "runs: %d of at most %d%s\n", s.Runs, *x.budget, budget)
	for _, v := range s.Result.Violations {
		if v.Invariant == s.Invariant {
			fmt.Fprintf(stdout, "still fails: %s at %s: %s\n", v.Invariant, fmtNs(v.AtNs), v.Detail)
			break
		}
	}
	if path != "" {
		fmt.Fprintf(stdout, "saved: %s\n", path)
		fmt.Fprintf(stdout, "reproduce: %s -plan-file %s\n", stripPlanFile(s.Result.Reproduce), scenarios.ShellQuote(path))
	} else {
		fmt.Fprintf(stdout, "not saved: add -plan-out FILE to save the minimal plan and print the command that replays it\n")
	}
	if x.record() {
		spec.Sets, spec.PlanText, spec.PlanSource = s.Sets, text, world.PlanSource{File: path}
		rec := explain.Record(&spec)
		res, err := scenarios.Run(spec)
		if err != nil {
			return usageErr(stderr, "-shrink: "+err.Error()), true
		}
		if code := x.draw(res, rec.Log(), stderr); code != exitOK {
			return code, true
		}
	}
	return exitViolation, true
}

// stripPlanFile drops a "-plan-file X" from a reproduce command.
func stripPlanFile(cmd string) string {
	if i := strings.Index(cmd, " -plan-file "); i >= 0 {
		return cmd[:i]
	}
	return cmd
}

func fmtNs(ns int64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64) + "s" }

// draw writes the diagram and the timeline of a recorded run, whose event
// log is l (nil: the run was not recorded).
func (x *explainFlags) draw(res *scenarios.Result, l *explain.Log, stderr io.Writer) int {
	if l == nil {
		return exitOK
	}
	if *x.diagram != "" {
		f, err := os.Create(*x.diagram)
		if err != nil {
			return usageErr(stderr, fmt.Sprintf("-diagram: cannot write %s: %v", *x.diagram, unwrapPath(err)))
		}
		err = explain.WriteMermaid(f, l, explain.MermaidTitle(res), 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return usageErr(stderr, fmt.Sprintf("-diagram: cannot write %s: %v", *x.diagram, unwrapPath(err)))
		}
	}
	if *x.timeline != "" {
		if err := plots.SaveTimeline(timelineOf(res, l), *x.timeline); err != nil {
			return usageErr(stderr, fmt.Sprintf("-timeline: cannot write %s: %v", *x.timeline, unwrapPath(err)))
		}
	}
	if *x.latency != "" {
		if err := latencyChart(res, l).Save(*x.latency); err != nil {
			return usageErr(stderr, fmt.Sprintf("-latency-chart: cannot write %s: %v", *x.latency, unwrapPath(err)))
		}
	}
	return exitOK
}

// timelineOf turns a run's event log into the plots package's plain data.
func timelineOf(res *scenarios.Result, l *explain.Log) *plots.Timeline {
	lanes := slices.Concat(l.Apps, l.Nodes)
	tl := &plots.Timeline{Title: explain.MermaidTitle(res), Lanes: lanes, End: l.End}
	lane := func(n string) int { return slices.Index(lanes, n) }
	for _, e := range l.Entries {
		switch e.Kind {
		case explain.LogSend, explain.LogApp, explain.LogOutcome:
			a := plots.Arrow{From: lane(e.From), To: lane(e.To), Sent: e.At, At: e.At, Faint: e.Kind != explain.LogSend}
			if e.Kind == explain.LogSend {
				a.At, a.Lost = e.Arrive, e.Fate != ""
			}
			if a.From >= 0 && a.To >= 0 {
				tl.Arrows = append(tl.Arrows, a)
			}
		case explain.LogFault:
			if e.Until <= e.At {
				continue
			}
			for i, n := range e.Nodes {
				iv := plots.Interval{Lane: lane(n), From: e.At, To: e.Until}
				if i == 0 {
					iv.Label = e.Text
				}
				if iv.Lane >= 0 {
					tl.Intervals = append(tl.Intervals, iv)
				}
			}
		case explain.LogViolation:
			// Violations are marked on the first broker's lane.
			m := plots.Mark{Lane: lane(l.Brokers[0]), At: e.At, Label: e.From}
			if !slices.Contains(tl.Marks, m) {
				tl.Marks = append(tl.Marks, m)
			}
		}
	}
	return tl
}
