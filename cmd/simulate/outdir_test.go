package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/sweep"
)

// TestOutDirSafe: -out refuses a non-empty directory unless -force, which
// replaces it whole (no stale charts beside the new summary); a failed
// sweep leaves no directory at all. (On main -out wrote into whatever was
// there, and a failed run left a partial directory.)
func TestOutDirSafe(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	os.MkdirAll(out, 0o755)
	stale := filepath.Join(out, "fencing_rate.png")
	os.WriteFile(stale, []byte("old"), 0o644)
	args := []string{"-scenario", "ackloss", "-runs", "3", "-out", out}
	code, _, errOut := runCLI(args...)
	if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "is not empty") {
		t.Fatalf("non-empty -out: exit %d, %q", code, errOut)
	}
	// -force replaces only what looks like an earlier output: a summary
	// and files of the kinds the simulator writes.
	if code, _, errOut = runCLI(append(args, "-force")...); code != exitUsage || !strings.Contains(errOut, "it has no summary.json") {
		t.Fatalf("-force on a directory without summary.json: exit %d, %q", code, errOut)
	}
	os.WriteFile(filepath.Join(out, "summary.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	if code, _, errOut = runCLI(append(args, "-force")...); code != exitUsage || !strings.Contains(errOut, "it holds notes.txt, which no simulate output has") {
		t.Fatalf("-force on a directory with a file of the user's: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "notes.txt")); err != nil {
		t.Fatalf("a refused -force removed the user's file: %v", err)
	}
	os.Remove(filepath.Join(out, "notes.txt"))
	if code, _, errOut = runCLI(append(args, "-force")...); code != exitOK || !strings.Contains(errOut, "its 2 files (fencing_rate.png, summary.json) are replaced") {
		t.Fatalf("-force: exit %d, %q; want it to say what it replaces", code, errOut)
	}
	// Readable by teammates: 0755 and 0644 (less a umask that takes
	// nothing from group and others' read bits).
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm()&0o055 != 0o055 {
		t.Errorf("-out directory mode %v: want group and others to read and enter it", fi.Mode().Perm())
	}
	if fi, err := os.Stat(filepath.Join(out, "summary.json")); err != nil || fi.Mode().Perm()&0o044 != 0o044 {
		t.Errorf("summary.json mode %v: want it readable by group and others", fi.Mode().Perm())
	}
	// Only the last element is made: a missing parent is refused.
	missing := filepath.Join(tmp, "nonexistent", "dir", "x")
	code, _, errOut = runCLI("-scenario", "ackloss", "-runs", "3", "-out", missing)
	if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "its parent directory "+filepath.Dir(missing)+" does not exist") {
		t.Errorf("-out with a missing parent: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(tmp, "nonexistent")); !os.IsNotExist(err) {
		t.Errorf("-out with a missing parent made %s", filepath.Join(tmp, "nonexistent"))
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("-force kept the old %s", stale)
	}
	for _, f := range []string{"summary.json", "runs.csv", "failing.tsv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// A plan that does not apply at every point (b2, with brokers=1) is
	// refused before anything runs.
	plan := filepath.Join(tmp, "p.plan")
	os.WriteFile(plan, []byte("1s crash b2\n"), 0o644)
	failed := filepath.Join(tmp, "failed")
	code, _, errOut = runCLI("-scenario", "ackloss", "-runs", "3", "-set", "brokers=2", "-vary", "brokers=2,1", "-plan-file", plan, "-out", failed)
	if code != exitUsage || !strings.Contains(errOut, "simulate: brokers=1 idempotence=off: -plan-file") {
		t.Fatalf("plan not applying at a point: exit %d, %q", code, errOut)
	}
	// A sweep that fails part way, after writing rows, leaves neither DIR
	// nor its temporary directory.
	defer func(f func(context.Context, sweep.Config) (*sweep.State, error)) { sweepRun = f }(sweepRun)
	sweepRun = func(ctx context.Context, c sweep.Config) (*sweep.State, error) {
		c.CSV.Write([]byte("point,seed\n0,1\n"))
		return nil, errors.New("run panicked: boom")
	}
	code, _, errOut = runCLI("-scenario", "ackloss", "-runs", "3", "-out", failed)
	if code != exitUsage || !strings.Contains(errOut, "boom") {
		t.Fatalf("failing sweep: exit %d, %q", code, errOut)
	}
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "failed") || strings.HasPrefix(e.Name(), ".failed") {
			t.Errorf("a failed sweep left %s", e.Name())
		}
	}
	t.Chdir(out) // an earlier output, so only being the current directory stops -force
	if code, _, errOut := runCLI("-scenario", "ackloss", "-runs", "2", "-out", ".", "-force"); code != exitUsage || !strings.Contains(errOut, "holds the current directory") {
		t.Errorf("-out . -force: exit %d, %q", code, errOut)
	}
}

