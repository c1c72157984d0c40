package explore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/internal/shard"
)

// IsExploreDir reports whether dir holds the summary of an exploration
// (rather than of a sweep).
func IsExploreDir(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return false
	}
	_, err = ParseResult(b)
	return err == nil
}

// Merge combines the -out directories of the shards i/n of one exploration
// into out: the verdict and the shortest counterexamples one process would
// have found (their plan files and diagrams copied), and the counts added
// up over the levels one process would have run. With pruning off the
// counts are one process's too; with pruning on each shard pruned against
// its own states, and the report says so.
func Merge(out string, dirs []string) (*Result, error) {
	set, err := shard.NewSet(dirs)
	if err != nil {
		return nil, err
	}
	var rs []*Result
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, SummaryFile))
		if err != nil {
			return nil, err
		}
		r, err := ParseResult(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		if len(rs) > 0 {
			if err := compatible(rs[0], r); err != nil {
				return nil, fmt.Errorf("%s is not a shard of the same exploration as %s: %v", d, dirs[0], err)
			}
		}
		if err := set.Add(d, r.Shard.shard()); err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	if err := set.Complete(); err != nil {
		return nil, err
	}
	m := *rs[0]
	m.Shard, m.Merged, m.Stop, m.Levels, m.Remaining, m.Memory.SavedStates = nil, set.Count(), "", nil, 0, 0
	m.Counterexamples = nil
	// One process without -all stops after the level of its first
	// counterexample: add the shards' levels up to there.
	last := m.MaxFaults
	for _, r := range rs {
		if !m.All && len(r.Counterexamples) > 0 {
			last = min(last, r.Counterexamples[0].Faults)
		}
	}
	from := map[string]string{} // counterexample invariant -> shard dir
	for i, r := range rs {
		for _, l := range r.Levels {
			if l.Faults > last {
				continue
			}
			for len(m.Levels) <= l.Faults {
				m.Levels = append(m.Levels, Level{Faults: len(m.Levels), Complete: true})
			}
			ml := &m.Levels[l.Faults]
			ml.Schedules += l.Schedules
			ml.Violating += l.Violating
			ml.Pruned += l.Pruned
			ml.Skipped += l.Skipped
			ml.States += l.States
			ml.Complete = ml.Complete && l.Complete
		}
		if r.Stop != "" && m.Stop == "" {
			m.Stop = r.Stop
		}
		m.Remaining += r.Remaining
		// Each shard is its own process: the most any one kept.
		m.Memory.Peak = max(m.Memory.Peak, r.Memory.Peak)
		m.Memory.SavedStates += r.Memory.SavedStates
		m.Memory.SavedStateBytes = max(m.Memory.SavedStateBytes, r.Memory.SavedStateBytes)
		if r.Memory.FrontierBytes > m.Memory.FrontierBytes {
			m.Memory.FrontierBytes, m.Memory.FrontierSchedules = r.Memory.FrontierBytes, r.Memory.FrontierSchedules
		}
		for _, ce := range r.Counterexamples {
			j := slices.IndexFunc(m.Counterexamples, func(c Counterexample) bool { return c.Invariant == ce.Invariant })
			switch {
			case j < 0:
				m.Counterexamples = append(m.Counterexamples, ce)
			case ce.key().less(m.Counterexamples[j].key()):
				m.Counterexamples[j] = ce
			default:
				continue
			}
			from[ce.Invariant] = dirs[i]
		}
	}
	// Without -all one process finds counterexamples in the level of its
	// first one only.
	m.Counterexamples = slices.DeleteFunc(m.Counterexamples, func(c Counterexample) bool { return c.Faults > last })
	m.finish()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	for i := range m.Counterexamples {
		ce := &m.Counterexamples[i]
		src := from[ce.Invariant]
		for _, f := range []string{ce.File, ce.Diagram} {
			if f == "" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				return nil, err
			}
			b = []byte(strings.ReplaceAll(string(b), filepath.Join(src, ce.File), filepath.Join(out, ce.File)))
			if err := os.WriteFile(filepath.Join(out, f), b, 0o644); err != nil {
				return nil, err
			}
		}
		if ce.Reproduce != "" {
			ce.Reproduce = replacePath(ce.Reproduce, filepath.Join(src, ce.File), filepath.Join(out, ce.File))
		}
	}
	return &m, m.WriteDir(out)
}

// replacePath swaps the plan file's path in a reproduce command.
func replacePath(cmd, old, new string) string {
	if i := len(cmd) - len(old); i >= 0 && cmd[i:] == old {
		return cmd[:i] + new
	}
	return cmd
}

// compatible reports why b is not a shard of the same exploration as a.
func compatible(a, b *Result) error {
	switch {
	case a.Scenario != b.Scenario || a.ScenarioFile != b.ScenarioFile:
		return fmt.Errorf("scenario %s, not %s", b.Scenario, a.Scenario)
	case a.Version != b.Version:
		return fmt.Errorf("simulator version %s, not %s", b.Version, a.Version)
	case a.Seed != b.Seed:
		return fmt.Errorf("seed %d, not %d", b.Seed, a.Seed)
	case !slices.Equal(a.File, b.File) || !slices.Equal(a.Sets, b.Sets) || !slices.Equal(a.Fixed, b.Fixed):
		return fmt.Errorf("parameters %v, not %v", b.Sets, a.Sets)
	case !slices.Equal(a.Bugs, b.Bugs):
		return fmt.Errorf("-bug %v, not %v", b.Bugs, a.Bugs)
	case a.MaxFaults != b.MaxFaults || a.Prune != b.Prune || a.ReduceOff != b.ReduceOff || a.All != b.All || a.Budget != b.Budget || a.Menu != b.Menu || a.Memory.Bound != b.Memory.Bound:
		return errors.New("different -max-faults, -explore-prune, -explore-reduce, -all, -explore-budget, -explore-memory or menu")
	}
	return nil
}
