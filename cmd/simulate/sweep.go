package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/idemsim/idemsim/internal/explore"
	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/internal/sweep"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// exitInterrupted is a sweep stopped by Ctrl-C (128 + SIGINT, as shells
// report it); the partial summary is printed.
const exitInterrupted = 130

// interruptContext returns the context a sweep runs under: cancelled by
// Ctrl-C (a variable so tests can interrupt a sweep).
var interruptContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// sweepRun runs a sweep (a variable so tests can make one fail part way).
var sweepRun = sweep.Run

// sweepOnly are the flags that only a sweep (-runs) takes.
var sweepOnly = []string{"parallel", "vary", "out", "shard", "keep-failing", "failing", "crossing", "force"}

// varyFlags collects repeated -vary flags.
type varyFlags []string

func (v *varyFlags) String() string { return "" }

func (v *varyFlags) Set(s string) error { *v = append(*v, s); return nil }

type sweepFlags struct {
	runs        int
	parallel    int
	vary        varyFlags
	out         string
	shard       string
	keepFailing string
	failing     int
	crossing    string
	force       bool
}

func (f *sweepFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.runs, "runs", 0, "sweep: run seeds BASE..BASE+N-1 (-seed BASE, default 1), idempotence off and on")
	fs.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "sweep: runs at once (each run stays single-threaded)")
	fs.Var(&f.vary, "vary", "sweep: vary a parameter, key=FROM:TO:STEP, key=FROM:TO:autoN (refined where the rate changes) or key=V1,V2 (repeatable, at most 2)")
	fs.StringVar(&f.out, "out", "", "sweep: write runs.csv, summary.json and charts (PNG, SVG) to this directory")
	fs.StringVar(&f.shard, "shard", "", "sweep: run shard i/n, every n-th seed (combine with simulate merge)")
	fs.StringVar(&f.keepFailing, "keep-failing", "", "sweep: write every failing seed and its reproduce command to this file")
	fs.IntVar(&f.failing, "failing", 5, "sweep: failing seeds listed per point, mode and invariant")
	fs.StringVar(&f.crossing, "crossing", "", "sweep: estimate where `METRIC` (violations, an invariant or a rate) crosses 50% along the first -vary axis")
	fs.BoolVar(&f.force, "force", false, "sweep: replace a non-empty -out directory")
}

type sweepArgs struct {
	sc           *scenarios.Scenario
	seedText     string
	explicitIdem bool
	idempotence  bool
	file         []params.KV // the scenario file's values
	bugs         []string
	sets         []params.KV // -set values
	preset       string      // -preset name
	asJSON       bool
	f            *sweepFlags
	scenFile     string           // the -scenario-file, if any
	planText     string           // the plan every seed replays, if any
	planSource   world.PlanSource // where planText came from
	explicit     map[string]bool  // the flags given
	history      historyFlag      // history.go
}

