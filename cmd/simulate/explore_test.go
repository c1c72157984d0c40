package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/explore"
)

func TestExploreExitCodes(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{[]string{"-explore", "-scenario", "ackloss", "-set", "records=2", "-max-faults", "1"}, 0, "with ≤ 1 fault: INV-DUP, INV-LOSS, INV-ORDER", ""},
		{[]string{"-explore", "-scenario", "ackloss", "-idempotence=false", "-set", "records=2", "-max-faults", "1"}, 1, "shortest counterexample: INV-", ""},
		{[]string{"-explore", "-scenario", "ackloss", "-set", "records=2", "-max-faults", "2", "-explore-budget", "3"}, 3, "incomplete (the budget ran out): 3 of at least", ""},
		{[]string{"-explore", "-scenario", "ackloss", "-max-faults", "99"}, 2, "", "simulate: -max-faults 99 is not allowed (allowed: 0..8)"},
		{[]string{"-explore", "-scenario", "ackloss", "-set", "records=3", "-max-faults", "2", "-explore-memory", "64KiB"}, 3, "incomplete (memory bound reached: 64 KiB, -explore-memory): ", ""},
		{[]string{"-explore", "-scenario", "ackloss", "-explore-memory", "2G"}, 2, "", "simulate: -explore-memory \"2G\" is not allowed (allowed: a size such as 512MiB, 2GiB or 4GB;"},
		{[]string{"-scenario", "ackloss", "-seed", "1", "-explore-memory", "1GiB"}, 2, "", "simulate: -explore-memory is only allowed with -explore"},
		{[]string{"-explore", "-scenario", "ackloss", "-explore-menu", "wide"}, 2, "", "simulate: -explore-menu \"wide\" is not allowed (allowed: basic, full)"},
		{[]string{"-scenario", "ackloss", "-seed", "1", "-explore-menu", "full"}, 2, "", "simulate: -explore-menu is only allowed with -explore"},
		{[]string{"-explore", "-scenario", "ackloss", "-set", "records=2", "-max-faults", "1", "-explore-menu", "full"}, 0, "menu: full: drop, delay, crash (", ""},
		{[]string{"-scenario", "ackloss", "-seed", "1", "-max-faults", "2"}, 2, "", "simulate: -max-faults is only allowed with -explore"},
		{[]string{"-explore", "-scenario", "ackloss", "-explore-branch", "yes"}, 2, "", "simulate: -explore-branch \"yes\" is not allowed (allowed: off, on)"},
		{[]string{"-scenario", "ackloss", "-seed", "1", "-explore-branch", "on"}, 2, "", "simulate: -explore-branch is only allowed with -explore"},
		{[]string{"-explore", "-scenario", "ackloss", "-idempotence=false", "-set", "records=2", "-max-faults", "2", "-explore-branch", "on"}, 1, "saved (one at a time per worker) of at most", "branched "},
		{[]string{"-explore", "-scenario", "ackloss", "-runs", "5"}, 2, "", "simulate: -runs is not allowed with -explore"},
		{[]string{"-explore", "-scenario", "ackloss", "-set", "fault.count=2"}, 2, "", "fault.count is not allowed"},
		{[]string{"-explore", "-scenario", "ackloss", "-shard", "2/2"}, 2, "", "simulate: -shard \"2/2\" is not allowed"},
		{[]string{"-explore", "-scenario", "ackloss", "-set", "net.disconnect_notice=0.5"}, 2, "", "net.disconnect_notice=0.5 is random"},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%v: exit %d (want %d)\nstdout: %s\nstderr: %s", c.args, code, c.code, out, errOut)
		}
	}
	// Without -out nothing is written: the plans are printed.
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("-explore without -out wrote %d files into the current directory (%s ...)", len(ents), ents[0].Name())
	}
}

// TestExploreOutReproduce: -out holds summary.json, report.md, the plan
// and the diagram; the reproduce command replays the counterexample with
// the trace hash the explorer recorded.
func TestExploreOutReproduce(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI("-explore", "-scenario", "ackloss", "-idempotence=false", "-set", "records=2", "-max-faults", "1", "-out", dir, "-parallel", "2")
	if code != 1 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, explore.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := explore.ParseResult(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "violated" || len(r.Counterexamples) == 0 || !strings.Contains(r.Statement, "violated") {
		t.Fatalf("summary: %s", b)
	}
	// Wall-clock times are in timing.json, not in summary.json.
	if tb, err := os.ReadFile(filepath.Join(dir, explore.TimingFile)); err != nil || !strings.Contains(string(tb), `"fractions"`) || strings.Contains(string(b), "fractions") {
		t.Errorf("timing.json: %v\n%s", err, tb)
	}
	md, err := os.ReadFile(filepath.Join(dir, explore.ReportFile))
	if err != nil || !strings.Contains(string(md), r.Statement) || !strings.Contains(string(md), "```mermaid") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	for _, ce := range r.Counterexamples {
		for _, f := range []string{ce.File, ce.Diagram} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Error(err)
			}
		}
		cmd, ok := strings.CutPrefix(ce.Reproduce, "go run ./cmd/simulate ")
		if !ok {
			t.Fatalf("reproduce: %s", ce.Reproduce)
		}
		code, out, _ := runCLI(strings.Fields(cmd)...)
		if code != 1 || !strings.Contains(out, "trace-hash "+ce.TraceHash) || !strings.Contains(out, ce.Invariant) {
			t.Errorf("%s: exit %d, want trace-hash %s:\n%s", ce.Reproduce, code, ce.TraceHash, out)
		}
	}
}

