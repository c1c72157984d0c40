package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTMLPage: -html FILE writes the run's page, the same bytes for the
// same run, and leaves no temporary file beside it.
func TestHTMLPage(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.html"), filepath.Join(dir, "b.html")
	for _, p := range []string{a, b} {
		if code, _, errOut := runCLI("-seed", "42", "-scenario", "zombie", "-html", p); code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	pa, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pa, pb) {
		t.Fatal("two runs of the same command wrote different pages")
	}
	for _, want := range []string{"<!DOCTYPE html>", "scenario zombie seed 42", "pause p1 25s", "reproduce:"} {
		if !bytes.Contains(pa, []byte(want)) {
			t.Errorf("the page does not hold %q", want)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("the directory holds %d entries, want the 2 pages", len(ents))
	}
	// A violation exits 1 and still writes the page.
	v := filepath.Join(dir, "v.html")
	if code, _, errOut := runCLI("-seed", "539", "-scenario", "zombie", "-set", "app.mode=at-least-once", "-set", "fault.count=2", "-html", v); code != exitViolation {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	if pv, err := os.ReadFile(v); err != nil || !bytes.Contains(pv, []byte("VIOLATED")) {
		t.Fatalf("the violating run's page is missing or names no violation (%v)", err)
	}
}

// TestHTMLRefused: -html with a path it cannot write or a flag it cannot
// work with is one line and exit 2, before anything runs or is written.
func TestHTMLRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-seed", "1", "-scenario", "zombie", "-html", filepath.Join(dir, "missing", "z.html")}, "-html: cannot write"},
		{[]string{"-seed", "1", "-scenario", "zombie", "-html", filepath.Join(dir, "z.svg")}, `extension ".svg" is not allowed`},
		{[]string{"-seed", "1", "-scenario", "zombie", "-html", dir + "/"}, "-html"},
		{[]string{"-seed", "1", "-scenario", "zombie", "-html", ""}, "-html '' is not allowed"},
		{[]string{"-scenario", "zombie", "-runs", "3", "-html", filepath.Join(dir, "z.html")}, "-html is not allowed with -runs"},
		{[]string{"-scenario", "zombie", "-runs", "3", "-out", filepath.Join(dir, "o"), "-html", filepath.Join(dir, "z.html")}, "-html is not allowed with -runs"},
		{[]string{"-explore", "-scenario", "ackloss", "-set", "records=2", "-html", filepath.Join(dir, "z.html")}, "-html is not allowed with -explore"},
		{[]string{"-seed", "1", "-scenario", "zombie", "-shrink", "-html", filepath.Join(dir, "z.html")}, "-html is not allowed with -shrink"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line with %q", c.args, errOut, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a refused command wrote %d entries into %s", len(ents), dir)
	}
}