// runSweep runs a sweep. It exits 0 when the sweep completed, whatever
// it found (violations are results of a sweep), 2 for bad usage and 130
// when interrupted.
func runSweep(a sweepArgs, stdout, stderr io.Writer) int {
	defer sweep.TuneGC()() // a batch of runs: internal/sweep/gc.go
	f := a.f
	cfg := sweep.Config{Scenario: a.sc, Base: 1, Runs: f.runs, File: a.file, Bugs: a.bugs, Sets: a.sets, Parallel: f.parallel, FailingK: f.failing, Crossing: f.crossing, Preset: a.preset,
		ScenarioFile: a.scenFile, PlanText: a.planText, PlanSource: a.planSource}
	if f.runs < 1 || f.runs > 1_000_000_000 {
		return usageErr(stderr, fmt.Sprintf("-runs %d is not allowed (allowed: 1..1000000000)", f.runs))
	}
	if a.seedText != "" {
		b, err := strconv.ParseUint(a.seedText, 10, 64)
		if err != nil {
			return usageErr(stderr, fmt.Sprintf("-seed %q is not allowed (allowed: an integer 0..18446744073709551615)", a.seedText))
		}
		cfg.Base = b
	}
	if f.parallel < 1 || f.parallel > 4096 {
		return usageErr(stderr, fmt.Sprintf("-parallel %d is not allowed (allowed: 1..4096)", f.parallel))
	}
	if f.failing < 0 || f.failing > 10000 {
		return usageErr(stderr, fmt.Sprintf("-failing %d is not allowed (allowed: 0..10000)", f.failing))
	}
	if len(f.vary) > sweep.MaxAxes {
		return usageErr(stderr, fmt.Sprintf("-vary given %d times (allowed: at most %d axes)", len(f.vary), sweep.MaxAxes))
	}
	for _, v := range f.vary {
		ax, err := sweep.ParseAxis(a.sc, v)
		if err != nil {
			return usageErr(stderr, "-vary "+err.Error())
		}
		cfg.Axes = append(cfg.Axes, ax)
	}
	if f.shard != "" {
		sh, err := shard.Parse(f.shard)
		if err != nil {
			return usageErr(stderr, "-shard "+err.Error())
		}
		cfg.Shard = sh
	}
	if a.explicitIdem {
		cfg.Modes = []bool{a.idempotence}
	}
	for _, kv := range a.file {
		if kv.Key == "enable.idempotence" {
			return usageErr(stderr, "-scenario-file: enable.idempotence is not allowed in a sweep (use -idempotence=false or true to keep one mode)")
		}
	}
	for _, kv := range a.sets {
		if kv.Key == "enable.idempotence" {
			return usageErr(stderr, "-set enable.idempotence is not allowed in a sweep (use -idempotence=false or true to keep one mode)")
		}
	}
	if err := cfg.Validate(); err != nil {
		return usageErr(stderr, err.Error())
	}
	if err := cfg.CheckPlan(); err != nil { // one plan for every seed: check it at every point first
		return usageErr(stderr, err.Error())
	}
	if msg := a.history.prepareDir(); msg != "" {
		return usageErr(stderr, msg)
	}

	var closers []func() error
	var od *outDir // nil without -out
	var failingWriters []io.Writer
	if f.out != "" {
		var err error
		if od, err = openOutDir(f.out, f.force, stderr); err != nil {
			return usageErr(stderr, "-out "+err.Error())
		}
		defer od.abort() // after commit, nothing is left to remove
		csvf, err := os.Create(filepath.Join(od.tmp, sweep.RunsFile))
		if err != nil {
			return usageErr(stderr, "-out: "+err.Error())
		}
		closers = append(closers, csvf.Close)
		cfg.CSV = csvf
		// Every -out has the failing runs too, so merge can merge them.
		ff, err := os.Create(filepath.Join(od.tmp, sweep.FailingFile))
		if err != nil {
			return usageErr(stderr, "-out: "+err.Error())
		}
		closers = append(closers, ff.Close)
		failingWriters = append(failingWriters, ff)
	}
	if f.keepFailing != "" {
		p := od.path(f.keepFailing)
		if od == nil || p != filepath.Join(od.tmp, sweep.FailingFile) {
			kf, err := os.Create(p)
			if err != nil {
				return usageErr(stderr, "-keep-failing: "+err.Error())
			}
			closers = append(closers, kf.Close)
			failingWriters = append(failingWriters, kf)
		}
	}
	if len(failingWriters) > 0 {
		cfg.KeepFailing = io.MultiWriter(failingWriters...)
	}
	closeAll := func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c())
		}
		closers = nil
		return errors.Join(errs...)
	}
	defer closeAll()

	ctx, stop := interruptContext()
	defer stop()
	bar := newProgress(stderr)
	cfg.Progress = bar.update
	start := time.Now()
	st, err := sweepRun(ctx, cfg)
	bar.finish()
	if err == nil {
		err = closeAll()
	}
	if err != nil {
		fmt.Fprintln(stderr, "simulate: "+err.Error())
		return exitUsage
	}
	elapsed := time.Since(start)
	var runs int64
	for _, p := range st.Acc {
		for _, acc := range p {
			runs += acc.Runs
		}
	}
	fmt.Fprintf(stderr, "simulate: %d runs in %.2fs (%.0f runs/s, -parallel %d)\n", runs, elapsed.Seconds(), float64(runs)/elapsed.Seconds(), cfg.Parallel)
	sum := st.Summarize()
	sum.Out = f.out
	outPath := ""
	if od != nil {
		outPath = od.tmp
	}
	if code := writeSweep(sum, outPath, a.asJSON, stdout, stderr); code != exitOK {
		return code
	}
	if od != nil {
		if err := writeSweepPages(&cfg, st, sum, od.tmp); err != nil { // html.go
			fmt.Fprintln(stderr, "simulate: -out: "+err.Error())
			return exitUsage
		}
		if err := od.commit(); err != nil {
			fmt.Fprintln(stderr, "simulate: -out: "+err.Error())
			return exitUsage
		}
	}
	if !st.Complete {
		fmt.Fprintln(stderr, "simulate: interrupted; the summary is partial")
		return exitInterrupted
	}
	return a.history.writeSweep(&cfg, st, stderr) // history.go
}

