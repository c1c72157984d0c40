package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/shard"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

func ackloss(t testing.TB) *scenarios.Scenario {
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func axis(t testing.TB, spec string) Axis {
	a, err := ParseAxis(ackloss(t), spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sweep runs cfg and returns its summary JSON, runs.csv and keep-failing.
func sweep(t *testing.T, cfg Config) (sum, csv, failing []byte) {
	t.Helper()
	var c, f bytes.Buffer
	cfg.CSV, cfg.KeepFailing = &c, &f
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Summarize().JSON()
	if err != nil {
		t.Fatal(err)
	}
	return b, c.Bytes(), f.Bytes()
}

func baseConfig(t *testing.T) Config {
	return Config{Scenario: ackloss(t), Base: 1, Runs: 30, FailingK: 3,
		Axes: []Axis{axis(t, "net.response_loss=0:0.2:0.1")}}
}

// TestParallelIdentical: the summary, runs.csv and the failing list are
// byte-identical for every -parallel.
func TestParallelIdentical(t *testing.T) {
	var want [3][]byte
	for i, p := range []int{1, 2, 5} {
		cfg := baseConfig(t)
		cfg.Parallel = p
		s, c, f := sweep(t, cfg)
		got := [3][]byte{s, c, f}
		if i == 0 {
			want = got
			continue
		}
		for k, name := range []string{"summary", "runs.csv", "failing"} {
			if !bytes.Equal(got[k], want[k]) {
				t.Errorf("-parallel %d: %s differs from -parallel 1's", p, name)
			}
		}
	}
	if !bytes.Contains(want[0], []byte(`"INV-DUP"`)) || bytes.Count(want[1], []byte("\n")) != 1+3*30*2 {
		t.Errorf("unexpected output: %d csv lines\n%s", bytes.Count(want[1], []byte("\n")), want[0][:400])
	}
}

// TestShardMerge: a sweep split into shards and merged gives exactly the
// unsharded sweep's summary.json, runs.csv and charts.
func TestShardMerge(t *testing.T) {
	tmp := t.TempDir()
	write := func(dir string, cfg Config) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, RunsFile))
		if err != nil {
			t.Fatal(err)
		}
		cfg.CSV = f
		st, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := st.Summarize().WriteDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	cfg := baseConfig(t)
	cfg.Runs = 20
	cfg.Parallel = 2
	write(filepath.Join(tmp, "whole"), cfg)
	var shards []string
	for i := range 3 {
		c := cfg
		c.Shard = shard.Shard{Index: i, Count: 3}
		d := filepath.Join(tmp, "shard"+string(rune('0'+i)))
		write(d, c)
		shards = append(shards, d)
	}
	// Shards in any order.
	shards[0], shards[2] = shards[2], shards[0]
	// "": as the whole sweep, which had no -out name.
	if _, err := Merge(filepath.Join(tmp, "merged"), "", shards); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "whole", "*"))
	if len(files) < 8 {
		t.Fatalf("whole sweep wrote only %v", files)
	}
	for _, f := range files {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(tmp, "merged", filepath.Base(f)))
		if err != nil {
			t.Error(err)
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the unsharded one", filepath.Base(f))
		}
	}
	// A shard's own summary says which shard it is.
	b, _ := os.ReadFile(filepath.Join(shards[1], SummaryFile))
	if !bytes.Contains(b, []byte(`"shard": {`)) {
		t.Error("shard summary lacks its shard")
	}

	for _, c := range []struct {
		dirs []string
		err  string
	}{
		{shards[:2], "missing"},
		{[]string{shards[0], shards[0]}, "are both shard"},
		{[]string{shards[0], filepath.Join(tmp, "whole")}, "shards"},
		{[]string{filepath.Join(tmp, "nope")}, "no such file"},
	} {
		if _, err := Merge(filepath.Join(tmp, "bad"), filepath.Join(tmp, "bad"), c.dirs); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Merge(%v) = %v, want an error with %q", c.dirs, err, c.err)
		}
	}
}

// TestInterrupt: cancelling stops the sweep; the state holds a prefix.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := baseConfig(t)
	cfg.Parallel = 2
	var csv bytes.Buffer
	cfg.CSV = &csv
	cfg.Progress = func(done, total int64) {
		if done == 25 {
			cancel()
		}
	}
	st, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Complete {
		t.Fatal("interrupted sweep says complete")
	}
	var runs int64
	for _, p := range st.Acc {
		for _, a := range p {
			runs += a.Runs
		}
	}
	rows := int64(bytes.Count(csv.Bytes(), []byte("\n")) - 1)
	if runs < 25 || runs > 25+8*2+2 || rows != runs {
		t.Errorf("interrupted after %d runs with %d csv rows", runs, rows)
	}
	if !strings.Contains(st.Summarize().Footnote(), "interrupted") {
		t.Error("footnote does not say interrupted")
	}
}

