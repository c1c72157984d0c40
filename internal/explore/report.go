package explore

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/explain"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Output files in an -out directory (docs/explore.md).
const (
	SummaryFile = "summary.json"
	ReportFile  = "report.md"
)

// PlanFile returns the name of the plan file of a counterexample.
func PlanFile(scenario, invariant string) string {
	return "explore-" + scenario + "-" + invariant + ".plan"
}

// Save writes each counterexample's plan file and Mermaid diagram to dir
// ("" for the current directory) and fills in their names, the reproduce
// command and the trace hash by replaying the plan file's plan. sc is the
// scenario (nil: the catalogue's, by name).
func (r *Result) Save(dir string, sc *scenarios.Scenario) error { return r.SaveTo(dir, dir, sc) }

// SaveTo is Save writing the files into writeDir while naming them by dir
// in their reproduce lines (writeDir is a temporary directory that takes
// dir's place once everything is written).
func (r *Result) SaveTo(dir, writeDir string, sc *scenarios.Scenario) error {
	for i := range r.Counterexamples {
		ce := &r.Counterexamples[i]
		name := PlanFile(r.Scenario, ce.Invariant)
		path := filepath.Join(dir, name)
		spec, err := r.Spec(sc, ce.Plan)
		if err != nil {
			return err
		}
		spec.PlanSource = world.PlanSource{File: path}
		rec := explain.Record(&spec)
		res, err := scenarios.Run(spec)
		if err != nil {
			return err
		}
		header := fmt.Sprintf("# counterexample: scenario %s breaks %s with %s (%d events)\n# found by simulate -explore -max-faults %d%s (docs/explore.md)\n# reproduce: %s\n",
			r.Scenario, ce.Invariant, plural(ce.Faults, "fault"), ce.Events, r.MaxFaults, menuFlag(r.Menu), res.Reproduce)
		if err := os.WriteFile(filepath.Join(writeDir, name), []byte(faults.FileText(header+ce.Plan)), 0o644); err != nil {
			return err
		}
		var mmd bytes.Buffer
		if err := explain.WriteMermaid(&mmd, rec.Log(), explain.MermaidTitle(res)+", explore counterexample for "+ce.Invariant, 0); err != nil {
			return err
		}
		diagram := strings.TrimSuffix(name, ".plan") + ".mmd"
		if err := os.WriteFile(filepath.Join(writeDir, diagram), mmd.Bytes(), 0o644); err != nil {
			return err
		}
		ce.File, ce.Diagram, ce.Reproduce, ce.TraceHash = name, diagram, res.Reproduce, res.TraceHash
	}
	return nil
}

// WriteDir writes summary.json and report.md to dir.
func (r *Result) WriteDir(dir string) error {
	b, err := r.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), b, 0o644); err != nil {
		return err
	}
	var md bytes.Buffer
	r.WriteMarkdown(&md, dir)
	return os.WriteFile(filepath.Join(dir, ReportFile), md.Bytes(), 0o644)
}

// header returns the lines that say what was explored.
func (r *Result) header() []string {
	mode := "off"
	if r.Idempotence {
		mode = "on"
	}
	var h []string
	h = append(h, fmt.Sprintf("explore: scenario %s  idempotence %s  seed %d  at most %s", r.Scenario, mode, r.Seed, plural(r.MaxFaults, "fault")))
	if r.Shard != nil {
		h[0] += "  shard " + r.Shard.shard().String()
	}
	h = append(h, "menu: "+r.Menu)
	if len(r.Bugs) > 0 {
		h = append(h, "bugs: "+strings.Join(r.Bugs, ", "))
	}
	if len(r.Fixed) > 0 {
		h = append(h, "random sources off:"+scenarios.OverrideFlags(nil, nil, r.Fixed))
	}
	return h
}

// levelTable returns the per-level table.
func (r *Result) levelTable() []string {
	t := []string{fmt.Sprintf("%-7s %12s %12s %12s %12s", "faults", "schedules", "violating", "pruned", "states")}
	for _, l := range r.Levels {
		row := fmt.Sprintf("%-7d %12s %12s %12s %12s", l.Faults, Count(l.Schedules), Count(l.Violating), Count(l.Pruned), Count(l.States))
		if !l.Complete {
			row += "  (incomplete)"
		}
		t = append(t, row)
	}
	return t
}

