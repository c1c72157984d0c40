package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemsim/idemsim/internal/sweep"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// simulate selfcheck: random (scenario, seed, parameters) triples drawn
// from the ranges -describe prints, scenario files included; each triple
// runs twice, and the two reports must be equal byte for byte, every
// record sent must be acknowledged, failed, pending or abandoned, and every
// run must end drained, at its time limit or at its event limit, without a
// panic (docs/selfcheck.md).

// Selfcheck defaults and limits.
const (
	// selfcheckMaxEvents bounds each run's events unless -max-events says
	// otherwise: a draw such as a latency so heavy-tailed that most
	// requests time out, retried for a 24-day delivery.timeout.ms, would
	// otherwise run for minutes.
	selfcheckMaxEvents = 200_000
	// maxDrawAttempts is how many parameter sets a triple draws before it
	// gives up on finding one the rules accept.
	maxDrawAttempts = 100
	// maxDrawnParams is the most parameters a triple sets besides
	// enable.idempotence; it sets 0..maxDrawnParams, uniformly.
	maxDrawnParams = 6
)

// drawCaps bound the values drawn for the parameters that make a run
// long: more records, faults, restarts, partitions or refused batches mean
// more events. The draw's upper end is the smaller of the cap and the
// parameter's maximum.
var drawCaps = map[string]int64{
	"records":                     200,
	"app.idle.after":              200,
	"partitions":                  8,
	"brokers":                     8,
	"fault.count":                 10,
	"restart.count":               10,
	"partition.not_ready.batches": 20,
	"transaction.records":         50,
}

// stringSamples are the values drawn for the String parameters, whose
// -describe range is "text". A String parameter not listed keeps its
// value.
var stringSamples = map[string][]string{
	"transactional.id": {"", "t1", "tx-2"},
	"fault.kinds":      {"all", "pause", "crash", "partition", "oneway", "drop", "drift", "pause,drop", "crash,partition,drift"},
	"net.link.latency": {"", "p1>b1 constant base=5ms", "b1>p1 uniform base=1ms spread=4ms",
		"p1>b1 exponential base=100us spread=2ms; b1>p1 lognormal base=1ms spread=1ms sigma=1"},
}

// companions are values a drawn value needs, set with it unless the
// triple sets the key itself: a duplicating or reordering network is a
// datagram network, and transactions need a transactional.id. Without
// them the rules would refuse most such draws, and the check would rarely
// run them.
var companions = map[string]params.KV{
	"net.duplicate":       {Key: "net.mode", Value: "datagram"},
	"net.reorder":         {Key: "net.mode", Value: "datagram"},
	"transaction.records": {Key: "transactional.id", Value: "t1"},
}

// selfcheckRun runs the check's in-process runs (a variable so tests can
// inject a faulty simulator and see the check report it).
var selfcheckRun runFunc = scenarios.Run

// selfcheckReuse returns the runner of a worker's in-process second runs:
// a [scenarios.Runner], so that each second run is built in the memory of
// the worker's previous run (of another triple), and a state a reused
// World kept shows as a difference from the triple's first, fresh run. A
// variable so tests that inject a faulty simulator run it in both passes.
var selfcheckReuse = func() runFunc {
	var r scenarios.Runner
	return r.Run
}

// selfCommand returns the command that runs this program with args: the
// second run of -subprocess (a variable so tests can run the test binary).
var selfCommand = func(args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe, args...), nil
}

// multiFlag collects a repeated string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }

