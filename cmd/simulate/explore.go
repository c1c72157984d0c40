package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/idemsim/idemsim/internal/explore"
	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// exitIncomplete is an exploration that stopped (budget, Ctrl-C) before it
// explored every schedule, without a counterexample.
const exitIncomplete = 3

// exploreFlags are the flags of -explore (docs/explore.md).
type exploreFlags struct {
	explore   *bool
	maxFaults *int
	budget    *int64
	prune     *bool
	reduce    *bool
	all       *bool
	menu      *string
	memory    *string
	branch    *string
}

// exploreOnly are the flags only -explore takes.
var exploreOnly = []string{"max-faults", "explore-budget", "explore-prune", "explore-reduce", "all", "explore-menu", "explore-memory", "explore-branch"}

func addExploreFlags(fs *flag.FlagSet) *exploreFlags {
	return &exploreFlags{
		explore:   fs.Bool("explore", false, "explore every fault schedule of at most -max-faults faults (random fault sources off); see docs/explore.md"),
		maxFaults: fs.Int("max-faults", 1, "explore: the most faults in a schedule (0.."+strconv.Itoa(explore.MaxK)+")"),
		budget:    fs.Int64("explore-budget", 0, "explore: stop after this many runs (0: no limit); the result is then incomplete"),
		prune:     fs.Bool("explore-prune", true, "explore: skip schedules that reach a state already explored with as many faults left"),
		reduce:    fs.Bool("explore-reduce", true, "explore: skip faults on a message whose number on its link an earlier message had (a response to a duplicated request): a plan rule would take the earlier one"),
		all:       fs.Bool("all", false, "explore: search up to -max-faults for one counterexample per violated invariant"),
		memory:    fs.String("explore-memory", "2GiB", "explore: bound what the search keeps (visited states, the frontier of schedules and their choice points), counted from the sizes of what it stores, e.g. 512MiB, 2GiB (0: no bound); the result is then incomplete"),
		branch:    fs.String("explore-branch", "off", "explore: on runs the children of a schedule from its states saved at time choice points (a node fault's at its point, a message fault's at its message's time) instead of replaying each from the start; the result is the same (see docs/explore.md, Saved states)"),
		menu:      fs.String("explore-menu", "basic", "explore: the faults offered: basic (one pause length and one crash downtime, fault.max_duration), or full (lengths around the timeouts, clean restarts, stalls, drifts); see docs/explore.md"),
	}
}

type exploreArgs struct {
	sc       *scenarios.Scenario
	scenFile string
	seedText string
	file     []params.KV
	bugs     []string
	sets     []params.KV // -idempotence, then -set
	asJSON   bool
	filePlan bool
	f        *exploreFlags
	sw       *sweepFlags
	explicit map[string]bool
}

// runExplore runs an exploration: exit 0 when it is complete and clean, 1
// when it found a counterexample, 3 when it stopped early without one, 2
// for bad usage.
func runExplore(a exploreArgs, stdout, stderr io.Writer) int {
	for _, name := range []string{"runs", "vary", "keep-failing", "failing", "trace", "plan", "plan-out", "plan-file", "shrink", "diagram", "timeline", "latency-chart", "html"} {
		if a.explicit[name] {
			if name == "html" {
				return usageErr(stderr, "-html is not allowed with -explore (with -out DIR it writes index.html and each counterexample's page into DIR)")
			}
			return usageErr(stderr, "-"+name+" is not allowed with -explore")
		}
	}
	cfg := explore.Config{Scenario: a.sc, ScenarioFile: a.scenFile, File: a.file, Bugs: a.bugs, Sets: a.sets, Seed: 1,
		MaxFaults: *a.f.maxFaults, Budget: *a.f.budget, Prune: *a.f.prune, Reduce: *a.f.reduce, All: *a.f.all, Parallel: a.sw.parallel}
	var bad string
	if cfg.Branch, bad = pickOf("explore-branch", *a.f.branch, "off", "on"); bad != "" {
		return usageErr(stderr, bad)
	}
	if cfg.FullMenu, bad = pickOf("explore-menu", *a.f.menu, "basic", "full"); bad != "" {
		return usageErr(stderr, bad)
	}
	if a.seedText != "" {
		s, err := strconv.ParseUint(a.seedText, 10, 64)
		if err != nil {
			return usageErr(stderr, fmt.Sprintf("-seed %q is not allowed (allowed: an integer 0..18446744073709551615)", a.seedText))
		}
		cfg.Seed = s
	}
	if cfg.MaxFaults < 0 || cfg.MaxFaults > explore.MaxK {
		return usageErr(stderr, fmt.Sprintf("-max-faults %d is not allowed (allowed: 0..%d)", cfg.MaxFaults, explore.MaxK))
	}
	if cfg.Budget < 0 {
		return usageErr(stderr, fmt.Sprintf("-explore-budget %d is not allowed (allowed: an integer >= 1, or 0 for no limit)", cfg.Budget))
	}
	mem, err := explore.ParseSize(*a.f.memory)
	if err != nil {
		return usageErr(stderr, "-explore-memory "+err.Error())
	}
	cfg.Memory = mem
	if cfg.Parallel < 1 || cfg.Parallel > 4096 {
		return usageErr(stderr, fmt.Sprintf("-parallel %d is not allowed (allowed: 1..4096)", cfg.Parallel))
	}
	if a.sw.shard != "" {
		sh, err := shard.Parse(a.sw.shard)
		if err != nil {
			return usageErr(stderr, "-shard "+err.Error())
		}
		cfg.Shard = sh
	}
	if a.filePlan {
		fmt.Fprintln(stderr, "simulate: -explore replaces the scenario file's plan with the explorer's faults")
	}
	out := a.sw.out
	var od *outDir // as a sweep's: a temporary directory renamed at the end
	if out != "" {
		var err error
		if od, err = openOutDir(out, a.sw.force, stderr); err != nil {
			return usageErr(stderr, "-out "+err.Error())
		}
		defer od.abort()
	}
	ctx, stop := interruptContext()
	defer stop()
	bar := newExploreProgress(stderr)
	cfg.Progress = bar.update
	defer tuneExploreGC(cfg.Memory)() // a batch of runs: explore_gc.go
	r, err := explore.Run(ctx, cfg)
	bar.finish()
	if err != nil {
		return usageErr(stderr, err.Error())
	}
	fmt.Fprintln(stderr, "simulate: "+r.Timing.Line())
	// Counterexamples' plans and diagrams are files only in an -out
	// directory: without -out nothing is written, and the plans are
	// printed.
	if od != nil {
		if err := r.SaveTo(out, od.tmp, a.sc); err != nil {
			fmt.Fprintln(stderr, "simulate: "+err.Error())
			return exitUsage
		}
		if err := r.WriteDir(od.tmp); err != nil {
			fmt.Fprintln(stderr, "simulate: -out: "+err.Error())
			return exitUsage
		}
		// Wall-clock times go to their own file: summary.json and
		// report.md are the same bytes for the same exploration.
		if err := writeTiming(od.tmp, r.Timing); err != nil {
			fmt.Fprintln(stderr, "simulate: -out: "+err.Error())
			return exitUsage
		}
		if err := writeExplorePages(r, a.sc, out, od.tmp); err != nil { // html.go
			fmt.Fprintln(stderr, "simulate: -out: "+err.Error())
			return exitUsage
		}
		if err := od.commit(); err != nil {
			fmt.Fprintln(stderr, "simulate: -out: "+err.Error())
			return exitUsage
		}
	}
	if code := writeExplore(r, a.asJSON, stdout, stderr); code != exitOK {
		return code
	}
	return exploreExit(r)
}