// WriteText writes the terminal report.
func (r *Result) WriteText(w io.Writer) {
	for _, l := range r.header() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "levels:")
	for _, l := range r.levelTable() {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, "memory: "+r.Memory.String())
	for i, ce := range r.Counterexamples {
		fmt.Fprintln(w)
		what := "shortest counterexample"
		if i > 0 {
			what = "counterexample"
		}
		fmt.Fprintf(w, "%s: %s with %s, %d events\n", what, ce.Invariant, plural(ce.Faults, "fault"), ce.Events)
		for _, ln := range strings.Split(strings.TrimSuffix(ce.Plan, "\n"), "\n") {
			fmt.Fprintln(w, "  "+ln)
		}
		fmt.Fprintf(w, "  %s at %s: %s\n", ce.Violation.Invariant, fmtNs(ce.Violation.AtNs), ce.Violation.Detail)
		if len(ce.Also) > 1 {
			fmt.Fprintf(w, "  the schedule breaks: %s\n", strings.Join(ce.Also, ", "))
		}
		if ce.File != "" {
			fmt.Fprintf(w, "  saved: %s, %s\n", ce.File, ce.Diagram)
			fmt.Fprintf(w, "  reproduce: %s\n", ce.Reproduce)
		} else {
			fmt.Fprintf(w, "  not saved: add -out DIR to save the plan, its diagram and the command that replays it\n")
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, r.Statement)
	if n := r.stateNote(); n != "" {
		fmt.Fprintln(w, n)
	}
}

// stateNote says how a merge's state-dependent counts differ.
func (r *Result) stateNote() string {
	if r.Shard == nil && r.Kind == "explore" && r.Merged > 1 && r.Prune {
		return fmt.Sprintf("(merged from %d shards with pruning on: each shard prunes against its own states, so the schedule, state and pruned counts differ from one process; the verdict and the counterexamples do not)", r.Merged)
	}
	return ""
}

// WriteMarkdown writes report.md; dir is where the diagrams are.
func (r *Result) WriteMarkdown(w io.Writer, dir string) {
	fmt.Fprintf(w, "# Exploration of %s\n\n", r.Scenario)
	fmt.Fprintf(w, "**%s**\n\n", r.Statement)
	if n := r.stateNote(); n != "" {
		fmt.Fprintf(w, "%s\n\n", n)
	}
	fmt.Fprintln(w, "```text")
	for _, l := range r.header() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "```")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| faults | schedules | violating | pruned | distinct states | complete |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---|")
	for _, l := range r.Levels {
		fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %t |\n", l.Faults, Count(l.Schedules), Count(l.Violating), Count(l.Pruned), Count(l.States), l.Complete)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Memory kept: %s.\n\n", r.Memory.String())
	fmt.Fprintln(w, "| invariant | verdict |")
	fmt.Fprintln(w, "|---|---|")
	for _, v := range r.Invariants {
		verdict := "holds with ≤ " + plural(v.Faults, "fault")
		if v.Faults < 0 {
			verdict = "not established"
		}
		if !v.Holds {
			verdict = "violated with " + plural(v.Faults, "fault")
		}
		fmt.Fprintf(w, "| %s | %s |\n", v.Name, verdict)
	}
	for _, ce := range r.Counterexamples {
		fmt.Fprintf(w, "\n## Counterexample: %s\n\n", ce.Invariant)
		fmt.Fprintf(w, "%s, %d events. %s at %s: %s\n\n", plural(ce.Faults, "fault"), ce.Events, ce.Violation.Invariant, fmtNs(ce.Violation.AtNs), ce.Violation.Detail)
		fmt.Fprintln(w, "```text")
		fmt.Fprint(w, ce.Plan)
		fmt.Fprintln(w, "```")
		if ce.Reproduce != "" {
			fmt.Fprintf(w, "\nPlan file [%s](%s); reproduce (trace-hash %s):\n\n```sh\n%s\n```\n", ce.File, ce.File, ce.TraceHash, ce.Reproduce)
		}
		if ce.Diagram != "" {
			if b, err := os.ReadFile(filepath.Join(dir, ce.Diagram)); err == nil {
				fmt.Fprintf(w, "\n```mermaid\n%s```\n", b)
			}
		}
	}
}

func fmtNs(ns int64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.9f", float64(ns)/1e9), "0"), ".") + "s"
}

// menuFlag returns the -explore-menu flag that gives menu, a
// [Menu.String]: empty for the basic menu.
func menuFlag(menu string) string {
	if strings.HasPrefix(menu, "full:") {
		return " -explore-menu full"
	}
	return ""
}