func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// runSelfcheck is "simulate selfcheck". It exits 0 when every triple
// passed, 1 when a problem was found, 2 for bad usage and 130 when
// interrupted.
func runSelfcheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate selfcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var names, files multiFlag
	var (
		runs       = fs.Int("runs", 100, "draw `N` triples (scenario, seed, parameters), 1..1000000, and run each twice")
		seedText   = fs.String("seed", "1", "draw seed `S`, 0..18446744073709551615: the same seed draws the same triples (and -runs N draws the first N of a longer check)")
		parallel   = fs.Int("parallel", runtime.NumCPU(), "runs at once, 1..4096 (each run stays single-threaded; the output does not depend on it)")
		subprocess = fs.Bool("subprocess", false, "run each triple's second run in a child simulate process (-json) and compare its output with the first run's")
		maxEvents  = fs.Int64("max-events", selfcheckMaxEvents, "stop each run after `N` events, 1..9223372036854775807 (a run stopped there is not a problem)")
	)
	fs.Var(&names, "scenario", "draw from the catalogue scenario `NAME` (repeatable; default: every one)")
	fs.Var(&files, "scenario-file", "also draw from this scenario `FILE`, every *.yaml and *.yml of a directory, or a glob (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: simulate selfcheck -runs N [-seed S] [-scenario NAME]... [-scenario-file F]... [-parallel P] [-subprocess] [-max-events N]")
		fmt.Fprint(stderr, selfcheckHelp())
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, "simulate selfcheck", stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageErr(stderr, fmt.Sprintf("selfcheck: unexpected argument %q (flags only; see simulate selfcheck -h)", fs.Arg(0)))
	}
	if *runs < 1 || *runs > 1_000_000 {
		return usageErr(stderr, fmt.Sprintf("selfcheck: -runs %d is not allowed (allowed: 1..1000000)", *runs))
	}
	seed, err := strconv.ParseUint(*seedText, 10, 64)
	if err != nil {
		return usageErr(stderr, fmt.Sprintf("selfcheck: -seed %q is not allowed (allowed: an integer 0..18446744073709551615)", *seedText))
	}
	if *parallel < 1 || *parallel > 4096 {
		return usageErr(stderr, fmt.Sprintf("selfcheck: -parallel %d is not allowed (allowed: 1..4096)", *parallel))
	}
	if *maxEvents < 1 {
		return usageErr(stderr, fmt.Sprintf("selfcheck: -max-events %d is not allowed (allowed: 1..9223372036854775807)", *maxEvents))
	}
	pool, nFiles, err := selfcheckPool(names, files)
	if err != nil {
		return usageErr(stderr, "selfcheck: "+err.Error())
	}
	c := &checker{runs: *runs, seed: seed, parallel: *parallel, maxEvents: *maxEvents, pool: pool, files: nFiles, run: selfcheckRun, reuse: selfcheckReuse}
	if *subprocess {
		c.second = childRun
	}
	defer sweep.TuneGC()() // a batch of runs: internal/sweep/gc.go
	defer limitMemory()()  // selfcheck_gc.go
	ctx, stop := interruptContext()
	defer stop()
	bar := newProgress(stderr)
	bar.desc = "selfcheck"
	c.progress = bar.update
	start := time.Now()
	rep := c.check(ctx)
	bar.finish()
	elapsed := time.Since(start)
	fmt.Fprintf(stderr, "simulate: selfcheck: %d runs in %.2fs (%.0f runs/s, -parallel %d)\n", 2*rep.done, elapsed.Seconds(), float64(2*rep.done)/elapsed.Seconds(), c.parallel)
	rep.write(stdout)
	switch {
	case !rep.complete:
		fmt.Fprintln(stderr, "simulate: selfcheck interrupted; the summary is partial")
		return exitInterrupted
	case len(rep.problems) > 0:
		return exitViolation
	}
	return exitOK
}

// selfcheckHelp says what selfcheck draws and checks, for -h.
func selfcheckHelp() string {
	return fmt.Sprintf(`
Draws random scenario, seed and parameter triples from the -describe
ranges, runs each twice, and checks that the two -json reports are
byte-identical, that sent = acked + failed + pending + abandoned, and that
every run ends drained, at its time limit or at -max-events, without a
panic. A triple sets 0..%d parameters, plus enable.idempotence (left
alone, false or true, a third each) and one of the scenario's -bug IDs
one time in four. A number is its range's minimum one time in eight, its
maximum one time in eight, else log-uniform within the range (a float:
uniform). To keep runs short these are drawn no higher than:
  %s
A duplicating or reordering network also gets net.mode=datagram, and
transactions transactional.id=t1. Draws the rules refuse are drawn
again. Exit 0: no problem; 1: problems, one line each with its reproduce
command; 2: bad usage. See docs/selfcheck.md.

`, maxDrawnParams, capsText())
}

// capsText lists [drawCaps], sorted by key: "key N, key N, ...".
func capsText() string {
	keys := slices.Sorted(maps.Keys(drawCaps))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, drawCaps[k])
	}
	return strings.Join(parts, ", ")
}

// candidate is a scenario the check draws from: a catalogue scenario or a
// scenario file.
type candidate struct {
	sc *scenarios.Scenario
	// file is the scenario file's path, "" for a catalogue scenario; sets,
	// plan and planLine are its values and fault plan.
	file     string
	sets     []params.KV
	plan     string
	planLine int
	// params are the scenario's parameters.
	params []params.Param
}