// TestExploreMergeCLI: two shards merged give the unsharded verdict and
// counterexample, and without pruning its schedule count.
func TestExploreMergeCLI(t *testing.T) {
	base := t.TempDir()
	args := []string{"-explore", "-scenario", "ackloss", "-idempotence=false", "-set", "records=2", "-max-faults", "2", "-explore-prune=false", "-json"}
	one := filepath.Join(base, "one")
	code, oneJSON, errOut := runCLI(append(args, "-out", one)...)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var dirs []string
	for _, sh := range []string{"0/2", "1/2"} {
		d := filepath.Join(base, "shard-"+sh[:1])
		if code, _, errOut := runCLI(append(args, "-shard", sh, "-out", d)...); code != 1 && code != 0 {
			t.Fatalf("shard %s: exit %d %s", sh, code, errOut)
		}
		dirs = append(dirs, d)
	}
	merged := filepath.Join(base, "merged")
	code, mergedJSON, errOut := runCLI(append([]string{"merge", "-json", "-out", merged}, dirs...)...)
	if code != 1 {
		t.Fatalf("merge: exit %d %s", code, errOut)
	}
	a, err := explore.ParseResult([]byte(oneJSON))
	if err != nil {
		t.Fatal(err)
	}
	m, err := explore.ParseResult([]byte(mergedJSON))
	if err != nil {
		t.Fatal(err)
	}
	if a.Schedules != m.Schedules || a.Verdict != m.Verdict || a.Counterexamples[0].Plan != m.Counterexamples[0].Plan {
		t.Errorf("merged %d schedules %s\n%s\none process %d %s\n%s", m.Schedules, m.Verdict, m.Counterexamples[0].Plan, a.Schedules, a.Verdict, a.Counterexamples[0].Plan)
	}
	if _, err := os.Stat(filepath.Join(merged, m.Counterexamples[0].File)); err != nil {
		t.Error(err)
	}
	if code, _, errOut := runCLI("merge", "-out", filepath.Join(base, "bad"), dirs[0]); code != 2 || !strings.Contains(errOut, "missing") {
		t.Errorf("merge of one shard of two: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(base, "bad")); !os.IsNotExist(err) {
		t.Errorf("a refused merge left its output directory behind: %v", err)
	}
	if code, _, errOut := runCLI(append([]string{"merge", "-out", dirs[0]}, dirs...)...); code != 2 || !strings.Contains(errOut, "-out") {
		t.Errorf("merge into one of its inputs: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(append(args, "-out", one)...); code != 2 || !strings.Contains(errOut, "-force") {
		t.Errorf("explore -out into a full directory without -force: exit %d %s", code, errOut)
	}
	if code, _, errOut := runCLI(append(args, "-force", "-out", one)...); code != 1 {
		t.Errorf("explore -out -force: exit %d %s", code, errOut)
	}
}

// TestExploreInterrupted: Ctrl-C prints the partial result; without a
// counterexample the exit status is 3.
func TestExploreInterrupted(t *testing.T) {
	old := interruptContext
	defer func() { interruptContext = old }()
	interruptContext = func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
	t.Chdir(t.TempDir())
	code, out, _ := runCLI("-explore", "-scenario", "ackloss", "-set", "records=2", "-max-faults", "2")
	if code != exitIncomplete || !strings.Contains(out, "incomplete (interrupted)") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestExploreReduceCLI: -explore-reduce (on by default) skips the faults
// on a repeated message number in datagram mode and says so; =false
// runs them and records reduce_off; both find the same counterexamples.
func TestExploreReduceCLI(t *testing.T) {
	args := []string{"-explore", "-scenario", "reorder", "-set", "records=3", "-set", "net.mode=datagram", "-max-faults", "2", "-all", "-json"}
	var rs [2]*explore.Result
	for i, extra := range [][]string{nil, {"-explore-reduce=false"}} {
		code, out, errOut := runCLI(append(slices.Clone(args), extra...)...)
		if code != 1 {
			t.Fatalf("%v: exit %d %s", extra, code, errOut)
		}
		r, err := explore.ParseResult([]byte(out))
		if err != nil {
			t.Fatal(err)
		}
		rs[i] = r
	}
	on, off := rs[0], rs[1]
	if on.Skipped == 0 || on.ReduceOff || !strings.Contains(on.Statement, " skipped as repeated message numbers") {
		t.Errorf("reduced: %d skipped, reduce_off %v: %s", on.Skipped, on.ReduceOff, on.Statement)
	}
	if off.Skipped != 0 || !off.ReduceOff || off.Schedules != on.Schedules+on.Skipped {
		t.Errorf("unreduced: %d schedules, %d skipped, reduce_off %v; reduced %d + %d", off.Schedules, off.Skipped, off.ReduceOff, on.Schedules, on.Skipped)
	}
	if len(on.Counterexamples) != len(off.Counterexamples) || on.Counterexamples[0].Plan != off.Counterexamples[0].Plan {
		t.Errorf("counterexamples differ:\n%+v\n%+v", on.Counterexamples, off.Counterexamples)
	}
	if code, _, errOut := runCLI("-scenario", "reorder", "-explore-reduce=false"); code != 2 || !strings.Contains(errOut, "explore-reduce") {
		t.Errorf("-explore-reduce without -explore: exit %d %s", code, errOut)
	}
}
