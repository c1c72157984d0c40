package sweep

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// and runs.csv one unsharded sweep would have written, byte for byte.
// Every shard i/n of one sweep must be given exactly once.
func Merge(out string, dirs []string) (*Summary, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no shard directories")
	}
	if err := OutNotInput(out, dirs); err != nil {
		return nil, err
	}
	rows := map[string]int64{} // shard directory -> runs.csv rows it must have
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
	var csvs, fails []string
	var want []int64
	for _, d := range dirs {
		p := filepath.Join(d, RunsFile)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s has no %s (a shard's -out directory has one: copy it in full)", d, RunsFile)
		}
		csvs = append(csvs, p)
		want = append(want, rows[d])
		if _, err := os.Stat(filepath.Join(d, FailingFile)); err == nil {
			fails = append(fails, filepath.Join(d, FailingFile))
		}
	}
	if len(fails) != 0 && len(fails) != len(dirs) {
		return nil, fmt.Errorf("%d of %d shards have %s (allowed: all or none)", len(fails), len(dirs), FailingFile)
	}
	if err := writeMerged(filepath.Join(out, RunsFile), func(w io.Writer) error { return mergeCSV(w, csvs, want) }); err != nil {
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

// OutNotInput refuses a merge's output directory that is one of its
// inputs, or holds one, or is inside one: merge never writes into an
// input.
func OutNotInput(out string, dirs []string) error {
	ao, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		ad, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		same := ao == ad
		if fo, err1 := os.Stat(ao); err1 == nil {
			if fd, err2 := os.Stat(ad); err2 == nil && os.SameFile(fo, fd) {
				same = true
			}
		}
		if same || within(ad, ao) || within(ao, ad) {
			return fmt.Errorf("-out %s is also an input (%s); merge never writes into an input: give a new directory", out, d)
		}
	}
	return nil
}

// within reports whether path p is inside directory dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
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