// selfcheckPool returns the scenarios to draw from: the named catalogue
// scenarios (all of them when names is empty), then the scenario files
// the patterns name, and how many files there are.
func selfcheckPool(names, patterns []string) ([]*candidate, int, error) {
	var pool []*candidate
	if len(names) == 0 {
		names = scenarios.Names()
	}
	seen := map[string]bool{}
	for _, n := range names {
		sc, err := scenarios.Lookup(n)
		if err != nil {
			return nil, 0, fmt.Errorf("-scenario: %v", err)
		}
		if !seen[n] {
			seen[n] = true
			pool = append(pool, &candidate{sc: sc, params: sc.Values().Params()})
		}
	}
	paths, err := expandScenarioFiles(patterns)
	if err != nil {
		return nil, 0, err
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, 0, fmt.Errorf("-scenario-file: %v", err)
		}
		f, err := scenarios.ParseScenarioFile(path, data)
		if err != nil {
			return nil, 0, err
		}
		c := &candidate{sc: f.Scenario, file: path, sets: f.Sets, plan: f.Plan, planLine: f.PlanLine, params: f.Scenario.Values().Params()}
		t := triple{cand: c}
		if panicked, err := accept(t.spec(1)); err != nil || panicked != "" {
			if err == nil {
				err = errors.New("panic: " + panicked)
			}
			return nil, 0, fmt.Errorf("-scenario-file %s: the file's own values are refused: %v", path, err)
		}
		pool = append(pool, c)
	}
	return pool, len(paths), nil
}

