package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/explore"
)

// planRefusal runs ackloss seed 1 with plan as p.txt in the current
// directory and returns the exit status, stdout and stderr.
func planRefusal(t *testing.T, plan string, sets ...string) (int, string, string) {
	t.Helper()
	if err := os.WriteFile("p.txt", []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-seed", "1", "-scenario", "ackloss"}
	for _, s := range sets {
		args = append(args, "-set", s)
	}
	return runCLI(append(args, "-plan-file", "p.txt")...)
}

// TestPlanFileCannotHappen: a plan whose lines could not happen as
// written is refused with one line naming the plan line and what is
// allowed, and exit 2. Before, "3s crash b1 / 2s restart b1" ran (exit 0,
// the restart a silent no-op) and "1000000h pause p1 1s" ran into
// LIVE-PROD at the time limit.
func TestPlanFileCannotHappen(t *testing.T) {
	t.Chdir(t.TempDir())
	const limit = "the run's time limit 5m4s (allowed: up to 5m4s: the last send 2s plus delivery.timeout.ms 2m0s, then delivery.timeout.ms 2m0s, two request.timeout.ms 1s and 1m0s to converge)"
	cases := []struct {
		plan string
		sets []string
		want string
	}{
		// Time order.
		{"3s crash b1\n2s restart b1\n", nil, "line 2: time 2s is earlier than line 1's 3s (allowed: lines in time order, each at or after the one before)"},
		// Restarts of running processes, pauses and crashes of crashed ones.
		{"format 1\n2s restart b1\n", nil, "line 2: restart b1: b1 is running at 2s, never crashed (allowed: a restart of a process that an earlier line crashed and no line has restarted since)"},
		{"1s crash b1\n2s restart b1\n# again\n3s restart b1\n", nil, "line 4: restart b1: b1 is running at 3s, restarted on line 2 (allowed: a restart of a process that an earlier line crashed and no line has restarted since)"},
		{"1s crash p1\n2s pause p1 1s\n", nil, "line 2: pause p1: p1 is crashed at 2s, since line 1 (allowed: a pause of a running process; restart p1 first)"},
		{"1s crash b1\n2s crash b1\n", nil, "line 2: crash b1: b1 is crashed at 2s, since line 1 (allowed: a crash of a running process; restart b1 first)"},
		// Heals of what is not cut.
		{"2s partition p1 | b1\n3s heal p1 | c1\n", nil, "line 2: heal p1 | c1: no partition p1 | c1 is in force at 3s (allowed: a heal of an earlier partition of the same sides that no heal has ended yet; in force: partition p1 | b1 (line 1))"},
		{"2s heal-oneway p1 > b1\n", nil, "line 1: heal-oneway p1 > b1: no partition-oneway p1 > b1 is in force at 2s (allowed: a heal-oneway of an earlier partition-oneway of the same sides that no heal-oneway has ended yet; in force: none)"},
		// Past the run's time limit.
		{"1000000h pause p1 1s\n", nil, "line 1: time 1000000h0m0s is after " + limit},
		{"1s pause p1 1s\n5m5s drift p1 +10ppm\n", nil, "line 2: time 5m5s is after " + limit},
		{"1s pause p1 1s\nend 1000000h\n", nil, "line 2: end 1000000h0m0s is after " + limit},
		{"1s pause p1 1s\nend 20m\n", []string{"fault.end=10m"}, "line 2: end 20m0s is after the run's time limit 13m2s (allowed: up to 13m2s: fault.end 10m0s, then delivery.timeout.ms 2m0s, two request.timeout.ms 1s and 1m0s to converge)"},
	}
	for _, c := range cases {
		code, out, errOut := planRefusal(t, c.plan, c.sets...)
		if want := "simulate: -plan-file p.txt: " + c.want + "\n"; code != 2 || out != "" || errOut != want {
			t.Errorf("%q: exit %d, stdout %q\nstderr %q\nwant   %q", c.plan, code, out, errOut, want)
		}
	}
	// What the checks allow runs: the limit itself, a restart after its
	// crash, heals with the sides in another order.
	for _, plan := range []string{
		"1s crash b1\n1s restart b1\n2s partition p1 | b1 c1\n3s heal c1 b1 | p1\n5m4s drift p1 +10ppm\nend 5m4s\n",
		"1s pause p1 5s\n2s crash p1\n3s restart p1\n",
	} {
		if code, _, errOut := planRefusal(t, plan); code != 0 && code != 1 {
			t.Errorf("%q: exit %d: %s", plan, code, errOut)
		}
	}
}

// TestPlansDocRefusals: docs/plans.md's example refusals are what the
// simulator prints.
func TestPlansDocRefusals(t *testing.T) {
	doc, err := os.ReadFile("../../docs/plans.md")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, plan := range []string{"3s crash b1\n2s restart b1\n", "1000000h pause p1 1s\n"} {
		code, _, errOut := planRefusal(t, plan)
		if line := strings.TrimSuffix(errOut, "\n"); code != 2 || !strings.Contains(string(doc), "\n    "+line+"\n") {
			t.Errorf("%q: exit %d; docs/plans.md lacks the line\n%s", plan, code, errOut)
		}
	}
}

// TestWrittenPlansReplay: the plans the simulator writes replay as plan
// files: -plan-out of generated plans with many faults (scenario faults
// and noise among them), the plan -shrink saves from a run with crashes
// and partitions, and the counterexample -explore saves.
func TestWrittenPlansReplay(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	replay := func(what string, args []string, file string) {
		t.Helper()
		code, _, errOut := runCLI(append(args, "-plan-file", file)...)
		if code != 0 && code != 1 {
			text, _ := os.ReadFile(file)
			t.Errorf("%s: replay exit %d: %s\n%s", what, code, errOut, text)
		}
	}
	for _, sc := range []string{"ackloss", "zombie", "restart", "failover", "txntimeout"} {
		for _, seed := range []string{"0", "3"} {
			args := []string{"-seed", seed, "-scenario", sc, "-set", "fault.count=10", "-set", "fault.kinds=all,stall"}
			file := filepath.Join(dir, sc+seed+".plan")
			if code, _, errOut := runCLI(append(args, "-plan-out", file)...); code != 0 && code != 1 {
				t.Fatalf("%v -plan-out: exit %d: %s", args, code, errOut)
			}
			replay(sc+" -plan-out", args, file)
		}
	}
	args := []string{"-seed", "4", "-scenario", "ackloss", "-idempotence=false", "-set", "fault.count=10", "-set", "fault.kinds=crash,partition,pause,oneway,stall", "-set", "net.response_loss=0"}
	if code, out, errOut := runCLI(append(args, "-shrink", "-plan-out", "min.plan")...); code != 1 {
		t.Fatalf("-shrink: exit %d: %s\n%s", code, errOut, out)
	}
	replay("-shrink", args, "min.plan")
	args = []string{"-scenario", "ackloss", "-idempotence=false", "-set", "records=2"}
	out := filepath.Join(dir, "explored")
	if code, _, errOut := runCLI(append(args, "-explore", "-max-faults", "1", "-out", out)...); code != 1 {
		t.Fatalf("-explore: exit %d: %s", code, errOut)
	}
	replay("-explore", append(args, "-seed", "1"), filepath.Join(out, explore.PlanFile("ackloss", "INV-DUP")))
}

// TestScenarioFilePlanCannotHappen: in a scenario file's plan every line
// the refusal names is the file's line, the one it refers to included.
func TestScenarioFilePlanCannotHappen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	for _, c := range []struct{ plan, want string }{
		{"  1s pause p1 2s\n  0.5s crash b1\n", "s.yaml:7: plan: time 500ms is earlier than line 6's 1s (allowed: lines in time order, each at or after the one before)"},
		{"  1s crash b1\n  2s restart b1\n  3s restart b1\n", "s.yaml:8: plan: restart b1: b1 is running at 3s, restarted on line 7 (allowed: a restart of a process that an earlier line crashed and no line has restarted since)"},
	} {
		src := "name: study\nbase: ackloss\nparams:\n  records: 7\nplan: |\n" + c.plan
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI("-scenario-file", path, "-seed", "1")
		if want := "simulate: " + filepath.Dir(path) + "/" + c.want + "\n"; code != 2 || errOut != want {
			t.Errorf("exit %d, stderr %q\nwant %q", code, errOut, want)
		}
	}
}