// writeSweep prints the summary (table or JSON) and writes the -out files.
func writeSweep(sum *sweep.Summary, out string, asJSON bool, stdout, stderr io.Writer) int {
	if out != "" {
		if err := sum.WriteDir(out); err != nil {
			fmt.Fprintln(stderr, "simulate: -out: "+err.Error())
			return exitUsage
		}
	}
	if asJSON {
		b, err := sum.JSON()
		if err == nil {
			_, err = stdout.Write(b)
		}
		if err != nil {
			fmt.Fprintln(stderr, "simulate:", err)
			return exitUsage
		}
		return exitOK
	}
	if err := sum.WriteTable(stdout); err != nil {
		fmt.Fprintln(stderr, "simulate:", err)
		return exitUsage
	}
	return exitOK
}

// runMerge is "simulate merge -out DIR SHARD_DIR...".
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory for the merged runs.csv, summary.json and charts")
	asJSON := fs.Bool("json", false, "print the merged summary as JSON instead of a table")
	force := fs.Bool("force", false, "replace a non-empty -out directory (never an input)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: simulate merge -out DIR SHARD_DIR...")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, "simulate merge", stderr); !ok {
		return code
	}
	if *out == "" {
		return usageErr(stderr, "merge: -out is required (the directory for the merged outputs)")
	}
	if fs.NArg() == 0 {
		return usageErr(stderr, "merge: no shard directories (allowed: one or more -out directories of simulate -shard i/n)")
	}
	if explore.IsExploreDir(fs.Arg(0)) {
		return runExploreMerge(*out, *force, fs.Args(), *asJSON, stdout, stderr) // explore.go
	}
	if err := shard.OutNotInput(*out, fs.Args()); err != nil {
		return usageErr(stderr, "merge: "+err.Error())
	}
	od, err := openOutDir(*out, *force, stderr)
	if err != nil {
		return usageErr(stderr, "merge: -out "+err.Error())
	}
	defer od.abort()
	sum, err := sweep.Merge(od.tmp, *out, fs.Args())
	if err != nil {
		return usageErr(stderr, "merge: "+err.Error())
	}
	if err := writeMergePages(sum, fs.Args(), od.tmp); err != nil {
		return usageErr(stderr, "merge: "+err.Error())
	}
	if err := od.commit(); err != nil {
		return usageErr(stderr, "merge: -out: "+err.Error())
	}
	return writeSweep(sum, "", *asJSON, stdout, stderr)
}