// expandScenarioFiles turns -scenario-file values into file paths: a file
// as it is, a directory's *.yaml and *.yml files, a glob's matches (each
// sorted), without repeats.
func expandScenarioFiles(patterns []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(ps ...string) {
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	for _, pat := range patterns {
		st, err := os.Stat(pat)
		switch {
		case err == nil && st.IsDir():
			var ps []string
			for _, ext := range []string{"*.yaml", "*.yml"} {
				m, _ := filepath.Glob(filepath.Join(pat, ext))
				ps = append(ps, m...)
			}
			if len(ps) == 0 {
				return nil, fmt.Errorf("-scenario-file %s: the directory has no *.yaml or *.yml file", pat)
			}
			slices.Sort(ps)
			add(ps...)
		case err == nil:
			add(pat)
		default:
			m, gerr := filepath.Glob(pat)
			if gerr != nil || len(m) == 0 {
				return nil, fmt.Errorf("-scenario-file %s: no such file (allowed: a file, a directory of *.yaml files, or a glob)", pat)
			}
			slices.Sort(m)
			add(m...)
		}
	}
	return out, nil
}

// triple is one drawn run: a scenario, a seed and parameter values.
type triple struct {
	index int
	cand  *candidate
	seed  uint64
	// bugs and sets are the drawn -bug IDs and -set values, in command
	// line order (an enable.idempotence value first, as -idempotence).
	bugs []string
	sets []params.KV
}

// spec is the triple's run.
func (t *triple) spec(maxEvents int64) scenarios.Spec {
	s := scenarios.Spec{Scenario: t.cand.sc, Seed: t.seed, FileSets: t.cand.sets, Bugs: t.bugs, Sets: t.sets,
		ScenarioFile: t.cand.file, MaxEvents: maxEvents}
	if t.cand.plan != "" {
		s.PlanText = t.cand.plan
		s.PlanSource = world.PlanSource{File: t.cand.file, Embedded: true, Line: t.cand.planLine}
	}
	return s
}

// args are the command-line arguments of the triple's run, with -json.
func (t *triple) args(maxEvents int64) []string {
	a := []string{"-seed", strconv.FormatUint(t.seed, 10)}
	if t.cand.file != "" {
		a = append(a, "-scenario-file", t.cand.file)
	} else {
		a = append(a, "-scenario", t.cand.sc.Name)
	}
	for _, id := range t.bugs {
		a = append(a, "-bug", id)
	}
	for _, kv := range t.sets {
		if kv.Key == "enable.idempotence" {
			a = append(a, "-idempotence="+kv.Value)
			continue
		}
		a = append(a, "-set", kv.Key+"="+kv.Value)
	}
	return append(a, "-max-events", strconv.FormatInt(maxEvents, 10), "-json")
}

// reproduce is the command that reproduces the triple's run, as the
// run's report writes it (Result.Reproduce, which has -max-events).
func (t *triple) reproduce(maxEvents int64) string {
	cmd := scenarios.ReproduceCommand(t.cand.sc.Name, t.seed, nil, t.bugs, t.sets)
	if t.cand.file != "" {
		cmd = strings.Replace(cmd, "-scenario "+t.cand.sc.Name, "-scenario-file "+shellQuote(t.cand.file), 1)
	}
	return cmd + maxEventsFlag(maxEvents)
}

func maxEventsFlag(n int64) string { return " -max-events " + strconv.FormatInt(n, 10) }

// shellQuote quotes s for a POSIX shell when it needs it, as the
// reproduce commands do.
func shellQuote(s string) string { return scenarios.ShellQuote(s) }

// draw draws triple i from its own stream, PCG(seed, i), so that a triple
// does not depend on -runs, -parallel or the other triples: the scenario,
// the seed, then parameter sets until the rules accept one (what a run
// would refuse: a range, Kafka's configuration rules, the network's, the
// fault plan's). It returns how many sets were refused, and a problem when
// none was accepted or a refusal was not one line.
func (c *checker) draw(i int) (t triple, refused int, prob *problem) {
	rng := rand.New(rand.NewPCG(c.seed, uint64(i)))
	t = triple{index: i, cand: c.pool[rng.IntN(len(c.pool))], seed: rng.Uint64() & maxRandomSeed}
	var last error
	for range maxDrawAttempts {
		t.bugs, t.sets = drawSets(rng, t.cand)
		panicked, err := accept(t.spec(c.maxEvents))
		if panicked != "" {
			return t, refused, &problem{index: i, kind: "panic", detail: "checking the configuration: " + panicked, reproduce: t.reproduce(c.maxEvents)}
		}
		if err == nil {
			return t, refused, nil
		}
		if strings.Contains(err.Error(), "\n") {
			return t, refused, &problem{index: i, kind: "refusal", detail: fmt.Sprintf("the configuration error is not one line: %q", err.Error()), reproduce: t.reproduce(c.maxEvents)}
		}
		refused++
		last = err
	}
	return t, refused, &problem{index: i, kind: "draw", detail: fmt.Sprintf("no accepted parameters in %d draws; the last was refused: %v", maxDrawAttempts, last), reproduce: t.reproduce(c.maxEvents)}
}

// accept reports the configuration error a run of spec would stop at, or
// the panic checking it raised.
func accept(spec scenarios.Spec) (panicked string, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked = panicText(r)
		}
	}()
	// The command line refuses a -set that turns its -bug off (the child
	// process of -subprocess would exit 2).
	if err := params.BugSetConflict(spec.Bugs, spec.Sets); err != nil {
		return "", err
	}
	_, err = scenarios.PlanText(spec) // resolves, builds the world, reads the plan
	return "", err
}

// drawSets draws a triple's -bug IDs and -set values for c: enable.idempotence
// left alone, false or true (a third each), one of the scenario's -bug IDs
// one time in four, and 0..maxDrawnParams other parameters, each drawn by
// [drawValue], then the [companions] of the values drawn.
func drawSets(rng *rand.Rand, c *candidate) (bugs []string, sets []params.KV) {
	switch rng.IntN(3) {
	case 1:
		sets = append(sets, params.KV{Key: "enable.idempotence", Value: "false"})
	case 2:
		sets = append(sets, params.KV{Key: "enable.idempotence", Value: "true"})
	}
	if len(c.sc.Bugs) > 0 && rng.IntN(4) == 0 {
		bugs = []string{c.sc.Bugs[rng.IntN(len(c.sc.Bugs))]}
	}
	k := rng.IntN(maxDrawnParams + 1)
	n := 0
	for _, j := range rng.Perm(len(c.params)) {
		if n == k {
			break
		}
		p := &c.params[j]
		if p.Key == "enable.idempotence" {
			continue
		}
		if v, ok := drawValue(rng, p); ok {
			sets = append(sets, params.KV{Key: p.Key, Value: v})
			n++
		}
	}
	for _, kv := range sets {
		comp, ok := companions[kv.Key]
		if !ok || kv.Value == "0" || slices.ContainsFunc(sets, func(x params.KV) bool { return x.Key == comp.Key }) {
			continue
		}
		sets = append(sets, comp)
	}
	return bugs, sets
}

