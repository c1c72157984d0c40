package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSweepUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"-scenario", "ackloss", "-runs", "0"}, "simulate: -runs 0 is not allowed (allowed: 1..1000000000)"},
		{[]string{"-scenario", "ackloss", "-runs", "x"}, `invalid value "x" for flag -runs`},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-parallel", "0"}, "simulate: -parallel 0 is not allowed (allowed: 1..4096)"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-failing", "-1"}, "simulate: -failing -1 is not allowed (allowed: 0..10000)"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-seed", "x"}, `simulate: -seed "x" is not allowed`},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-seed", "18446744073709551615"}, "overflows the seed range"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "net.response_loss"}, `simulate: -vary "net.response_loss" is not allowed (allowed: key=FROM:TO:STEP, key=FROM:TO:autoN or key=V1,V2,... with a -set key)`},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "bogus=1:2:1"}, `simulate: -vary "bogus=1:2:1": unknown parameter "bogus"`},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "net.response_loss=0:2:0.5"}, "net.response_loss=1.5 is out of range (allowed: 0..1)"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "net.response_loss=0.3:0:0.1"}, "want FROM <= TO and STEP > 0"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "records=1:2:0.5"}, "FROM and STEP must be integers"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "enable.idempotence=true,false"}, "use -idempotence to keep one"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "records=1,2", "-vary", "acks=all,-1", "-vary", "linger.ms=0,1"}, "simulate: -vary given 3 times (allowed: at most 2 axes)"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-shard", "2/2"}, `simulate: -shard "2/2" is not allowed (allowed: i/n with 0 <= i < n, e.g. 0/4)`},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-trace"}, "simulate: -trace is not allowed with -runs"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-set", "enable.idempotence=false"}, "simulate: -set enable.idempotence is not allowed in a sweep"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-set", "acks=1"}, "simulate: idempotence=on: enable.idempotence=true conflicts with acks=1"},
		{[]string{"-scenario", "ackloss", "-runs", "5", "-vary", "max.in.flight.requests.per.connection=1:10:1"}, "max.in.flight.requests.per.connection=6 idempotence=on:"},
		{[]string{"-seed", "1", "-scenario", "ackloss", "-out", "x"}, "simulate: -out is only allowed in a sweep (add -runs N)"},
		{[]string{"-seed", "1", "-scenario", "ackloss", "-vary", "records=1,2"}, "simulate: -vary is only allowed in a sweep (add -runs N)"},
		{[]string{"merge", "a"}, "simulate: merge: -out is required"},
		{[]string{"merge", "-out", t.TempDir()}, "simulate: merge: no shard directories"},
		{[]string{"merge", "-out", t.TempDir(), "/nonexistent/dir"}, "simulate: merge: open /nonexistent/dir/summary.json"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != exitUsage {
			t.Errorf("simulate %v: exit %d, want 2\nstderr: %s", c.args, code, errOut)
			continue
		}
		if !strings.Contains(errOut, c.err) {
			t.Errorf("simulate %v: stderr %q lacks %q", c.args, errOut, c.err)
		}
		if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines > 0 && !strings.Contains(errOut, "usage:") {
			t.Errorf("simulate %v: %d-line error: %q", c.args, lines+1, errOut)
		}
	}
}

