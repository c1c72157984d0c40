package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
)

// Output file names in an -out directory.
const (
	SummaryFile = "summary.json"
	RunsFile    = "runs.csv"
	// FailingFile holds every failing (run, invariant) with its reproduce
	// command, as -keep-failing writes it.
	FailingFile = "failing.tsv"
)

// WriteDir writes summary.json, the charts and report.md to dir
// (runs.csv is written while the sweep runs).
func (s *Summary) WriteDir(dir string) error {
	b, err := s.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), b, 0o644); err != nil {
		return err
	}
	if err := s.WriteCharts(dir); err != nil {
		return err
	}
	return s.WriteReport(dir)
}

// Merge combines the outputs of a sweep's shards, each a directory with
// summary.json and (optionally) runs.csv, into out: the summary, charts
// and runs.csv one unsharded sweep would have written, byte for byte,
// with -out name (the merge's -out, named by the regenerate command;
// out may be a temporary directory that takes name's place). Every shard
// i/n of one sweep must be given exactly once.
func Merge(out, name string, dirs []string) (*Summary, error) {
	set, err := shard.NewSet(dirs)
	if err != nil {
		return nil, err
	}
	if err := shard.OutNotInput(out, dirs); err != nil {
		return nil, err
	}
	rows := map[string]int64{}      // shard directory -> runs.csv rows it must have
	checks := map[string]rowCheck{} // shard directory -> what its rows may hold
	var total *State
	var first *Summary
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, SummaryFile))
		if err != nil {
			return nil, err
		}
		s, err := ParseSummary(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		if first == nil {
			first = s
		} else if err := compatible(first, s); err != nil {
			return nil, fmt.Errorf("%s is not a shard of the same sweep as %s: %v", d, dirs[0], err)
		}
		if err := set.Add(d, s.Shard); err != nil {
			return nil, err
		}
		if !s.Complete {
			return nil, fmt.Errorf("%s: the shard's sweep was interrupted", d)
		}
		st, err := s.state()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		checks[d] = newRowCheck(st)
		for _, p := range st.Acc {
			for _, a := range p {
				rows[d] += a.Runs
			}
		}
		if total == nil {
			total = st
			continue
		}
		for p := range total.Acc {
			for m := range total.Acc[p] {
				total.Acc[p][m].merge(st.Acc[p][m], total.FailingK)
			}
		}
	}
	if err := set.Complete(); err != nil {
		return nil, err
	}
	if total.ScenarioFile == "" {
		if _, err := scenarios.Lookup(total.Scenario); err != nil {
			return nil, err
		}
	}
	total.Shard = nil
	sum := total.Summarize()
	sum.Out = name
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var csvs, fails []string
	var want []int64
	var rowChecks []rowCheck
	for _, d := range dirs {
		p := filepath.Join(d, RunsFile)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s has no %s (a shard's -out directory has one: copy it in full)", d, RunsFile)
		}
		csvs = append(csvs, p)
		want = append(want, rows[d])
		rowChecks = append(rowChecks, checks[d])
		if _, err := os.Stat(filepath.Join(d, FailingFile)); err == nil {
			fails = append(fails, filepath.Join(d, FailingFile))
		}
	}
	if len(fails) != 0 && len(fails) != len(dirs) {
		return nil, fmt.Errorf("%d of %d shards have %s (allowed: all or none)", len(fails), len(dirs), FailingFile)
	}
	if err := writeMerged(filepath.Join(out, RunsFile), func(w io.Writer) error { return mergeCSV(w, csvs, want, rowChecks) }); err != nil {
		return nil, err
	}
	if len(fails) > 0 {
		if err := writeMerged(filepath.Join(out, FailingFile), func(w io.Writer) error { return mergeFailing(w, fails) }); err != nil {
			return nil, err
		}
	}
	return sum, sum.WriteDir(out)
}

// writeMerged creates path and fills it with merge.
func writeMerged(path string, merge func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = merge(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// compatible reports why b is not a shard of the same sweep as a.
func compatible(a, b *Summary) error {
	switch {
	case a.Scenario != b.Scenario:
		return fmt.Errorf("scenario %s, not %s", b.Scenario, a.Scenario)
	case a.Version != b.Version:
		return fmt.Errorf("simulator version %s, not %s", b.Version, a.Version)
	case a.BaseSeed != b.BaseSeed || a.Runs != b.Runs:
		return fmt.Errorf("%s, not %s", b.SeedRange(), a.SeedRange())
	case a.ScenarioFile != b.ScenarioFile || a.PlanFile != b.PlanFile:
		return fmt.Errorf("scenario file %q and plan file %q, not %q and %q", b.ScenarioFile, b.PlanFile, a.ScenarioFile, a.PlanFile)
	case !slices.Equal(a.File, b.File):
		return fmt.Errorf("scenario file values %v, not %v", b.File, a.File)
	case !slices.Equal(a.Bugs, b.Bugs):
		return fmt.Errorf("-bug %v, not %v", b.Bugs, a.Bugs)
	case !slices.Equal(a.Sets, b.Sets):
		return fmt.Errorf("sets %v, not %v", b.Sets, a.Sets)
	case !slices.EqualFunc(a.Axes, b.Axes, func(x, y Axis) bool { return x.Spec == y.Spec && slices.Equal(x.Values, y.Values) }):
		return errors.New("different -vary axes")
	case !slices.Equal(a.Modes, b.Modes):
		return fmt.Errorf("modes %v, not %v", b.Modes, a.Modes)
	case a.FailingK != b.FailingK:
		return fmt.Errorf("-failing %d, not %d", b.FailingK, a.FailingK)
	case a.Preset != b.Preset:
		return fmt.Errorf("-preset %q, not %q", b.Preset, a.Preset)
	case (a.Crossing == nil) != (b.Crossing == nil) || a.Crossing != nil && a.Crossing.Metric != b.Crossing.Metric:
		return errors.New("different -crossing metrics")
	}
	return nil
}
