package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/internal/explore"
	"github.com/idemsim/idemsim/internal/sweep"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/htmlpage"
	"github.com/idemsim/idemsim/scenarios/world"
)

// htmlFlag is -html FILE (docs/html.md): one self-contained page of a
// single run. Sweeps and explorations write their pages into -out.
type htmlFlag struct{ path *string }

func addHTMLFlag(fs *flag.FlagSet) htmlFlag {
	return htmlFlag{fs.String("html", "", "write the run as one self-contained HTML page to `FILE`.html: swim lanes of every node, the violation's record path, the trace beside it (docs/html.md); sweeps and -explore write pages into -out instead")}
}

func (h htmlFlag) on() bool { return *h.path != "" }

// check validates -html FILE for a single run, before it runs; it
// returns a usage message or "".
func (h htmlFlag) check(shrink bool) string {
	if !h.on() {
		return ""
	}
	if shrink {
		return "-html is not allowed with -shrink (run the shrunk plan's reproduce command with -html)"
	}
	if ext := strings.ToLower(filepath.Ext(*h.path)); ext != ".html" && ext != ".htm" {
		return fmt.Sprintf("-html %s: extension %q is not allowed (allowed: .html, .htm)", *h.path, ext)
	}
	if fi, err := os.Stat(*h.path); err == nil && fi.IsDir() {
		return fmt.Sprintf("-html: cannot write %s: it is a directory", *h.path)
	}
	if dir := filepath.Dir(*h.path); !isDir(dir) {
		return fmt.Sprintf("-html: cannot write %s: directory %s does not exist", *h.path, dir)
	}
	return ""
}

// write writes a single run's page.
func (h htmlFlag) write(res *scenarios.Result, run *htmlpage.Run, stderr io.Writer) int {
	if !h.on() || run == nil {
		return exitOK
	}
	if err := writePage(*h.path, res, run); err != nil {
		return usageErr(stderr, fmt.Sprintf("-html: cannot write %s: %v", *h.path, unwrapPath(err)))
	}
	return exitOK
}

// writePage writes a run's page to path: into a temporary file beside
// it, renamed into place once complete, so a failure leaves no partial
// page.
func writePage(path string, res *scenarios.Result, run *htmlpage.Run) error {
	htmlpage.Aggregate(run, htmlpage.MaxItems)
	var b bytes.Buffer
	if err := htmlpage.Write(&b, run, htmlpage.MetaOf(res, storyLines(res))); err != nil {
		return err
	}
	return writeFileAtomic(path, b.Bytes())
}

// storyLines returns the report's "what happened", one item a line.
func storyLines(res *scenarios.Result) []string {
	var b bytes.Buffer
	writeStory(&b, res)
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "  - "):
			out = append(out, strings.TrimPrefix(l, "  - "))
		case strings.HasPrefix(l, "    ") && len(out) > 0:
			out[len(out)-1] += " " + strings.TrimSpace(l)
		}
	}
	return out
}

// IndexFile is the index page a sweep's or an exploration's -out
// directory holds.
const IndexFile = "index.html"

// PageName is the page a sweep writes for one kept failing run:
// "point0-off-seed4.html" (as its history, HistoryName).
func PageName(k sweep.Kept) string {
	return fmt.Sprintf("point%d-%s-seed%d.html", k.Point, sweep.ModeName(k.On), k.Seed)
}

// writeSweepPages runs every failing seed the sweep's summary keeps
// again, with the page's reader, writes one page each into dir (the -out
// directory being written) and index.html: the report and a link to
// each page.
func writeSweepPages(cfg *sweep.Config, st *sweep.State, sum *sweep.Summary, dir string) error {
	report, err := os.ReadFile(filepath.Join(dir, sweep.ReportFile))
	if err != nil {
		return err
	}
	ix := htmlpage.Index{Title: "idemsim sweep: scenario " + sum.Scenario, Report: string(report), RunsTitle: "Failing seeds"}
	kept := st.Kept()
	if len(kept) == 0 {
		ix.Note = "No run broke an invariant, so there is no run page."
	} else {
		ix.Note = fmt.Sprintf("A page for each failing seed the report lists (the first %d of each point, mode and invariant: -failing), made by running it again.", cfg.FailingK)
	}
	for _, k := range kept {
		spec := cfg.Spec(k.Seed, k.Point, k.On)
		rec := htmlpage.Record(&spec)
		res, err := scenarios.Run(spec)
		if err != nil {
			return fmt.Errorf("seed %d: %v", k.Seed, err)
		}
		name := PageName(k)
		if err := writePage(filepath.Join(dir, name), res, rec.Run()); err != nil {
			return err
		}
		ix.Runs = append(ix.Runs, htmlpage.IndexRun{Label: keptLabel(sum, k), Href: name, Verdict: brokenInvariants(res)})
	}
	return writeIndex(filepath.Join(dir, IndexFile), ix)
}