// TestSweepCLI: a sweep with violations exits 0; -json is the summary,
// the same for every -parallel; -out writes the files; the table names
// failing seeds.
func TestSweepCLI(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-scenario", "ackloss", "-runs", "12", "-seed", "3", "-vary", "net.response_loss=0,0.2", "-json"}
	code, a, errOut := runCLI(append(args, "-parallel", "1", "-out", dir, "-keep-failing", filepath.Join(dir, "failing.tsv"))...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "simulate: 48 runs in") {
		t.Errorf("stderr %q lacks the timing line", errOut)
	}
	_, b, _ := runCLI(append(args, "-parallel", "3")...)
	if a != b {
		t.Error("-parallel 1 and 3 print different summaries")
	}
	file, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if string(file) != a {
		t.Error("summary.json differs from the -json output")
	}
	var s struct {
		Format int `json:"format"`
		Points []struct {
			Modes map[string]struct {
				Runs       int64 `json:"runs"`
				Violations map[string]struct {
					Runs int64 `json:"runs"`
				} `json:"violations"`
			} `json:"modes"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(a), &s); err != nil {
		t.Fatal(err)
	}
	if s.Format != 1 || len(s.Points) != 2 || s.Points[1].Modes["off"].Violations["INV-DUP"].Runs == 0 {
		t.Errorf("unexpected summary: %+v", s)
	}
	for _, f := range []string{"runs.csv", "duplicate_rate.svg", "duplicate_rate.png", "latency_cdf.svg", "inv_dup.png", "failing.tsv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	kf, _ := os.ReadFile(filepath.Join(dir, "failing.tsv"))
	if !bytes.Contains(kf, []byte("\tINV-DUP\t")) || !bytes.Contains(kf, []byte("-set net.response_loss=0.2 -idempotence=false")) {
		t.Errorf("failing.tsv:\n%s", kf)
	}

	code, table, _ := runCLI("-scenario", "ackloss", "-runs", "8", "-set", "net.response_loss=0.2", "-idempotence=false", "-failing", "1")
	if code != exitOK || !strings.Contains(table, "failing seeds (first 1") || strings.Contains(table, "  on ") {
		t.Errorf("exit %d, table:\n%s", code, table)
	}
}

// TestShardMergeCLI: shards written by -shard and combined by merge give
// the unsharded sweep's summary.json, byte for byte.
func TestShardMergeCLI(t *testing.T) {
	tmp := t.TempDir()
	base := []string{"-scenario", "ackloss", "-runs", "10", "-vary", "net.response_loss=0.1,0.2"}
	// The regenerate command in the charts and report names -out as
	// given: the whole sweep and the merge both write "out", in two
	// directories.
	os.Mkdir(filepath.Join(tmp, "w"), 0o755)
	os.Mkdir(filepath.Join(tmp, "m"), 0o755)
	whole := filepath.Join(tmp, "w", "out")
	t.Chdir(filepath.Join(tmp, "w"))
	if code, _, e := runCLI(append(base, "-out", "out")...); code != exitOK {
		t.Fatal(e)
	}
	var dirs []string
	for _, sh := range []string{"0/2", "1/2"} {
		d := filepath.Join(tmp, strings.ReplaceAll(sh, "/", "of"))
		if code, _, e := runCLI(append(base, "-shard", sh, "-out", d)...); code != exitOK {
			t.Fatal(e)
		}
		dirs = append(dirs, d)
	}
	merged := filepath.Join(tmp, "m", "out")
	t.Chdir(filepath.Join(tmp, "m"))
	code, out, e := runCLI(append([]string{"merge", "-out", "out"}, dirs...)...)
	if code != exitOK || !strings.Contains(out, "sweep: scenario ackloss") {
		t.Fatalf("merge: exit %d: %s\n%s", code, e, out)
	}
	for _, f := range []string{"summary.json", "runs.csv", "duplicate_rate.svg", "latency_cdf.png", "report.md"} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the unsharded one", f)
		}
	}
	if code, _, e := runCLI("merge", "-out", filepath.Join(tmp, "m2"), dirs[0]); code != exitUsage || !strings.Contains(e, "shards [1] of 2 are missing") {
		t.Errorf("merge of one of two shards: exit %d %q", code, e)
	}
}

// TestSweepInterrupted: an interrupted sweep prints its partial summary
// and exits 130.
func TestSweepInterrupted(t *testing.T) {
	old := interruptContext
	defer func() { interruptContext = old }()
	interruptContext = func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
	dir := t.TempDir()
	code, out, errOut := runCLI("-scenario", "ackloss", "-runs", "50", "-out", dir)
	if code != exitInterrupted || !strings.Contains(out, "INTERRUPTED: partial results") || !strings.Contains(errOut, "simulate: interrupted") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if !bytes.Contains(b, []byte(`"complete": false`)) {
		t.Error("summary.json does not say incomplete")
	}
}

// TestMergeRefusesWrongShards: merge refuses shards that are well formed
// but wrong, with exit 2 and one line naming the file (and line): a
// summary.json that claims a shard index beyond its count, a runs.csv
// whose rows name a seed of another shard, or one seed in every row (its
// keys repeat), a point out of range, and a count that is not an integer.
// Each of these merged before, with the good summary and the bad rows.
func TestMergeRefusesWrongShards(t *testing.T) {
	tmp := t.TempDir()
	base := []string{"-scenario", "ackloss", "-runs", "10", "-seed", "1"}
	var dirs []string
	for _, sh := range []string{"0/2", "1/2"} {
		d := filepath.Join(tmp, strings.ReplaceAll(sh, "/", "of"))
		if code, _, e := runCLI(append(base, "-shard", sh, "-out", d)...); code != exitOK {
			t.Fatal(e)
		}
		dirs = append(dirs, d)
	}
	edit := func(t *testing.T, name string, f func(string) string) []string {
		t.Helper()
		d := filepath.Join(tmp, "bad-"+strings.ReplaceAll(t.Name(), "/", "-"))
		if err := os.CopyFS(d, os.DirFS(dirs[1])); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{dirs[0], d}
	}
	rows := func(s string, f func(fields []string) []string) string {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for i := 1; i < len(lines); i++ {
			lines[i] = strings.Join(f(strings.Split(lines[i], ",")), ",")
		}
		return strings.Join(lines, "\n") + "\n"
	}
	col := func(s, name string) int {
		return slices.Index(strings.Split(strings.SplitN(s, "\n", 2)[0], ","), name)
	}
	for _, c := range []struct {
		name, file string
		edit       func(string) string
		want       string
	}{
		{"shard 5 of 2", "summary.json", func(s string) string { return strings.Replace(s, `"index": 1,`, `"index": 5,`, 1) },
			"claims shard 5/2, which is not a shard of a split"},
		{"seeds of another shard", "runs.csv", func(s string) string {
			return rows(s, func(f []string) []string { f[1] = "3"; return f })
		}, "seed 3 is not in shard 1/2 of seeds 1..10"},
		{"one seed in every row", "runs.csv", func(s string) string {
			return rows(s, func(f []string) []string { f[1] = "2"; return f })
		}, "key (point 0, seed 2, off) repeats"},
		{"point -7", "runs.csv", func(s string) string {
			return rows(s, func(f []string) []string { f[0] = "-7"; return f })
		}, "point -7 is out of range"},
		{"sent lots", "runs.csv", func(s string) string {
			i := col(s, "sent")
			return rows(s, func(f []string) []string { f[i] = "lots"; return f })
		}, `sent "lots" is not a non-negative integer`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := edit(t, c.file, c.edit)
			code, _, e := runCLI(append([]string{"merge", "-out", filepath.Join(tmp, "out-"+strings.ReplaceAll(c.name, " ", "-"))}, in...)...)
			if code != exitUsage || !strings.Contains(e, c.want) || strings.Count(strings.TrimSpace(e), "\n") != 0 {
				t.Errorf("exit %d, %q: want exit 2 and one line with %q", code, e, c.want)
			}
			if c.file == "runs.csv" && !strings.Contains(e, "runs.csv line ") {
				t.Errorf("%q does not name the file's line", e)
			}
		})
	}
}
