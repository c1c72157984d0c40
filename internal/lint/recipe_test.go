package lint

import (
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRecipeScenarioIsOneFile: a catalogue scenario is one new file in
// scenarios/. With scenarios/lossy.go added, and nothing else changed,
// simulate lists it, describes it, names it among the known scenarios and
// runs it.
func TestRecipeScenarioIsOneFile(t *testing.T) {
	t.Parallel()
	sim := buildWithFile(t, "scenarios/lossy.go", docExample(t, "scenarios/lossy.go"))

	out, _ := simulate(t, sim, 0, "-list")
	if !regexp.MustCompile(`(?m)^lossy +one acknowledgement in ten is lost;`).MatchString(out) {
		t.Errorf("simulate -list does not list lossy:\n%s", out)
	}
	out, _ = simulate(t, sim, 0, "-describe", "lossy")
	if !strings.HasPrefix(out, "lossy: one acknowledgement in ten is lost;") || !strings.Contains(out, "The network loses one response in ten.") {
		t.Errorf("simulate -describe lossy:\n%s", out)
	}
	_, errOut := simulate(t, sim, 2, "-scenario", "nosuch")
	if !strings.Contains(errOut, ", lossy, ") {
		t.Errorf("the unknown-scenario error does not name lossy among the known: %s", errOut)
	}
	out, _ = simulate(t, sim, 0, "-scenario", "lossy", "-seed", "1")
	if !strings.Contains(out, "trace-hash ") {
		t.Errorf("simulate -scenario lossy printed no trace hash:\n%s", out)
	}
}

// TestRecipeFaultKindIsOneFile: a kind of fault action is one new file in
// faults/. With faults/bounce.go added, and nothing else changed, the
// faults package's own tests pass (they parse and print back every
// registered kind's example line), a plan file's "bounce b1" crashes and
// restarts b1, and the plan parser's errors list the new verb last.
func TestRecipeFaultKindIsOneFile(t *testing.T) {
	t.Parallel()
	sim := buildWithFile(t, "faults/bounce.go", docExample(t, "faults/bounce.go"))

	start := time.Now()
	test := exec.Command("go", "test", "-count=1", "-overlay", overlayOf(sim), "./faults")
	test.Dir = root(t)
	if out, err := test.CombinedOutput(); err != nil {
		t.Errorf("go test ./faults with faults/bounce.go: %v\n%s", err, lastLines(out, 30))
	}
	t.Logf("go test ./faults with the new file: %v", time.Since(start).Round(time.Millisecond))

	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.txt")
	writeFile(t, plan, "2s bounce b1\n")
	out, _ := simulate(t, sim, 0, "-scenario", "statelost", "-seed", "1", "-plan-file", plan, "-trace")
	for _, want := range []string{"t=2.000000000s fault bounce b1\n", "t=2.000000000s b1 restarts\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the trace with plan %q has no line %q", "2s bounce b1", strings.TrimSpace(want))
		}
	}
	writeFile(t, plan, "2s bonce b1\n")
	_, errOut := simulate(t, sim, 2, "-scenario", "statelost", "-seed", "1", "-plan-file", plan)
	if !strings.Contains(errOut, `unknown action "bonce" (allowed: pause, crash, `) || !strings.Contains(errOut, ", bounce)") {
		t.Errorf("the unknown-verb error does not list bounce last: %s", errOut)
	}
}

