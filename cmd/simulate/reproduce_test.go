package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/sweep"
)

// shellWords splits a reproduce line as a POSIX shell would
// (splitShell), failing the test on a line a shell would not read as one
// command.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	words, err := splitShell(line)
	if err != nil {
		t.Fatal(err)
	}
	return words
}

// replayHash runs a printed reproduce line back (with -json appended,
// which a reproduce line must allow) and returns its trace hash.
func replayHash(t *testing.T, line string) string {
	t.Helper()
	args, ok := strings.CutPrefix(line, "go run ./cmd/simulate ")
	if !ok {
		t.Fatalf("reproduce line %q does not start with go run ./cmd/simulate", line)
	}
	words := shellWords(t, args)
	for _, w := range words {
		if w == "-trace" || w == "-json" {
			t.Errorf("reproduce line %q carries output flag %s", line, w)
		}
	}
	code, out, errOut := runCLI(append(words, "-json")...)
	if code == exitUsage {
		t.Fatalf("reproduce line %q: exit 2: %s", line, errOut)
	}
	var r struct {
		TraceHash string `json:"trace_hash"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("reproduce line %q: %v", line, err)
	}
	return r.TraceHash
}

// writeStudy writes a scenario file whose name is a catalogue scenario's
// (ackloss) but whose base is another (zombie), with a plan: a reproduce
// line that named -scenario ackloss would run something else.
func writeStudy(t *testing.T, dir string) string {
	path := filepath.Join(dir, "my study.yaml")
	src := "name: ackloss\nbase: zombie\nparams:\n  records: 12\nplan: |\n  1s pause p1 7s\nend 2m\n"
	src = strings.Replace(src, "\nend 2m\n", "\n", 1)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReproduceLinesReplay runs back every printed reproduce line of a
// sample, single runs, sweeps and scenario-file sweeps, from every output
// that prints one (the report, -json, the sweep table and summary.json,
// runs.csv, -keep-failing, the chart footnote's command), and compares
// trace hashes. On main a sweep of a scenario file printed -scenario
// NAME: exit 2, or the catalogue scenario of that name.
func TestReproduceLinesReplay(t *testing.T) {
	dir := t.TempDir()
	study := writeStudy(t, dir)
	plan := filepath.Join(dir, "p.plan")
	if err := os.WriteFile(plan, []byte("0.5s drop response 3 p1>b1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Single runs: the report's line and the JSON's.
	for _, args := range [][]string{
		{"-seed", "4", "-scenario", "ackloss", "-idempotence=false"},
		{"-seed", "7", "-scenario", "seqreuse", "-bug", "Z11"},
		{"-seed", "4", "-scenario", "ackloss", "-idempotence=false", "-max-events", "40"},
		{"-seed", "3", "-scenario-file", study, "-idempotence=false"},
		{"-seed", "3", "-scenario-file", study, "-plan-file", plan, "-set", "records=9"},
	} {
		_, out, errOut := runCLI(append(args, "-json")...)
		var r struct {
			TraceHash string `json:"trace_hash"`
			Reproduce string `json:"reproduce"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v %s", args, err, errOut)
		}
		if got := replayHash(t, r.Reproduce); got != r.TraceHash {
			t.Errorf("%v: reproduce %q gives %s, want %s", args, r.Reproduce, got, r.TraceHash)
		}
		_, out, _ = runCLI(args...)
		i := strings.Index(out, "\nreproduce: ")
		if i < 0 {
			continue // no violation, no line in the report
		}
		line := strings.TrimSpace(strings.SplitN(out[i+len("\nreproduce: "):], "\n", 2)[0])
		if line != r.Reproduce {
			t.Errorf("%v: report's line %q, JSON's %q", args, line, r.Reproduce)
		}
	}
	// Sweeps: of a scenario file (with its plan), and with -plan-file.
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	for i, args := range [][]string{
		{"-scenario-file", study, "-runs", "6", "-vary", "records=5,12"},
		{"-scenario", "ackloss", "-runs", "6", "-plan-file", plan, "-bug", "Z16"},
	} {
		out := filepath.Join(dir, "out", string(rune('a'+i)))
		kf := filepath.Join(dir, "kf"+string(rune('a'+i)))
		code, stdout, errOut := runCLI(append(args, "-out", out, "-keep-failing", kf, "-parallel", "2")...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		// runs.csv: every row's line gives its own trace hash.
		f, err := os.Open(filepath.Join(out, "runs.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		col := func(name string) int {
			j := slices.Index(rows[0], name)
			if j < 0 {
				t.Fatalf("runs.csv has no column %s: %v", name, rows[0])
			}
			return j
		}
		rc, hc, sc, mc, pc := col("reproduce"), col("trace_hash"), col("seed"), col("mode"), col("point")
		hashOf := map[string]string{} // point/seed/mode -> hash
		for _, row := range rows[1:] {
			if got := replayHash(t, row[rc]); got != row[hc] {
				t.Errorf("runs.csv line %q gives %s, want %s", row[rc], got, row[hc])
			}
			hashOf[row[pc]+"/"+row[sc]+"/"+row[mc]] = row[hc]
		}
		// -keep-failing: point, mode, invariant, seed, reproduce.
		b, err := os.ReadFile(kf)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
		if len(lines) == 0 {
			t.Fatalf("%v: no failing runs to check", args)
		}
		for _, l := range lines {
			c := strings.Split(l, "\t")
			if got, want := replayHash(t, c[4]), hashOf[c[0]+"/"+c[3]+"/"+c[1]]; got != want {
				t.Errorf("-keep-failing line %q gives %s, want %s", c[4], got, want)
			}
		}
		// summary.json's failing lists, which the table prints too.
		var sum struct {
			Points []struct {
				Modes map[string]struct {
					Failing []struct {
						Seed      uint64 `json:"seed"`
						Reproduce string `json:"reproduce"`
					} `json:"failing"`
				} `json:"modes"`
			} `json:"points"`
		}
		b, _ = os.ReadFile(filepath.Join(out, "summary.json"))
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		n := 0
		for p, pt := range sum.Points {
			for m, ms := range pt.Modes {
				for _, fl := range ms.Failing {
					n++
					key := strings.Join([]string{strconv.Itoa(p), strconv.FormatUint(fl.Seed, 10), m}, "/")
					if got := replayHash(t, fl.Reproduce); got != hashOf[key] {
						t.Errorf("summary line %q gives %s, want %s", fl.Reproduce, got, hashOf[key])
					}
					if !strings.Contains(stdout, fl.Reproduce+"\n") {
						t.Errorf("the table lacks %q", fl.Reproduce)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("%v: no failing seeds in the summary", args)
		}
		// The chart footnote's command reruns the sweep: the same summary.
		ps, err := sweep.ParseSummary(b)
		if err != nil {
			t.Fatal(err)
		}
		line := ps.Command()
		if !strings.Contains(ps.Footnote(), strings.Fields(line)[len(strings.Fields(line))-1]) {
			t.Errorf("footnote %q lacks the command %q", ps.Footnote(), line)
		}
		words := shellWords(t, strings.TrimPrefix(line, "go run ./cmd/simulate "))
		code, again, errOut := runCLI(append(words, "-json")...)
		if code != exitOK {
			t.Fatalf("footnote command %q: exit %d: %s", line, code, errOut)
		}
		if again != string(b) {
			t.Errorf("footnote command %q gives a different summary", line)
		}
	}
}