// keptLabel names a kept failing run in an index: its point's values,
// its mode and its seed.
func keptLabel(sum *sweep.Summary, k sweep.Kept) string {
	var label []string
	if k.Point < len(sum.Points) {
		for _, kv := range sum.Points[k.Point].Values {
			label = append(label, kv.Key+"="+kv.Value)
		}
	}
	label = append(label, "idempotence "+sweep.ModeName(k.On), "seed "+strconv.FormatUint(k.Seed, 10))
	return strings.Join(label, ", ")
}

// writeMergePages copies into dir (the merged -out directory being
// written) the page of each failing seed the merged summary keeps, from
// the shard directory that made it (a shard's pages are the runs a whole
// sweep would run again, byte for byte), and writes index.html: the
// merged report and a link to each page. A page no shard has (a shard
// written by an earlier version) is left out, and the index says so.
func writeMergePages(sum *sweep.Summary, shards []string, dir string) error {
	report, err := os.ReadFile(filepath.Join(dir, sweep.ReportFile))
	if err != nil {
		return err
	}
	kept, err := sum.KeptRuns()
	if err != nil {
		return err
	}
	ix := htmlpage.Index{Title: "idemsim sweep: scenario " + sum.Scenario, Report: string(report), RunsTitle: "Failing seeds"}
	var missing []string
	for _, k := range kept {
		name := PageName(k.Kept)
		var page []byte
		for _, d := range shards {
			if b, err := os.ReadFile(filepath.Join(d, name)); err == nil {
				page = b
				break
			}
		}
		if page == nil {
			missing = append(missing, name)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), page, 0o644); err != nil {
			return err
		}
		ix.Runs = append(ix.Runs, htmlpage.IndexRun{Label: keptLabel(sum, k.Kept), Href: name, Verdict: strings.Join(k.Invariants, ", ")})
	}
	switch {
	case len(kept) == 0:
		ix.Note = "No run broke an invariant, so there is no run page."
	case len(missing) > 0:
		ix.Note = fmt.Sprintf("A page for each failing seed the merged report lists, from the shard that ran it; %d are in no shard directory (%s): run that shard again to make them.", len(missing), strings.Join(missing, ", "))
	default:
		ix.Note = fmt.Sprintf("A page for each failing seed the merged report lists (the first %d of each point, mode and invariant: -failing), from the shard that ran it.", sum.FailingK)
	}
	return writeIndex(filepath.Join(dir, IndexFile), ix)
}

// writeExplorePages writes the page of each counterexample of an
// exploration into dir (the -out directory being written), beside its
// plan, and index.html: the report and a link to each page. out is the
// final -out directory, which the pages' reproduce lines name.
func writeExplorePages(r *explore.Result, sc *scenarios.Scenario, out, dir string) error {
	report, err := os.ReadFile(filepath.Join(dir, explore.ReportFile))
	if err != nil {
		return err
	}
	ix := htmlpage.Index{Title: "idemsim exploration: scenario " + r.Scenario, Report: string(report), RunsTitle: "Counterexamples"}
	if len(r.Counterexamples) == 0 {
		ix.Note = "No schedule broke an invariant, so there is no run page."
	}
	for _, ce := range r.Counterexamples {
		spec, err := r.Spec(sc, ce.Plan)
		if err != nil {
			return err
		}
		spec.PlanSource = world.PlanSource{File: filepath.Join(out, ce.File)}
		rec := htmlpage.Record(&spec)
		res, err := scenarios.Run(spec)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(ce.File, ".plan") + ".html"
		if err := writePage(filepath.Join(dir, name), res, rec.Run()); err != nil {
			return err
		}
		ix.Runs = append(ix.Runs, htmlpage.IndexRun{Label: fmt.Sprintf("%s with %d fault(s), plan %s", ce.Invariant, ce.Faults, ce.File), Href: name, Verdict: brokenInvariants(res)})
	}
	return writeIndex(filepath.Join(dir, IndexFile), ix)
}

func writeIndex(path string, ix htmlpage.Index) error {
	var b bytes.Buffer
	if err := htmlpage.WriteIndex(&b, ix); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// brokenInvariants lists the invariants a run violated, in report order.
func brokenInvariants(res *scenarios.Result) string {
	var out []string
	for _, v := range res.Violations {
		if !slices.Contains(out, v.Invariant) {
			out = append(out, v.Invariant)
		}
	}
	return strings.Join(out, ", ")
}