// TestRecipeNodeKind: a node kind is its state machine's file and at most
// four files outside its package. With the blocks of docs/architecture.md's
// node kind section laid over the tree (the echo node: its file in
// model/coordinator, its registration in scenarios/world, its messages,
// its observation kind and its trace entry), and nothing else changed,
// the command runs a plan that crashes and restarts the new node e1, and
// the trace shows the faults and the node's own observation.
func TestRecipeNodeKind(t *testing.T) {
	t.Parallel()
	files := recipeFiles(t, "... a node kind")
	var outside []string
	for rel := range files {
		if filepath.Dir(rel) != "model/coordinator" {
			outside = append(outside, rel)
		}
	}
	if len(outside) > 4 {
		t.Errorf("the node kind recipe touches %d files outside its package, more than 4: %v", len(outside), outside)
	}
	sim := buildWith(t, files)
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.txt")
	writeFile(t, plan, "2s crash e1\n3s restart e1\n")
	out, _ := simulate(t, sim, 0, "-scenario", "ackloss", "-seed", "1", "-plan-file", plan, "-trace")
	for _, want := range []string{"t=2.000000000s fault crash e1\n", "t=3.000000000s fault restart e1\n", "t=3.000000000s e1 echo starts, answered 0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the trace with the echo node has no line %q:\n%s", strings.TrimSpace(want), lastLines([]byte(out), 40))
		}
	}
}

// recipeFiles returns what the blocks of docs/architecture.md's section
// whose heading starts with prefix make of their files, by path.
func recipeFiles(t *testing.T, prefix string) map[string]string {
	t.Helper()
	blocks, _ := docRecipes(t, filepath.Join("..", "..", "docs", "architecture.md"))
	files := map[string]string{}
	for _, blk := range blocks {
		if !strings.HasPrefix(blk.section, prefix) {
			continue
		}
		if _, ok := files[blk.path]; ok {
			t.Fatalf("docs/architecture.md:%d: two blocks of %q touch %s", blk.line, prefix, blk.path)
		}
		text, err := overlayFile(root(t), blk)
		if err != nil {
			t.Fatalf("docs/architecture.md:%d: %v", blk.line, err)
		}
		files[blk.path] = text
	}
	if len(files) == 0 {
		t.Fatalf("docs/architecture.md has no section %q with Go blocks", prefix)
	}
	return files
}

// buildWithFile builds cmd/simulate with one file added to the module at
// rel (a path that must not exist yet) holding src, and returns the
// binary.
func buildWithFile(t *testing.T, rel, src string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root(t), filepath.FromSlash(rel))); err == nil {
		t.Fatalf("%s exists: the recipe adds a new file", rel)
	}
	return buildWith(t, map[string]string{rel: src})
}

// buildWith builds cmd/simulate with files (module-relative path to
// content: new files, or existing ones replaced) laid over the tree, and
// returns the binary. The overlay file sits next to the binary
// ([overlayOf]). A new file's source must be gofmt-clean: it is the
// example a recipe shows.
func buildWith(t *testing.T, files map[string]string) string {
	t.Helper()
	if !*long {
		t.Skip("-long: builds the simulator with the recipe's files (.ci/run runs it)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	r := root(t)
	dir := t.TempDir()
	replace := map[string]string{}
	var names []string
	for rel, src := range files {
		if f, err := format.Source([]byte(src)); err != nil || string(f) != src {
			t.Fatalf("the source for %s is not gofmt-clean (%v)", rel, err)
		}
		file := filepath.Join(dir, strings.ReplaceAll(rel, "/", "_"))
		writeFile(t, file, src)
		replace[filepath.Join(r, filepath.FromSlash(rel))] = file
		names = append(names, rel)
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "overlay.json"), string(ov))
	sim := filepath.Join(dir, "simulate")
	start := time.Now()
	cmd := exec.Command("go", "build", "-overlay", overlayOf(sim), "-o", sim, "./cmd/simulate")
	cmd.Dir = r
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/simulate with %v: %v\n%s", names, err, lastLines(out, 30))
	}
	t.Logf("go build ./cmd/simulate with %v: %v", names, time.Since(start).Round(time.Millisecond))
	return sim
}

// overlayOf returns the overlay file that built the binary sim.
func overlayOf(sim string) string { return filepath.Join(filepath.Dir(sim), "overlay.json") }

// simulate runs the binary sim with args, expects the exit code code and
// returns its standard output and error.
func simulate(t *testing.T, sim string, code int, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(sim, args...)
	cmd.Dir = t.TempDir()
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("simulate %s: exit code %d (%v), want %d\n%s%s", strings.Join(args, " "), got, err, code, o.String(), e.String())
	}
	return o.String(), e.String()
}

// writeFile writes s to path.
func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