// drawValue draws a value of p from its -describe range: a Bool or Enum
// uniformly; a String among [stringSamples] (none if p has no samples);
// an Int, Duration or Float is the range's minimum one time in eight, its
// maximum one time in eight (the [drawCaps] cap instead, where it is
// lower), and otherwise log-uniform within it (a uniform bit length, then
// uniform; a Float uniform). Numbers without a range are not drawn.
func drawValue(rng *rand.Rand, p *params.Param) (string, bool) {
	switch p.Kind {
	case params.Bool:
		return strconv.FormatBool(rng.IntN(2) == 1), true
	case params.Enum:
		return p.Values[rng.IntN(len(p.Values))], true
	case params.String:
		s, ok := stringSamples[p.Key]
		if !ok {
			return "", false
		}
		return s[rng.IntN(len(s))], true
	case params.Int, params.Duration:
		if !p.Bounded() {
			return "", false
		}
		lo, hi := p.Min, p.Max
		if c, ok := drawCaps[p.Key]; ok && c < hi {
			hi = max(lo, c)
		}
		n := drawInt(rng, lo, hi)
		if p.Kind == params.Duration {
			// "us" rather than "µs": reproduce commands stay ASCII.
			return strings.Replace(time.Duration(n).String(), "µs", "us", 1), true
		}
		return strconv.FormatInt(n, 10), true
	case params.Float:
		if !p.Bounded() {
			return "", false
		}
		lo, hi := p.MinF, p.MaxF
		var f float64
		switch rng.IntN(8) {
		case 0:
			f = lo
		case 1:
			f = hi
		default:
			// Four significant digits keep reproduce commands short.
			f, _ = strconv.ParseFloat(strconv.FormatFloat(lo+rng.Float64()*(hi-lo), 'g', 4, 64), 64)
			f = min(max(f, lo), hi)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// drawInt draws from lo..hi: lo one time in eight, hi one time in eight,
// else lo plus an offset whose bit length is uniform (so small and large
// values are drawn alike), uniform within that length.
func drawInt(rng *rand.Rand, lo, hi int64) int64 {
	switch rng.IntN(8) {
	case 0:
		return lo
	case 1:
		return hi
	}
	span := uint64(hi) - uint64(lo)
	if span == 0 {
		return lo
	}
	top := span
	if l := rng.IntN(bits.Len64(span)) + 1; l < 64 {
		top = min(span, uint64(1)<<l-1)
	}
	var off uint64
	if top == math.MaxUint64 {
		off = rng.Uint64()
	} else {
		off = rng.Uint64N(top + 1)
	}
	return int64(uint64(lo) + off)
}

// runFunc runs one simulation: scenarios.Run, or a fake in tests.
type runFunc func(scenarios.Spec) (*scenarios.Result, error)

// checker is one selfcheck.
type checker struct {
	runs      int
	seed      uint64
	parallel  int
	maxEvents int64
	pool      []*candidate
	files     int // of the pool, scenario files
	// run runs the first run of every triple, and the second unless
	// second or reuse is set.
	run runFunc
	// reuse, if set, makes a worker's runner of second runs (in this
	// process, on reused Worlds).
	reuse func() runFunc
	// second, if set, runs the second run (in a child process).
	second func(t *triple, maxEvents int64) outcome
	// progress, if set, is told how many runs are done.
	progress func(done, total int64)
}

// outcome is one run: its result and -json report, or its error or panic.
type outcome struct {
	res  *scenarios.Result
	json []byte
	// exit is a child's exit status (-1 for an in-process run).
	exit  int
	err   error
	panic string
}

// problem is one thing the check found wrong with a triple.
type problem struct {
	index     int
	kind      string // panic, error, nondeterministic, identity, stop, draw, refusal
	detail    string
	reproduce string
}

// report is a check's findings.
type report struct {
	c        *checker
	done     int // triples run twice
	complete bool
	refused  int // parameter sets the rules refused and drew again
	atLimit  int // triples whose run stopped at -max-events
	problems []problem
}

// check draws and runs the triples: every first run, in triple order, on
// a fresh World, then every second run, in reverse order, on a World
// reused from the worker's previous run (reuse), so that a state left
// behind by one run (a package variable, a cache, a reused World's
// memory) shows as a difference. Runs go -parallel at a time; the report
// does not depend on it.
func (c *checker) check(ctx context.Context) *report {
	n := c.runs
	type slot struct {
		t       triple
		refused int
		prob    *problem
		first   firstRun
		probs   []problem // the verdicts, once both runs ran
		drawn   bool      // the first pass reached it
		ran     bool      // both passes did
	}
	slots := make([]slot, n)
	var mu sync.Mutex
	var done int64
	tick := func() {
		mu.Lock()
		done++
		if c.progress != nil {
			c.progress(done, 2*int64(n))
		}
		mu.Unlock()
	}
	c.each(ctx, n, false, func(_, i int) {
		s := &slots[i]
		s.t, s.refused, s.prob = c.draw(i)
		if s.prob == nil {
			o := runOutcome(c.run, s.t.spec(c.maxEvents))
			s.first = firstOf(&o)
		}
		s.drawn = true
		tick()
	})
	second := make([]runFunc, min(c.parallel, n))
	for w := range second {
		second[w] = c.run
		if c.reuse != nil {
			second[w] = c.reuse()
		}
	}
	c.each(ctx, n, true, func(w, i int) {
		s := &slots[i]
		if !s.drawn {
			return // interrupted in the first pass
		}
		if s.prob == nil {
			var o outcome
			if c.second != nil {
				o = c.second(&s.t, c.maxEvents)
			} else if o = runOutcome(second[w], s.t.spec(c.maxEvents)); o.panic != "" && c.reuse != nil {
				second[w] = c.reuse() // a panic may leave the World half changed
			}
			// Judged now, so that no run's report outlives its triple.
			s.probs = c.judge(&s.t, &s.first, &o)
		}
		s.ran = true
		tick()
	})
	rep := &report{c: c, complete: ctx.Err() == nil}
	for i := range slots {
		s := &slots[i]
		if !s.ran {
			continue
		}
		rep.done++
		rep.refused += s.refused
		if s.prob != nil {
			rep.problems = append(rep.problems, *s.prob)
			continue
		}
		if s.first.ran && s.first.stop == "event-limit" {
			rep.atLimit++
		}
		rep.problems = append(rep.problems, s.probs...)
	}
	return rep
}

// each calls fn(w, i) for i in 0..n-1 (n-1..0 when reverse), -parallel
// at a time, until ctx is done; w is the calling worker, 0..parallel-1.
func (c *checker) each(ctx context.Context, n int, reverse bool, fn func(w, i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range min(c.parallel, n) {
		wg.Go(func() {
			for i := range next {
				fn(w, i)
			}
		})
	}
	for k := range n {
		if ctx.Err() != nil {
			break
		}
		i := k
		if reverse {
			i = n - 1 - k
		}
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
}

// runOutcome runs spec in this process, recovering a panic.
func runOutcome(run runFunc, spec scenarios.Spec) (o outcome) {
	o.exit = -1
	defer func() {
		if r := recover(); r != nil {
			o = outcome{exit: -1, panic: panicText(r)}
		}
	}()
	res, err := run(spec)
	if err != nil {
		o.err = err
		return o
	}
	var b bytes.Buffer
	if err := writeJSON(&b, res); err != nil {
		o.err = err
		return o
	}
	o.res, o.json = res, b.Bytes()
	return o
}

// childRun runs the triple in a child process with -json.
func childRun(t *triple, maxEvents int64) outcome {
	o := outcome{exit: -1}
	cmd, err := selfCommand(t.args(maxEvents)...)
	if err != nil {
		o.err = fmt.Errorf("cannot start a child process: %v", err)
		return o
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		o.exit = 0
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
	default:
		o.err = fmt.Errorf("cannot run a child process: %v", err)
		return o
	}
	if o.exit != exitOK && o.exit != exitViolation {
		line, _, _ := strings.Cut(strings.TrimSpace(errOut.String()), "\n")
		if strings.Contains(errOut.String(), "panic:") {
			o.panic = "in the child process: " + line
		} else {
			o.err = fmt.Errorf("the child process exited %d: %s", o.exit, line)
		}
		return o
	}
	o.json = out.Bytes()
	return o
}

// panicText is a recovered panic's value and the first place in idemsim
// outside this command that it passed through.
func panicText(r any) string {
	const module = "github.com/idemsim/idemsim/"
	msg := fmt.Sprint(r)
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if fn, ok := strings.CutPrefix(f.Function, module); ok && !strings.HasPrefix(fn, "cmd/simulate.") {
			// fn is "model.(*Producer).Send" or "internal/sweep.Run".
			dir := fn[:strings.LastIndex(fn[:strings.IndexByte(fn+".", '.')], "/")+1]
			pkg := fn[len(dir):]
			pkg = dir + pkg[:strings.IndexByte(pkg+".", '.')]
			return fmt.Sprintf("%s (at %s/%s:%d)", msg, pkg, filepath.Base(f.File), f.Line)
		}
		if !more {
			return msg
		}
	}
}

// stopReasons are the ways a run may end.
var stopReasons = []string{"drained", "time-limit", "event-limit", "state-limit"}

// judge compares a triple's second run b with its first a and checks the
// first.
func (c *checker) judge(t *triple, a *firstRun, b *outcome) []problem {
	repro := t.reproduce(c.maxEvents)
	if a.ran {
		repro = a.reproduce // with -max-events: the spec has it
	}
	var out []problem
	add := func(kind, format string, args ...any) {
		out = append(out, problem{index: t.index, kind: kind, detail: fmt.Sprintf(format, args...), reproduce: repro})
	}
	for k, o := range []struct {
		panic string
		err   error
	}{{a.panic, a.err}, {b.panic, b.err}} {
		which := [...]string{"first", "second"}[k]
		switch {
		case o.panic != "":
			add("panic", "%s run: %s", which, o.panic)
		case o.err != nil:
			add("error", "%s run: %v (the configuration was accepted)", which, o.err)
		}
	}
	if len(out) > 0 {
		return out
	}
	if d := diffFirst(a, b, func() outcome { return runOutcome(c.run, t.spec(c.maxEvents)) }); d != "" {
		add("nondeterministic", "%s", d)
	} else if b.res != nil && planDigest(b.res.Plan, b.res.Realized) != a.plan {
		add("nondeterministic", "the fault plans differ (the reports do not)")
	}
	if b.exit >= 0 && (b.exit == exitViolation) != (a.violations > 0) {
		add("nondeterministic", "the child process exited %d, the first run had %d violations", b.exit, a.violations)
	}
	if sum := a.acked + a.failed + a.pending + a.abandoned; sum != a.sent {
		add("identity", "sent %d != acked %d + failed %d + pending %d + abandoned %d = %d", a.sent, a.acked, a.failed, a.pending, a.abandoned, sum)
	}
	if !slices.Contains(stopReasons, a.stop) {
		add("stop", "the run stopped %q (allowed: %s)", a.stop, strings.Join(stopReasons, ", "))
	}
	return out
}

// diffReports describes how two -json reports differ, or returns "".
func diffReports(a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	if ha, hb := reportTraceHash(a), reportTraceHash(b); ha != hb {
		return fmt.Sprintf("trace-hash %s, then %s", ha, hb)
	}
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = strings.TrimSpace(la[i])
		}
		if i < len(lb) {
			y = strings.TrimSpace(lb[i])
		}
		if x != y {
			return fmt.Sprintf("same trace-hash, but -json line %d is %s, then %s", i+1, strconv.Quote(x), strconv.Quote(y))
		}
	}
	return "the -json reports differ"
}

// write prints the summary line, then one line per problem.
func (r *report) write(w io.Writer) {
	c := r.c
	plural := func(n int, what string) string {
		if n == 1 {
			return "1 " + what
		}
		return strconv.Itoa(n) + " " + what + "s"
	}
	partial := ""
	if !r.complete {
		partial = fmt.Sprintf(" (interrupted: %d of %d)", r.done, c.runs)
	}
	second := "a reused World"
	if c.second != nil {
		second = "a child process"
	}
	fmt.Fprintf(w, "selfcheck: %s from seed %d%s (%s, %s), each run twice, the second in %s: %s; %s refused by the rules and drawn again, %s stopped at -max-events %d\n",
		plural(r.done, "triple"), c.seed, partial, plural(len(c.pool)-c.files, "scenario"), plural(c.files, "scenario file"), second,
		plural(len(r.problems), "problem"), plural(r.refused, "draw"), plural(r.atLimit, "triple"), c.maxEvents)
	for _, p := range r.problems {
		fmt.Fprintf(w, "triple %d: %s: %s; reproduce: %s\n", p.index, p.kind, p.detail, p.reproduce)
	}
}
