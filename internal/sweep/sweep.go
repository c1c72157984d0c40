package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"

	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Config is one sweep.
type Config struct {
	Scenario *scenarios.Scenario
	// Base is the first seed; the sweep runs Base .. Base+Runs-1.
	Base uint64
	Runs int
	// File are the scenario file's values (level "file"), Bugs the -bug
	// IDs (level "-bug") and Sets the -set overrides (level "-set", not
	// enable.idempotence) common to every run.
	File []params.KV
	Bugs []string
	Sets []params.KV
	// ScenarioFile is the scenario file the scenario came from, if any:
	// reproduce commands name it (it holds File and its own plan).
	ScenarioFile string
	// PlanText, if not empty, is the fault plan every run replays (a
	// scenario file's plan, or -plan-file) instead of the one its seed
	// generates; PlanSource is where it came from.
	PlanText   string
	PlanSource world.PlanSource
	// Axes are the varied parameters (at most MaxAxes); every point of
	// their product is a full sweep of the seeds.
	Axes []Axis
	// Modes are the idempotence settings to run, each on the same seeds;
	// nil means both, off then on.
	Modes []bool
	// Parallel is the number of worker goroutines; 0 means 1.
	Parallel int
	// Shard, if Count > 1, runs only that shard's seeds.
	Shard shard.Shard
	// FailingK is how many failing seeds per mode and invariant the
	// summary lists.
	FailingK int
	// Crossing, if set, is the metric ([Metrics]) whose 50% crossing
	// along the first axis the summary estimates; it also steers the
	// refinement of an autoN axis (default: violations).
	Crossing string
	// Preset is the -preset name, if any (level "preset").
	Preset string
	// CSV, if not nil, receives runs.csv: a header and one row per (run,
	// mode), in (point, seed, mode) order.
	CSV io.Writer
	// KeepFailing, if not nil, receives every failing (run, invariant)
	// with its reproduce command, in the same order.
	KeepFailing io.Writer
	// Progress, if not nil, is called after each run with the number of
	// runs done and the total.
	Progress func(done, total int64)
}

// State is a sweep's exact, mergeable result.
type State struct {
	Scenario string
	Base     uint64
	Runs     int
	File     []params.KV
	Bugs     []string
	Sets     []params.KV
	// ScenarioFile and PlanFile are the scenario file and -plan-file the
	// runs came from, if any, for the reproduce commands.
	ScenarioFile string
	PlanFile     string
	Axes         []Axis
	Modes        []bool
	FailingK     int
	Crossing     string
	Preset       string
	Shard        *shard.Shard
	// Complete is false when the sweep was interrupted.
	Complete bool
	// Acc is indexed [point][mode].
	Acc [][]*Acc
}

// numPoints is the number of points of the axes' product.
func numPoints(axes []Axis) int {
	n := 1
	for _, a := range axes {
		n *= len(a.Values)
	}
	return n
}

// PointSets returns the axis values of point i (the first axis varies
// slowest).
func PointSets(axes []Axis, i int) []params.KV {
	kv := make([]params.KV, len(axes))
	for j := len(axes) - 1; j >= 0; j-- {
		n := len(axes[j].Values)
		kv[j] = params.KV{Key: axes[j].Key, Value: axes[j].Values[i%n]}
		i /= n
	}
	return kv
}

// runSets returns the full -set list of a run: the base sets, the
// point's axis values and enable.idempotence.
func runSets(base []params.KV, axes []Axis, point int, on bool) []params.KV {
	out := append([]params.KV{}, base...)
	out = append(out, PointSets(axes, point)...)
	return append(out, params.KV{Key: "enable.idempotence", Value: strconv.FormatBool(on)})
}

// spec returns the spec of one run: its levels of precedence (the
// scenario file's values, the -bug IDs, then the -set values of
// [runSets]).
func (c *Config) spec(seed uint64, point int, on bool) scenarios.Spec {
	return scenarios.Spec{Scenario: c.Scenario, Seed: seed, FileSets: c.File, Bugs: c.Bugs, Sets: runSets(c.Sets, c.Axes, point, on), Preset: c.Preset,
		ScenarioFile: c.ScenarioFile, PlanText: c.PlanText, PlanSource: c.PlanSource}
}

