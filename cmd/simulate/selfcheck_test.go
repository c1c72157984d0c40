package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// childEnv makes the test binary act as simulate: the child process of
// selfcheck -subprocess ("1"), or a simulate whose run panics ("panic").
const childEnv = "IDEMSIM_TEST_SIMULATE_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "1":
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	case "panic":
		panic("injected in the child")
	}
	os.Exit(m.Run())
}

// useTestBinaryAsChild makes -subprocess run this test binary as simulate.
func useTestBinaryAsChild(t *testing.T) {
	t.Helper()
	useTestBinaryAs(t, "1")
}

// useTestBinaryAs makes -subprocess run this test binary with childEnv
// set to mode.
func useTestBinaryAs(t *testing.T, mode string) {
	t.Helper()
	old := selfCommand
	t.Cleanup(func() { selfCommand = old })
	selfCommand = func(args ...string) (*exec.Cmd, error) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), childEnv+"="+mode)
		return cmd, nil
	}
}

// injectRun makes the check's in-process runs go through fake.
func injectRun(t *testing.T, fake runFunc) {
	t.Helper()
	old, oldReuse := selfcheckRun, selfcheckReuse
	t.Cleanup(func() { selfcheckRun, selfcheckReuse = old, oldReuse })
	selfcheckRun = fake
	selfcheckReuse = func() runFunc { return fake }
}

var problemLine = regexp.MustCompile(`^triple \d+: (panic|error|nondeterministic|identity|stop|draw|refusal): .+; reproduce: go run \./cmd/simulate -seed \d+ -scenario(-file)? \S+.* -max-events \d+$`)

// checkOutput checks selfcheck's output shape: a summary line, then one
// line per problem with its reproduce command. It returns the problem
// lines.
func checkOutput(t *testing.T, out string) (summary string, problems []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "selfcheck: ") {
		t.Fatalf("first line is not the summary:\n%s", out)
	}
	for _, l := range lines[1:] {
		if !problemLine.MatchString(l) {
			t.Errorf("not a problem line with its reproduce command: %q", l)
		}
	}
	return lines[0], lines[1:]
}

// TestSelfcheckPasses runs a small check of the real simulator: no
// problem, and the same output for any -parallel.
func TestSelfcheckPasses(t *testing.T) {
	code, out, errOut := runCLI("selfcheck", "-runs", "30", "-parallel", "1")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	sum, probs := checkOutput(t, out)
	want := fmt.Sprintf("selfcheck: 30 triples from seed 1 (%d scenarios, 0 scenario files), each run twice, the second in a reused World: 0 problems;", len(scenarios.All()))
	if !strings.HasPrefix(sum, want) || len(probs) > 0 {
		t.Errorf("got\n%s\nwant a summary starting %q and no problem", out, want)
	}
	if _, out4, _ := runCLI("selfcheck", "-runs", "30", "-parallel", "4"); out4 != out {
		t.Errorf("-parallel 4 prints\n%s\n-parallel 1 prints\n%s", out4, out)
	}
	if _, other, _ := runCLI("selfcheck", "-runs", "30", "-seed", "2"); other == out {
		t.Error("-seed 2 draws what -seed 1 draws")
	}
}