// TestMergeRefusesDamage: merge refuses, in one line each, a shard
// without runs.csv, a truncated runs.csv and an output directory that is
// also an input (which it leaves untouched); the shards' failing lists
// are merged into the unsharded sweep's failing.tsv. (On main the first
// two merged with exit 0, the third truncated the input.)
func TestMergeRefusesDamage(t *testing.T) {
	tmp := t.TempDir()
	base := []string{"-scenario", "ackloss", "-runs", "12", "-set", "net.response_loss=0.2"}
	whole := filepath.Join(tmp, "whole")
	if code, _, e := runCLI(append(base, "-out", whole)...); code != exitOK {
		t.Fatal(e)
	}
	var dirs []string
	for _, sh := range []string{"0/3", "1/3", "2/3"} {
		d := filepath.Join(tmp, "shard"+sh[:1])
		if code, _, e := runCLI(append(base, "-shard", sh, "-out", d)...); code != exitOK {
			t.Fatal(e)
		}
		dirs = append(dirs, d)
	}
	merged := filepath.Join(tmp, "merged")
	if code, _, e := runCLI(append([]string{"merge", "-out", merged}, dirs...)...); code != exitOK {
		t.Fatal(e)
	}
	for _, f := range []string{"summary.json", "runs.csv", "failing.tsv"} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the unsharded one", f)
		}
	}
	merge := func(dirs ...string) (int, string) {
		code, _, e := runCLI(append([]string{"merge", "-out", filepath.Join(tmp, "m")}, dirs...)...)
		return code, e
	}
	// The output directory is an input: refused, the input untouched.
	before, _ := os.ReadFile(filepath.Join(dirs[0], "runs.csv"))
	code, _, e := runCLI(append([]string{"merge", "-force", "-out", dirs[0]}, dirs...)...)
	after, _ := os.ReadFile(filepath.Join(dirs[0], "runs.csv"))
	if code != exitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "is also an input") || !bytes.Equal(before, after) {
		t.Errorf("-out an input: exit %d, %q, input changed %v", code, e, !bytes.Equal(before, after))
	}
	// A truncated runs.csv: cut at a row boundary, and inside a row.
	csv1 := filepath.Join(dirs[1], "runs.csv")
	full, _ := os.ReadFile(csv1)
	cut := bytes.LastIndexByte(full[:len(full)-1], '\n') + 1
	for _, n := range []int{cut, cut + 5} {
		os.WriteFile(csv1, full[:n], 0o644)
		if code, e := merge(dirs...); code != exitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "truncated") {
			t.Errorf("runs.csv cut at %d of %d: exit %d, %q", n, len(full), code, e)
		}
	}
	// A shard without runs.csv.
	os.Remove(csv1)
	if code, e := merge(dirs...); code != exitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "has no runs.csv") {
		t.Errorf("shard without runs.csv: exit %d, %q", code, e)
	}
	if _, err := os.Stat(filepath.Join(tmp, "m")); !os.IsNotExist(err) {
		t.Errorf("a refused merge left its output directory")
	}
}