func modeName(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// Validate checks the configuration, including every point's parameters
// in every mode, without running anything.
func (c *Config) Validate() error {
	if c.Scenario == nil {
		return errors.New("no scenario")
	}
	if c.Runs < 1 {
		return fmt.Errorf("runs %d is not allowed (allowed: 1 or more)", c.Runs)
	}
	if c.Base > math.MaxUint64-uint64(c.Runs-1) {
		return fmt.Errorf("seed %d + runs %d overflows the seed range 0..18446744073709551615", c.Base, c.Runs)
	}
	if len(c.Axes) > MaxAxes {
		return fmt.Errorf("%d axes are not allowed (allowed: at most %d)", len(c.Axes), MaxAxes)
	}
	for i, a := range c.Axes {
		if a.Auto > 0 && i > 0 {
			return fmt.Errorf("-vary %s: only the first axis may be autoN", a.Spec)
		}
		if a.Auto > 0 && c.Shard.Count > 1 {
			return fmt.Errorf("-vary %s: an autoN axis cannot be sharded (each shard would refine on its own seeds); use a fixed grid", a.Spec)
		}
	}
	if c.Crossing != "" {
		if err := CheckMetric(c.Crossing); err != nil {
			return fmt.Errorf("crossing: %v", err)
		}
		if len(c.Axes) == 0 || c.Axes[0].kind() > params.Duration || c.Axes[0].kind() == params.Bool {
			return errors.New("crossing needs a numeric or duration first axis (-vary)")
		}
	}
	if len(c.Axes) == 2 && c.Axes[0].Key == c.Axes[1].Key {
		return fmt.Errorf("both axes vary %s", c.Axes[0].Key)
	}
	if c.Shard.Count > 1 && (c.Shard.Index < 0 || c.Shard.Index >= c.Shard.Count) {
		return fmt.Errorf("shard %s is not allowed", c.Shard)
	}
	if c.FailingK < 0 {
		return fmt.Errorf("failing %d is not allowed (allowed: 0 or more)", c.FailingK)
	}
	for _, kv := range append(slices.Clone(c.File), c.Sets...) {
		if kv.Key == "enable.idempotence" {
			return errors.New("set enable.idempotence with -idempotence, not -set")
		}
	}
	for p := range numPoints(c.Axes) {
		for _, on := range c.modes() {
			if _, err := scenarios.Resolve(c.spec(0, p, on)); err != nil {
				where := ""
				for _, kv := range PointSets(c.Axes, p) {
					where += kv.Key + "=" + kv.Value + " "
				}
				var ic *params.IdempotenceConflict
				if on && errors.As(err, &ic) {
					// Say the fix: the sweep runs both modes unless told.
					return fmt.Errorf("%sidempotence=on: %v: this point cannot run with idempotence (add -idempotence=false to sweep without it, or vary only values idempotence allows)", where, err)
				}
				return fmt.Errorf("%sidempotence=%s: %v", where, modeName(on), err)
			}
		}
	}
	return nil
}

func (c *Config) modes() []bool {
	if len(c.Modes) == 0 {
		return []bool{false, true}
	}
	return c.Modes
}

// seeds returns the number of seeds this shard runs.
func (c *Config) seeds() int {
	if c.Shard.Count <= 1 {
		return c.Runs
	}
	n := c.Runs / c.Shard.Count
	if c.Shard.Index < c.Runs%c.Shard.Count {
		n++
	}
	return n
}

// seed returns the j-th seed of this shard.
func (c *Config) seed(j int) uint64 {
	if c.Shard.Count <= 1 {
		return c.Base + uint64(j)
	}
	return c.Base + uint64(j*c.Shard.Count+c.Shard.Index)
}

type job struct {
	k     int64
	point int
	on    bool
	spec  scenarios.Spec
}

type outcome struct {
	job
	res *scenarios.Result
	err error
	// row is the run's runs.csv line, formatted by the worker that ran it
	// (rowErr: why it could not be); its storage is reused with the
	// batch's.
	row    []byte
	rowErr error
}

// batch is consecutive runs handed to one worker, and their outcomes in
// order (fewer than the runs when the sweep was cancelled).
type batch struct {
	k    int64
	jobs []job
	outs []outcome
}

// batchSize is the runs per batch: enough that a hand-off costs little
// beside the runs, few enough that every worker gets several batches.
func batchSize(total int64, par int) int {
	return int(max(1, min(32, total/int64(8*par))))
}

// Run runs the sweep. Cancelling ctx stops it cleanly: runs under way
// finish, and the state holds the runs written out before the
// cancellation, a prefix of the sweep in (point, seed, mode) order
// (Complete is false). The error is a configuration or output error.
//
// An axis written FROM:TO:autoN is refined: see [runAdaptive].
func Run(ctx context.Context, c Config) (*State, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if len(c.Axes) > 0 && c.Axes[0].Auto > 0 {
		return runAdaptive(ctx, c)
	}
	return runGrid(ctx, c)
}

// runGrid runs every point of the axes' product.
func runGrid(ctx context.Context, c Config) (*State, error) {
	modes := c.modes()
	st := &State{Scenario: c.Scenario.Name, Base: c.Base, Runs: c.Runs, File: c.File, Bugs: c.Bugs, Sets: c.Sets, Axes: c.Axes,
		Modes: modes, FailingK: c.FailingK, Crossing: c.Crossing, Preset: c.Preset, Complete: true, ScenarioFile: c.ScenarioFile, PlanFile: c.PlanSource.PlanFile()}
	if st.Sets == nil {
		st.Sets = []params.KV{}
	}
	if c.Shard.Count > 1 {
		sh := c.Shard
		st.Shard = &sh
	}
	np, ns, nm := numPoints(c.Axes), c.seeds(), len(modes)
	st.Acc = make([][]*Acc, np)
	for p := range st.Acc {
		st.Acc[p] = make([]*Acc, nm)
		for m := range nm {
			st.Acc[p][m] = newAcc()
		}
	}
	total := int64(np) * int64(ns) * int64(nm)
	par := max(c.Parallel, 1)

	var csvw *csvWriter
	if c.CSV != nil {
		csvw = newCSVWriter(c.CSV, c.Axes)
	}
	var failw *failingWriter
	if c.KeepFailing != nil {
		failw = newFailingWriter(c.KeepFailing)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Runs go to the workers in batches of consecutive runs, so the
	// hand-offs between goroutines cost little beside the runs. window
	// bounds the batches dispatched but not yet written out, so the
	// reorder buffer stays small whatever the number of runs.
	bsize := batchSize(total, par)
	window := make(chan struct{}, 4*par)
	jobs := make(chan batch)
	results := make(chan batch, par)
	// free returns the storage of written-out batches to the dispatcher,
	// so that a sweep of a million runs reuses a few batches' memory.
	free := make(chan batch, 5*par+1)
	reuse := func() batch {
		select {
		case b := <-free:
			return b
		default:
			return batch{}
		}
	}
	go func() {
		defer close(jobs)
		var k, bk int64
		spare := reuse()
		cur := spare.jobs
		send := func() bool {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return false
			}
			if ctx.Err() != nil {
				return false
			}
			jobs <- batch{k: bk, jobs: cur, outs: spare.outs}
			bk++
			spare = reuse()
			cur = spare.jobs
			return true
		}
		for p := range np {
			// The parameters are decoded once per point and mode, not
			// per run: every run of the point shares the (read-only)
			// resolved configuration.
			// So are the specs: a run's is its mode's with its seed (the
			// -set list is shared, read only).
			res := make([]*scenarios.Resolved, len(modes))
			specs := make([]scenarios.Spec, len(modes))
			for m, on := range modes {
				specs[m] = c.spec(0, p, on)
				res[m], _ = scenarios.Resolve(specs[m]) // an error: each run reports it
				specs[m].Resolved = res[m]
			}
			for j := range ns {
				seed := c.seed(j)
				for m, on := range modes {
					spec := specs[m]
					spec.Seed = seed
					cur = append(cur, job{k: k, point: p, on: on, spec: spec})
					k++
					if len(cur) == bsize && !send() {
						return
					}
				}
			}
		}
		if len(cur) > 0 {
			send()
		}
	}()
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker runs its seeds in one World's memory, and
			// formats their runs.csv rows (the writer writes them in
			// order): the formatting runs in parallel too.
			var runner scenarios.Runner
			var scratch []byte
			for b := range jobs {
				if cap(b.outs) < len(b.jobs) {
					b.outs = make([]outcome, 0, len(b.jobs))
				}
				// A reused batch's storage still holds the results it
				// carried last, written out since: each run writes its
				// result in one of them (Runner.Recycle).
				old := b.outs[:cap(b.outs)]
				for i, j := range b.jobs {
					if ctx.Err() != nil {
						break // cancelled: the runs of the batch not started stay so
					}
					runner.Recycle(old[i].res)
					res, err := runOne(&runner, j.spec)
					o := outcome{job: j, res: res, err: err, row: old[i].row[:0]}
					if csvw != nil && err == nil {
						o.row, o.rowErr = csvw.rows.format(o.row, &scratch, j.point, res)
					}
					b.outs = append(b.outs, o)
				}
				results <- b
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int64]batch{}
	var next, nextBatch int64
	var firstErr error
	stopped := false // a batch came back cut short: later runs are not kept
	for b := range results {
		pending[b.k] = b
		for {
			b, ok := pending[nextBatch]
			if !ok {
				break
			}
			delete(pending, nextBatch)
			nextBatch++
			<-window
			if stopped {
				continue
			}
			stopped = len(b.outs) < len(b.jobs)
			for i := range b.outs {
				o := &b.outs[i]
				next++
				if firstErr != nil {
					continue
				}
				if o.err != nil {
					firstErr = o.err
					cancel()
					continue
				}
				m := 0
				if len(modes) == 2 && o.on {
					m = 1
				}
				st.Acc[o.point][m].add(o.res, c.FailingK)
				if csvw != nil {
					err := o.rowErr
					if err == nil {
						err = csvw.write(o.row)
					}
					if err != nil {
						firstErr = err
						cancel()
					}
				}
				if failw != nil {
					if err := failw.add(o.point, o.res); err != nil {
						firstErr = err
						cancel()
					}
				}
				if c.Progress != nil {
					c.Progress(next, total)
				}
				if ctx.Err() != nil {
					// Cancelled: the state keeps the runs written so
					// far, a prefix, and no more.
					stopped = true
					break
				}
			}
			// The batch is written out: its storage goes back to the
			// dispatcher, emptied but for its results, which nothing
			// holds any more: the worker that gets it next writes its
			// runs' results in them.
			clear(b.jobs)
			for i := range b.outs {
				b.outs[i] = outcome{res: b.outs[i].res, row: b.outs[i].row[:0]}
			}
			select {
			case free <- batch{jobs: b.jobs[:0], outs: b.outs[:0]}:
			default:
			}
		}
	}
	if csvw != nil {
		if err := csvw.flush(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if failw != nil {
		if err := failw.flush(); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	st.Complete = next == total
	return st, nil
}

// runOne runs one spec on runner, turning a panic into an error that
// carries the reproduce command (and dropping the runner's World, which a
// panic may have left half changed).
func runOne(runner *scenarios.Runner, spec scenarios.Spec) (res *scenarios.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			*runner = scenarios.Runner{}
			err = fmt.Errorf("run panicked: %v\nreproduce: %s\n%s", r, spec.Reproduce(), debug.Stack())
		}
	}()
	res, err = runner.Run(spec)
	if err != nil {
		err = fmt.Errorf("seed %d: %v", spec.Seed, err)
	}
	return res, err
}