// TestSelfcheckSubprocess runs each second run in a child process.
func TestSelfcheckSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	useTestBinaryAsChild(t)
	code, out, errOut := runCLI("selfcheck", "-runs", "6", "-seed", "3", "-subprocess")
	if code != exitOK || !strings.Contains(out, "the second in a child process: 0 problems") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	// A first run that differs from the child's is reported.
	injectRun(t, func(spec scenarios.Spec) (*scenarios.Result, error) {
		res, err := scenarios.Run(spec)
		if err == nil {
			res.Events++
		}
		return res, err
	})
	code, out, _ = runCLI("selfcheck", "-runs", "3", "-seed", "3", "-subprocess")
	_, probs := checkOutput(t, out)
	if code != exitViolation || len(probs) != 3 || !strings.Contains(probs[0], `nondeterministic: same trace-hash, but -json line`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestSelfcheckChildPanic: a child process whose run panics (Go prints
// the stack trace and exits 2) is a problem found, with its reproduce
// command, and the check exits 1; the child's stack trace stays out of the
// check's output (the in-process panic is TestSelfcheckReportsInjectedProblems'
// "panic" case).
func TestSelfcheckChildPanic(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	useTestBinaryAs(t, "panic")
	code, out, errOut := runCLI("selfcheck", "-runs", "2", "-seed", "3", "-subprocess")
	_, probs := checkOutput(t, out)
	if code != exitViolation || len(probs) != 2 {
		t.Fatalf("exit %d, want 1 and 2 problems:\n%s%s", code, out, errOut)
	}
	for _, p := range probs {
		if !strings.Contains(p, ": panic: second run: in the child process: panic: injected in the child; reproduce: ") {
			t.Errorf("problem %q, want the child's panic", p)
		}
	}
	if strings.Contains(out+errOut, "goroutine ") {
		t.Errorf("the child's stack trace is printed:\n%s%s", out, errOut)
	}
}

// TestSelfcheckReportsInjectedProblems: a simulator that is not
// deterministic, breaks the outcome identity, stops for another reason,
// panics or fails is reported, one line per problem with its reproduce
// command, and the check exits 1.
func TestSelfcheckReportsInjectedProblems(t *testing.T) {
	for _, c := range []struct {
		name string
		// fault changes the n-th call's (1 or 2) result for spec; it may
		// panic or return an error.
		fault func(n int, spec scenarios.Spec, res *scenarios.Result) error
		want  string // in every problem line
	}{
		{"trace hash changes", func(n int, _ scenarios.Spec, res *scenarios.Result) error {
			if n == 2 {
				res.TraceHash = "0123456789abcdef"
			}
			return nil
		}, "nondeterministic: trace-hash "},
		{"a count changes", func(n int, _ scenarios.Spec, res *scenarios.Result) error {
			if n == 2 {
				res.Appended++
			}
			return nil
		}, `nondeterministic: same trace-hash, but -json line `},
		{"the fault plan changes", func(n int, _ scenarios.Spec, res *scenarios.Result) error {
			if n == 2 {
				res.Plan += "# x\n"
			}
			return nil
		}, "nondeterministic: the fault plans differ"},
		{"identity", func(_ int, _ scenarios.Spec, res *scenarios.Result) error {
			res.Pending++
			return nil
		}, "identity: sent "},
		{"stop reason", func(_ int, _ scenarios.Spec, res *scenarios.Result) error {
			res.Stop = "stopped"
			return nil
		}, `stop: the run stopped "stopped" (allowed: drained, time-limit, event-limit, state-limit)`},
		{"panic", func(n int, _ scenarios.Spec, _ *scenarios.Result) error {
			if n == 1 {
				panic("injected")
			}
			return nil
		}, "panic: first run: injected"},
		{"error", func(n int, _ scenarios.Spec, _ *scenarios.Result) error {
			if n == 2 {
				return fmt.Errorf("injected")
			}
			return nil
		}, "error: second run: injected (the configuration was accepted)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := map[string]int{}
			injectRun(t, func(spec scenarios.Spec) (*scenarios.Result, error) {
				mu.Lock()
				key := fmt.Sprint(spec.Scenario.Name, spec.Seed, spec.Bugs, spec.Sets)
				calls[key]++
				n := calls[key]
				mu.Unlock()
				res, err := scenarios.Run(spec)
				if err != nil {
					return nil, err
				}
				if err := c.fault(n, spec, res); err != nil {
					return nil, err
				}
				return res, nil
			})
			code, out, _ := runCLI("selfcheck", "-runs", "5", "-seed", "11")
			sum, probs := checkOutput(t, out)
			if code != exitViolation || len(probs) != 5 || !strings.Contains(sum, ": 5 problems;") {
				t.Fatalf("exit %d, want 1 and 5 problems:\n%s", code, out)
			}
			for i, p := range probs {
				if !strings.HasPrefix(p, fmt.Sprintf("triple %d: ", i)) || !strings.Contains(p, c.want) {
					t.Errorf("problem %d: %q, want %q", i, p, c.want)
				}
			}
		})
	}
}

// TestSelfcheckReproduce: the reproduce command of a problem is the run's
// own (Result.Reproduce) with -max-events, and the fallback for a run
// without a result (a panic) is the same command; the triple's command
// line (-subprocess) prints the in-process report, reproduce command
// included.
func TestSelfcheckReproduce(t *testing.T) {
	file := writeScenarioFile(t, t.TempDir(), "mine.yaml")
	pool, _, err := selfcheckPool(nil, []string{file})
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{seed: 5, maxEvents: 12345, pool: pool}
	seenFile := false
	for i := range 40 {
		tr, _, prob := c.draw(i)
		if prob != nil {
			t.Fatalf("triple %d: %+v", i, prob)
		}
		res, err := scenarios.Run(tr.spec(c.maxEvents))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := tr.reproduce(c.maxEvents), res.Reproduce; got != want || !strings.HasSuffix(want, " -max-events 12345") {
			t.Errorf("triple %d: reproduce\n%s\nwant\n%s", i, got, want)
		}
		if tr.cand.file == "" && i%4 != 0 {
			continue
		}
		seenFile = seenFile || tr.cand.file != ""
		// The command line's report, its reproduce command included, is
		// the in-process one.
		_, cli, _ := runCLI(tr.args(c.maxEvents)...)
		var b strings.Builder
		if err := writeJSON(&b, res); err != nil {
			t.Fatal(err)
		}
		if cli != b.String() {
			t.Errorf("triple %d: the reproduce command %s prints another report", i, res.Reproduce)
		}
	}
	if !seenFile {
		t.Error("no triple of the scenario file")
	}
}

// writeScenarioFile writes a small scenario file with a plan.
func writeScenarioFile(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	text := "name: mine\nbase: ackloss\nparams:\n  records: 30\n  net.response_loss: 0.1\nplan: |\n  1s pause p1 500ms\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSelfcheckScenarioFiles: -scenario-file takes files, directories and
// globs; their triples reproduce with -scenario-file.
func TestSelfcheckScenarioFiles(t *testing.T) {
	dir := t.TempDir()
	writeScenarioFile(t, dir, "a.yaml")
	writeScenarioFile(t, dir, "b.yml")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a scenario"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		files int
	}{
		{[]string{"-scenario-file", dir}, 2},
		{[]string{"-scenario-file", filepath.Join(dir, "*.y*ml")}, 2},
		{[]string{"-scenario-file", filepath.Join(dir, "a.yaml"), "-scenario-file", dir}, 2},
		{[]string{"-scenario-file", filepath.Join(dir, "b.yml")}, 1},
	} {
		paths, err := expandScenarioFiles(c.args[1:][:1])
		if len(c.args) > 2 {
			paths, err = expandScenarioFiles([]string{c.args[1], c.args[3]})
		}
		if err != nil || len(paths) != c.files {
			t.Errorf("%v: %v %v, want %d files", c.args, paths, err, c.files)
		}
	}
	// Every triple breaks the identity: the file's triples name the file.
	injectRun(t, func(spec scenarios.Spec) (*scenarios.Result, error) {
		res, err := scenarios.Run(spec)
		if err == nil {
			res.Sent++
		}
		return res, err
	})
	code, out, errOut := runCLI("selfcheck", "-runs", "20", "-scenario", "ackloss", "-scenario-file", dir)
	sum, probs := checkOutput(t, out)
	if code != exitViolation || !strings.Contains(sum, "(1 scenario, 2 scenario files)") || len(probs) != 20 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !slices.ContainsFunc(probs, func(p string) bool { return strings.Contains(p, "-scenario-file "+filepath.Join(dir, "b.yml")) }) {
		t.Errorf("no problem reproduces with -scenario-file:\n%s", out)
	}
}

// TestSelfcheckUsage: bad flags exit 2 with one line naming the flag.
func TestSelfcheckUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nbase: ackloss\nparams:\n  records: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := filepath.Join(dir, "refused.yaml")
	if err := os.WriteFile(refused, []byte("name: x\nbase: ackloss\nparams:\n  net.duplicate: 0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-runs", "0"}, "simulate: selfcheck: -runs 0 is not allowed (allowed: 1..1000000)"},
		{[]string{"-runs", "1000001"}, "simulate: selfcheck: -runs 1000001 is not allowed (allowed: 1..1000000)"},
		{[]string{"-seed", "-1"}, `simulate: selfcheck: -seed "-1" is not allowed (allowed: an integer 0..18446744073709551615)`},
		{[]string{"-parallel", "0"}, "simulate: selfcheck: -parallel 0 is not allowed (allowed: 1..4096)"},
		{[]string{"-max-events", "0"}, "simulate: selfcheck: -max-events 0 is not allowed (allowed: 1..9223372036854775807)"},
		{[]string{"-scenario", "nope"}, `simulate: selfcheck: -scenario: unknown scenario "nope" (known: ackloss`},
		{[]string{"-scenario-file", filepath.Join(dir, "missing.yaml")}, "simulate: selfcheck: -scenario-file " + filepath.Join(dir, "missing.yaml") + ": no such file (allowed: a file, a directory of *.yaml files, or a glob)"},
		{[]string{"-scenario-file", t.TempDir()}, "the directory has no *.yaml or *.yml file"},
		{[]string{"-scenario-file", bad}, "simulate: selfcheck: " + bad + ":4: records=0 is out of range (allowed: 1..1000000)"},
		{[]string{"-scenario-file", refused}, "simulate: selfcheck: -scenario-file " + refused + ": the file's own values are refused: net.duplicate=0.1 needs net.mode=datagram"},
		{[]string{"-runs", "3", "extra"}, `simulate: selfcheck: unexpected argument "extra"`},
	} {
		code, out, errOut := runCLI(append([]string{"selfcheck"}, c.args...)...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errOut, c.want) && !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("selfcheck %v: exit %d, stderr %q, want 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestSelfcheckDraws: every drawn value is within the parameter's printed
// range, both bounds get drawn, the String samples, caps and companions
// name parameters and values the scenarios accept, and a triple depends
// only on the seed and its index.
func TestSelfcheckDraws(t *testing.T) {
	pool, _, err := selfcheckPool(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, cand := range pool {
		vals := cand.sc.Values()
		for _, p := range cand.params {
			keys[p.Key] = true
			rng := rand.New(rand.NewPCG(1, 2))
			drawn := map[string]bool{}
			for range 200 {
				v, ok := drawValue(rng, &p)
				if !ok {
					if p.Kind != params.String {
						t.Errorf("%s: a %s is not drawn", p.Key, p.Kind)
					}
					break
				}
				if err := vals.Set(p.Key, v); err != nil {
					t.Errorf("%s: drew %s: %v", p.Key, v, err)
				}
				drawn[v] = true
			}
			if p.Kind == params.Int || p.Kind == params.Float || p.Kind == params.Duration {
				lo, hi, _ := strings.Cut(p.Allowed(), "..")
				if _, capped := drawCaps[p.Key]; capped {
					hi = lo
				}
				if !drawn[lo] || !drawn[hi] {
					t.Errorf("%s: 200 draws miss a bound of %s", p.Key, p.Allowed())
				}
			}
		}
	}
	for key, vals := range stringSamples {
		for _, v := range vals {
			if err := pool[0].sc.Values().Set(key, v); err != nil {
				t.Errorf("sample %s=%q: %v", key, v, err)
			}
		}
	}
	for key := range drawCaps {
		if !keys[key] {
			t.Errorf("drawCaps: no scenario has %s", key)
		}
	}
	for key, kv := range companions {
		if err := pool[0].sc.Values().Set(kv.Key, kv.Value); err != nil || !keys[key] {
			t.Errorf("companion of %s: %v", key, err)
		}
	}
	a := &checker{seed: 9, maxEvents: 1, pool: pool}
	for i := range 20 {
		t1, _, _ := a.draw(i)
		t2, _, _ := a.draw(i)
		if t1.seed != t2.seed || t1.cand != t2.cand || !slices.Equal(t1.sets, t2.sets) || !slices.Equal(t1.bugs, t2.bugs) {
			t.Errorf("triple %d drawn twice differs", i)
		}
	}
}

// TestMaxEventsFlag: -max-events bounds a run; the report says so.
func TestMaxEventsFlag(t *testing.T) {
	code, out, errOut := runCLI("-seed", "4", "-scenario", "ackloss", "-max-events", "10", "-json")
	if code == exitUsage || !strings.Contains(out, `"stop": "event-limit"`) || !strings.Contains(out, `"events": 10,`) {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"-seed", "4", "-scenario", "ackloss", "-max-events", "0"},
		{"-scenario", "ackloss", "-runs", "2", "-max-events", "5"},
	} {
		if code, _, errOut := runCLI(args...); code != exitUsage || !strings.Contains(errOut, "-max-events") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

// TestSelfcheckInterrupted: Ctrl-C stops the check; it prints the partial
// summary and exits 130.
func TestSelfcheckInterrupted(t *testing.T) {
	old := interruptContext
	defer func() { interruptContext = old }()
	interruptContext = func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
	code, out, errOut := runCLI("selfcheck", "-runs", "50")
	if code != exitInterrupted || !strings.Contains(out, "(interrupted: ") || !strings.Contains(errOut, "interrupted") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestSelfcheckDocs: docs/selfcheck.md states the caps the check draws
// under, how many parameters a triple sets and the default -max-events.
func TestSelfcheckDocs(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "selfcheck.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		capsText(),
		fmt.Sprintf("0..%d of the scenario's other parameters", maxDrawnParams),
		fmt.Sprintf("after %d,%03d events", selfcheckMaxEvents/1000, selfcheckMaxEvents%1000),
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("docs/selfcheck.md lacks %q", want)
		}
	}
}

// TestSelfcheckReusedWorlds: the second runs reuse the workers' Worlds
// (scenarios.Runner): a runner that leaks a state from one run into the
// next is reported, while the real one passes (TestSelfcheckPasses).
func TestSelfcheckReusedWorlds(t *testing.T) {
	old := selfcheckReuse
	t.Cleanup(func() { selfcheckReuse = old })
	selfcheckReuse = func() runFunc {
		var r scenarios.Runner
		runs := 0
		return func(spec scenarios.Spec) (*scenarios.Result, error) {
			res, err := r.Run(spec)
			runs++
			if err == nil && runs > 1 {
				res.Events++ // what the worker's previous run left behind
			}
			return res, err
		}
	}
	code, out, errOut := runCLI("selfcheck", "-runs", "6", "-parallel", "1")
	_, probs := checkOutput(t, out)
	if code != exitViolation || len(probs) != 5 {
		t.Fatalf("exit %d, %d problems, want 5 (every second run but the worker's first):\n%s%s", code, len(probs), out, errOut)
	}
}
