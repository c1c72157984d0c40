package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShrinkFlags: -shrink prints the minimal plan, the runs, the
// invariant, where it saved the plan and a reproduce command that, run,
// breaks the same invariant; -diagram and -timeline draw the shrunk run.
func TestShrinkFlags(t *testing.T) {
	dir := t.TempDir()
	plan, mmd, svg := filepath.Join(dir, "min.plan"), filepath.Join(dir, "z.mmd"), filepath.Join(dir, "z.svg")
	code, out, errOut := runCLI("-seed", "539", "-scenario", "zombie", "-set", "app.mode=at-least-once", "-set", "fault.count=2",
		"-shrink", "-plan-out", plan, "-diagram", mmd, "-timeline", svg)
	if code != 1 || errOut != "" {
		t.Fatalf("exit %d, err %q\n%s", code, errOut, out)
	}
	for _, want := range []string{"breaks INV-DUP", "minimal plan (1 of 4 actions):\n  3.325s pause p1 1s\n", "runs: 28 of at most 500",
		"saved: " + plan, "reproduce: go run ./cmd/simulate -seed 539 -scenario zombie -set app.mode=at-least-once -set fault.count=2 -plan-file " + plan} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	d, err := os.ReadFile(mmd)
	if err != nil || !strings.HasPrefix(string(d), "sequenceDiagram\n") || !strings.Contains(string(d), "FAULT pause p1 1s") {
		t.Errorf("diagram: %v\n%s", err, d)
	}
	if fi, err := os.Stat(svg); err != nil || fi.Size() == 0 {
		t.Errorf("timeline: %v", err)
	}
	code, out, _ = runCLI("-seed", "539", "-scenario", "zombie", "-set", "app.mode=at-least-once", "-set", "fault.count=2", "-plan-file", plan)
	if code != 1 || !strings.Contains(out, "INV-DUP     VIOLATED") {
		t.Errorf("reproduce: exit %d\n%s", code, out)
	}
	// Without -plan-out nothing is written, in the current directory or
	// elsewhere: the plan is printed, and the output says how to save it.
	t.Chdir(t.TempDir())
	code, out, _ = runCLI("-seed", "539", "-scenario", "zombie", "-set", "app.mode=at-least-once", "-set", "fault.count=2", "-shrink")
	if code != 1 || !strings.Contains(out, "  3.325s pause p1 1s\n") || !strings.Contains(out, "not saved: add -plan-out FILE") || strings.Contains(out, "saved: ") && !strings.Contains(out, "not saved: ") {
		t.Errorf("-shrink without -plan-out: exit %d\n%s", code, out)
	}
	if ents, _ := os.ReadDir("."); len(ents) != 0 {
		t.Errorf("-shrink without -plan-out wrote %s into the current directory", ents[0].Name())
	}
	// Nothing to shrink: exit 0.
	code, out, _ = runCLI("-seed", "1", "-scenario", "zombie", "-shrink", "-plan-out", filepath.Join(dir, "none.plan"))
	if code != 0 || !strings.Contains(out, "nothing to shrink") {
		t.Errorf("passing run: exit %d\n%s", code, out)
	}
}

func TestExplainFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-timeline", "x.pdf"}, `simulate: -timeline x.pdf: extension ".pdf" is not allowed (allowed: .svg, .png)`},
		{[]string{"-shrink", "-shrink-budget", "0"}, `simulate: -shrink-budget 0 is not allowed (allowed: an integer >= 1)`},
	}
	for _, c := range cases {
		code, _, errOut := runCLI(append([]string{"-seed", "1", "-scenario", "zombie"}, c.args...)...)
		if code != 2 || strings.TrimSpace(errOut) != c.want {
			t.Errorf("%v: exit %d, %q, want %q", c.args, code, errOut, c.want)
		}
	}
}
