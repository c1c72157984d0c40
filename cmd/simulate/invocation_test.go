package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestCommandFor: printed commands start as the binary was invoked.
func TestCommandFor(t *testing.T) {
	for _, c := range []struct{ arg0, want string }{
		{"/root/.cache/go-build/91/91539ea04ae8ec8d49f401cb582336bebb213c5b1ce65b7fbbe7485ac364b86a-d/simulate", "go run ./cmd/simulate"},
		{"/tmp/go-build2918273/b001/exe/simulate", "go run ./cmd/simulate"},
		{"simulate", "simulate"},
		{"./simulate", "./simulate"},
		{"/opt/idemsim/bin/simulate", "/opt/idemsim/bin/simulate"},
		{"/home/a b/simulate", "'/home/a b/simulate'"},
		{"/root/.cache/go-build/91/notahash-d/simulate", "/root/.cache/go-build/91/notahash-d/simulate"},
		{"", "go run ./cmd/simulate"},
	} {
		if got := commandFor(c.arg0); got != c.want {
			t.Errorf("commandFor(%q) = %q, want %q", c.arg0, got, c.want)
		}
	}
}

// TestInstalledCommandLines: an installed binary's reproduce and
// regenerate lines start with its name, and the run's trace hash and
// report are otherwise the same.
func TestInstalledCommandLines(t *testing.T) {
	args := []string{"-seed", "3", "-scenario", "ackloss", "-idempotence=false", "-set", "net.response_loss=0.3", "-json"}
	_, a, _ := runCLI(args...)
	scenarios.SetCommand("simulate")
	defer scenarios.SetCommand(scenarios.DefaultCommand)
	_, b, _ := runCLI(args...)
	var ra, rb scenarios.Result
	if err := json.Unmarshal([]byte(a), &ra); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &rb); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rb.Reproduce, "simulate -seed 3 ") || strings.TrimPrefix(ra.Reproduce, "go run ./cmd/") != rb.Reproduce {
		t.Errorf("reproduce lines: %q and %q", ra.Reproduce, rb.Reproduce)
	}
	if ra.TraceHash != rb.TraceHash || strings.ReplaceAll(a, "go run ./cmd/simulate", "simulate") != b {
		t.Errorf("the command's name changed more than the printed commands")
	}
	dir := t.TempDir()
	if code, _, e := runCLI("-scenario", "ackloss", "-runs", "2", "-idempotence=false", "-out", filepath.Join(dir, "s")); code != exitOK {
		t.Fatal(e)
	}
	if md := readFile(t, filepath.Join(dir, "s", "report.md")); !strings.Contains(md, "\nsimulate -scenario ackloss -runs 2 ") || strings.Contains(md, "go run") {
		t.Errorf("report.md's regenerate line does not use the installed name:\n%s", md)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
