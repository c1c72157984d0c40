package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/idemsim/idemsim/scenarios"
)

// Output file names in an -out directory.
const (
	SummaryFile = "summary.json"
	RunsFile    = "runs.csv"
)

// WriteDir writes summary.json and the charts to dir (runs.csv is written
// while the sweep runs).
func (s *Summary) WriteDir(dir string) error {
	b, err := s.JSON()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), b, 0o644); err != nil {
		return err
	}
	return s.WriteCharts(dir)
}

// Merge combines the outputs of a sweep's shards, each a directory with
// summary.json and (optionally) runs.csv, into out: the summary, charts
// and runs.csv one unsharded sweep would have written, byte for byte.
// Every shard i/n of one sweep must be given exactly once.
func Merge(out string, dirs []string) (*Summary, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no shard directories")
	}
	var total *State
	var first *Summary
	seen := map[int]string{}
	count := 0
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, SummaryFile))
		if err != nil {
			return nil, err
		}
		s, err := ParseSummary(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		sh := Shard{Index: 0, Count: 1}
		if s.Shard != nil {
			sh = *s.Shard
		}
		if first == nil {
			first, count = s, sh.Count
		} else if err := compatible(first, s); err != nil {
			return nil, fmt.Errorf("%s is not a shard of the same sweep as %s: %v", d, dirs[0], err)
		}
		if sh.Count != count {
			return nil, fmt.Errorf("%s is shard %s, but %s is of %d shards", d, sh, dirs[0], count)
		}
		if prev, ok := seen[sh.Index]; ok {
			return nil, fmt.Errorf("%s and %s are both shard %s", prev, d, sh)
		}
		seen[sh.Index] = d
		if !s.Complete {
			return nil, fmt.Errorf("%s: the shard's sweep was interrupted", d)
		}
		st, err := s.state()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
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
	if len(seen) != count {
		var missing []int
		for i := range count {
			if _, ok := seen[i]; !ok {
				missing = append(missing, i)
			}
		}
		return nil, fmt.Errorf("shards %v of %d are missing", missing, count)
	}
	if total.ScenarioFile == "" {
		if _, err := scenarios.Lookup(total.Scenario); err != nil {
			return nil, err
		}
	}
	total.Shard = nil
	sum := total.Summarize()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var csvs []string
	for _, d := range dirs {
		p := filepath.Join(d, RunsFile)
		if _, err := os.Stat(p); err == nil {
			csvs = append(csvs, p)
		}
	}
	if len(csvs) == len(dirs) {
		f, err := os.Create(filepath.Join(out, RunsFile))
		if err != nil {
			return nil, err
		}
		err = mergeCSV(f, csvs)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	return sum, sum.WriteDir(out)
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
	}
	return nil
}