// exploreExit is an exploration's exit status.
func exploreExit(r *explore.Result) int {
	switch r.Verdict {
	case "violated":
		return exitViolation
	case "incomplete":
		return exitIncomplete
	}
	return exitOK
}

func writeExplore(r *explore.Result, asJSON bool, stdout, stderr io.Writer) int {
	if asJSON {
		b, err := r.JSON()
		if err == nil {
			_, err = stdout.Write(b)
		}
		if err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return exitUsage
		}
		return exitOK
	}
	r.WriteText(stdout)
	return exitOK
}

// runExploreMerge is "simulate merge" over the -out directories of an
// exploration's shards.
func runExploreMerge(out string, force bool, dirs []string, asJSON bool, stdout, stderr io.Writer) int {
	// As a sweep merge: never write into an input, and write a temporary
	// directory that takes out's place at the end.
	if err := shard.OutNotInput(out, dirs); err != nil {
		return usageErr(stderr, "merge: "+err.Error())
	}
	od, err := openOutDir(out, force, stderr)
	if err != nil {
		return usageErr(stderr, "merge: -out "+err.Error())
	}
	defer od.abort()
	r, err := explore.Merge(od.tmp, dirs)
	if err != nil {
		return usageErr(stderr, "merge: "+err.Error())
	}
	// The merged counterexamples' pages and the index, as -explore -out
	// writes them (html.go).
	if err := writeExplorePages(r, nil, out, od.tmp); err != nil {
		return usageErr(stderr, "merge: "+err.Error())
	}
	if err := od.commit(); err != nil {
		return usageErr(stderr, "merge: -out "+err.Error())
	}
	if code := writeExplore(r, asJSON, stdout, stderr); code != exitOK {
		return code
	}
	return exploreExit(r)
}

// exploreProgress shows the schedules run and their rate on stderr when
// it is a terminal.
type exploreProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newExploreProgress(stderr io.Writer) *exploreProgress {
	return &exploreProgress{w: newProgress(stderr).w}
}

func (p *exploreProgress) update(pr explore.Progress) {
	if p.w == nil {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetItsString("schedules"),
			progressbar.OptionShowIts(),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Describe(fmt.Sprintf("explore (%d faults)", pr.Level))
	_ = p.bar.Set64(pr.Runs)
}

func (p *exploreProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Exit()
	}
}

// writeTiming writes timing.json (explore.TimingFile) into dir.
func writeTiming(dir string, t explore.Timing) error {
	b, err := t.JSON()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, explore.TimingFile), b, 0o644)
}

// pickOf reads two-valued flag -name's value v: false for no, true for
// yes, else the line that refuses it.
func pickOf(name, v, no, yes string) (bool, string) {
	if v != no && v != yes {
		return false, fmt.Sprintf("-%s %q is not allowed (allowed: %s, %s)", name, v, no, yes)
	}
	return v == yes, ""
}
