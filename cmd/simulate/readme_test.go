package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

var update = flag.Bool("update", false, "rewrite the README's example outputs")

// exampleBlock matches a console block that runs the simulator.
var exampleBlock = regexp.MustCompile("(?s)```console\n\\$ go run \\./cmd/simulate ([^\n]*)\n(.*?)```")

// TestReadmeExamples runs every `$ go run ./cmd/simulate ...` console block
// of the README and compares its output, so the README never lies.
// go test ./cmd/simulate -run TestReadmeExamples -update rewrites them.
func TestReadmeExamples(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	out := exampleBlock.ReplaceAllFunc(src, func(block []byte) []byte {
		m := exampleBlock.FindSubmatch(block)
		args := strings.Fields(string(m[1]))
		var o, e bytes.Buffer
		run(args, &o, &e)
		n++
		if got := o.String(); got != string(m[2]) && !*update {
			t.Errorf("README example `simulate %s` is out of date; run go test ./cmd/simulate -run TestReadmeExamples -update\n--- README\n%s\n--- actual\n%s", m[1], m[2], got)
		}
		return []byte("```console\n$ go run ./cmd/simulate " + string(m[1]) + "\n" + o.String() + "```")
	})
	if n == 0 {
		t.Fatal("README has no simulate example")
	}
	if *update {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadmeCatalogue: the README's tables name every scenario and every
// -bug, and its scenario-file example parses and runs.
func TestReadmeCatalogue(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for _, n := range scenarios.Names() {
		if !strings.Contains(text, "| `"+n+"` |") {
			t.Errorf("README's scenario table lacks %s", n)
		}
	}
	for _, b := range params.Bugs() {
		if !strings.Contains(text, "| `"+b.ID+"` |") {
			t.Errorf("README's -bug table lacks %s", b.ID)
		}
	}
	m := regexp.MustCompile("(?s)```yaml\n(# study.yaml\n.*?)```").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("README has no study.yaml example")
	}
	path := filepath.Join(t.TempDir(), "study.yaml")
	if err := os.WriteFile(path, []byte(m[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if code := run([]string{"-scenario-file", path, "-seed", "7"}, &o, &e); code == 2 {
		t.Fatalf("README's scenario file: exit 2: %s", e.String())
	}
}
