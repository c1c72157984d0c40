package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/historycheck"
)

// TestHistoryDuplicateVisible: for every ackloss seed (of the first 40)
// whose run violates INV-DUP with idempotence off, -history h.jsonl writes
// a history in which a duplicated record is the same value at two (or
// more) offsets of the final read.
func TestHistoryDuplicateVisible(t *testing.T) {
	dir := t.TempDir()
	dups := 0
	for seed := 1; seed <= 40; seed++ {
		path := filepath.Join(dir, "h"+strconv.Itoa(seed)+".jsonl")
		code, out, errOut := runCLI("-seed", strconv.Itoa(seed), "-scenario", "ackloss", "-idempotence=false", "-history", path, "-json")
		if code == exitUsage {
			t.Fatalf("seed %d: exit 2: %s", seed, errOut)
		}
		var r struct {
			Violations []struct{ Invariant string } `json:"violations"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(r.Violations, func(v struct{ Invariant string }) bool { return v.Invariant == "INV-DUP" }) {
			continue
		}
		dups++
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ops, err := historycheck.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var offsets map[int64][]int64
		for _, op := range ops {
			if op.Final == "read_committed" && op.Type == "ok" {
				offsets = map[int64][]int64{}
				for _, recs := range op.Polls[0] {
					for _, r := range recs {
						offsets[r.Value] = append(offsets[r.Value], r.Offset)
					}
				}
			}
		}
		twice := false
		for _, offs := range offsets {
			slices.Sort(offs)
			twice = twice || len(slices.Compact(offs)) >= 2
		}
		if !twice {
			t.Errorf("seed %d violates INV-DUP, but no value is at two offsets of the final read in %s", seed, path)
		}
	}
	if dups == 0 {
		t.Fatal("no ackloss seed violated INV-DUP")
	}
}

// TestHistoryZombieWrites: in zombie seed 1 the zombie's fenced
// transaction and its replacement's committed one both write record 30.
// -history gives each write a value of its own (Jepsen's checker would
// otherwise read the committed copy as an aborted read), both name record
// 30 in "records", and the history checker accepts the history and finds
// nothing.
func TestHistoryZombieWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if code, _, errOut := runCLI("-seed", "1", "-scenario", "zombie", "-history", path); code == exitUsage {
		t.Fatalf("exit 2: %s", errOut)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ops, err := historycheck.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := historycheck.Check(ops)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Clean() {
		t.Errorf("zombie seed 1: %+v", *rep)
	}
	values := map[int64]string{}
	for _, op := range ops {
		if op.Type == "invoke" {
			continue
		}
		for _, s := range op.Sends {
			if s.Record == 30 {
				values[s.Value] = op.Type
			}
		}
	}
	if len(values) != 2 || values[30] != "fail" || values[1_000_000_030] != "ok" {
		t.Errorf("record 30's writes end %v, want value 30 fail and 1000000030 ok", values)
	}
}

func TestHistoryUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"-seed", "4", "-scenario", "ackloss", "-history", "h.json"}, `simulate: -history h.json: extension ".json" is not allowed (allowed: .jsonl, .edn)`},
		{[]string{"-seed", "4", "-scenario", "ackloss", "-history", "/nonexistent/dir/h.edn"}, "simulate: -history: cannot write /nonexistent/dir/h.edn: directory /nonexistent/dir does not exist"},
		{[]string{"-seed", "4", "-scenario", "ackloss", "-shrink", "-history", "h.edn"}, "simulate: -history is not allowed with -shrink"},
		{[]string{"-scenario", "ackloss", "-runs", "3", "-history", file}, "in a sweep -history names a directory, and this is a file"},
		{[]string{"-scenario", "ackloss", "-runs", "3", "-history", filepath.Join(dir, "h.jsonl")}, "in a sweep -history names a directory (one .jsonl file per kept failing seed), not a file"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.err) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("simulate %v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, errOut, c.err)
		}
	}
}

// TestSweepHistories: a sweep with -history DIR writes one history per
// failing seed the summary lists, named by point, mode and seed.
func TestSweepHistories(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hist")
	code, out, errOut := runCLI("-scenario", "ackloss", "-runs", "12", "-idempotence=false", "-failing", "2",
		"-vary", "net.response_loss=0.05,0.2", "-history", dir, "-json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sum struct {
		Points []struct {
			Modes map[string]struct {
				Failing []struct{ Seed uint64 } `json:"failing"`
			} `json:"modes"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	var want []string
	for p, pt := range sum.Points {
		var seeds []uint64
		for _, f := range pt.Modes["off"].Failing {
			seeds = append(seeds, f.Seed)
		}
		slices.Sort(seeds)
		for _, s := range slices.Compact(seeds) {
			want = append(want, "point"+strconv.Itoa(p)+"-off-seed"+strconv.FormatUint(s, 10)+".jsonl")
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		ops, err := historycheck.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		if _, err := historycheck.Check(ops); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
	}
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("histories %v, want %v", got, want)
	}
	if !strings.Contains(errOut, "histories of failing seeds in "+dir) {
		t.Errorf("stderr does not say where the histories are: %s", errOut)
	}
}