// TestPairedModes: off and on run the same seeds; ackloss finds
// duplicates only with idempotence off, and the failing seeds reproduce.
func TestPairedModes(t *testing.T) {
	cfg := Config{Scenario: ackloss(t), Base: 1, Runs: 40, FailingK: 2, Parallel: 2,
		Sets: []params.KV{{Key: "net.response_loss", Value: "0.2"}}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Summarize()
	off, on := s.Points[0].Modes["off"], s.Points[0].Modes["on"]
	if off.Runs != 40 || on.Runs != 40 {
		t.Fatalf("runs off %d on %d", off.Runs, on.Runs)
	}
	if off.Violations["INV-DUP"].Runs == 0 || on.AnyViolation.Runs != 0 {
		t.Errorf("INV-DUP off %d, any on %d", off.Violations["INV-DUP"].Runs, on.AnyViolation.Runs)
	}
	if *off.Rates["duplicate_rate"].Value <= 0 || *on.Rates["duplicate_rate"].Value != 0 {
		t.Errorf("duplicate rate off %v on %v", *off.Rates["duplicate_rate"].Value, *on.Rates["duplicate_rate"].Value)
	}
	var dup []Failing
	for _, f := range off.Failing {
		if f.Invariant == "INV-DUP" {
			dup = append(dup, f)
		}
	}
	if len(dup) != 2 || dup[0].Seed >= dup[1].Seed {
		t.Fatalf("failing %v", off.Failing)
	}
	f := dup[0]
	want := "go run ./cmd/simulate -seed " + strconv.FormatUint(f.Seed, 10) + " -scenario ackloss -set net.response_loss=0.2 -idempotence=false"
	if f.Reproduce != want {
		t.Errorf("reproduce %q, want %q", f.Reproduce, want)
	}
	r, err := scenarios.Run(scenarios.Spec{Scenario: ackloss(t), Seed: f.Seed, Sets: runSets(cfg.Sets, nil, 0, false)})
	if err != nil || !r.HasViolations() {
		t.Errorf("failing seed %d does not fail again: %v", f.Seed, err)
	}
	if l := on.LatencyMs; l.P50 == nil || *l.P50 <= 0 || *l.P99 < *l.P50 || *l.P999 < *l.P99 {
		t.Errorf("latency %+v", l)
	}
	var tab bytes.Buffer
	if err := s.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"duplicate rate", "INV-DUP", "failing seeds", "latency p50/p99/p99.9"} {
		if !strings.Contains(tab.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tab.String())
		}
	}
}

// TestBugsAndFileLevels: a sweep's -bug IDs and scenario file values are
// levels of their own; they reach every run, the summary (which a merge
// reads back) and the reproduce commands.
func TestBugsAndFileLevels(t *testing.T) {
	cfg := Config{Scenario: ackloss(t), Base: 1, Runs: 30, FailingK: 1, Modes: []bool{true},
		File: []params.KV{{Key: "broker.dedup", Value: "true"}, {Key: "records", Value: "30"}},
		Bugs: []string{"Z16"}, // broker.dedup=false: -bug beats the file
		Sets: []params.KV{{Key: "net.response_loss", Value: "0.2"}}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Summarize()
	on := s.Points[0].Modes["on"]
	if on.Violations["INV-DUP"].Runs == 0 || len(on.Failing) == 0 {
		t.Fatalf("-bug Z16 gave no duplicates: %+v", on.Violations)
	}
	want := "go run ./cmd/simulate -seed " + strconv.FormatUint(on.Failing[0].Seed, 10) +
		" -scenario ackloss -bug Z16 -set records=30 -set net.response_loss=0.2 -idempotence=true"
	if on.Failing[0].Reproduce != want {
		t.Errorf("reproduce\n got %s\nwant %s", on.Failing[0].Reproduce, want)
	}
	b, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	st2, err := back.state()
	if err != nil {
		t.Fatal(err)
	}
	if b2, _ := st2.Summarize().JSON(); !bytes.Equal(b, b2) {
		t.Error("summary does not survive a round trip")
	}
	other := *back
	other.Bugs = nil
	if err := compatible(back, &other); err == nil || !strings.Contains(err.Error(), "-bug") {
		t.Errorf("shards with different -bug are compatible: %v", err)
	}
	if !strings.HasSuffix(s.Command(), " -runs 30 -seed 1 -idempotence=true -bug Z16 -set records=30 -set net.response_loss=0.2") {
		t.Errorf("command %s", s.Command())
	}
}
