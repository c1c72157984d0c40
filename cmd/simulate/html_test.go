package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// hrefs returns the pages an index links to.
func hrefs(t *testing.T, index []byte) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(`<a href="([^"]+\.html)">`).FindAllSubmatch(index, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestSweepIndex: a sweep's -out holds index.html, which links to a page
// of each failing seed it kept, every page there is linked, and the same
// sweep writes the same bytes.
func TestSweepIndex(t *testing.T) {
	dir := t.TempDir()
	var indexes [][]byte
	for _, name := range []string{"a", "b"} {
		// The report names its directory: the same name in two places.
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, name, "out")
		t.Chdir(filepath.Join(dir, name))
		if code, _, errOut := runCLI("-scenario", "ackloss", "-runs", "6", "-idempotence=false", "-failing", "2", "-parallel", "2", "-out", "out"); code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		index, err := os.ReadFile(filepath.Join(out, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, index)
		links := hrefs(t, index)
		if len(links) == 0 {
			t.Fatal("the index links to no run page, and ackloss without idempotence fails")
		}
		ents, _ := os.ReadDir(out)
		pages := 0
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".html") && e.Name() != IndexFile {
				pages++
				if !slices.Contains(links, e.Name()) {
					t.Errorf("%s is not linked from the index", e.Name())
				}
			}
		}
		if pages != len(links) {
			t.Errorf("%d pages, %d links", pages, len(links))
		}
		for _, l := range links {
			p, err := os.ReadFile(filepath.Join(out, l))
			if err != nil {
				t.Fatalf("the index links to %s: %v", l, err)
			}
			if !bytes.Contains(p, []byte("VIOLATED")) {
				t.Errorf("%s, a failing seed's page, names no violation", l)
			}
		}
		for _, want := range []string{"<table class=\"report\">", "<img src=\"latency_cdf.png\""} {
			if !bytes.Contains(index, []byte(want)) {
				t.Errorf("the index does not hold the report's %q", want)
			}
		}
	}
	if !bytes.Equal(indexes[0], indexes[1]) {
		t.Error("two equal sweeps wrote different index pages")
	}
}

// TestMergeIndex: simulate merge of a sweep's shards writes index.html
// linking the pages of the failing seeds the merged report keeps, the
// same pages, byte for byte, as the whole sweep wrote, and no other.
func TestMergeIndex(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	args := []string{"-scenario", "ackloss", "-runs", "8", "-idempotence=false", "-failing", "2", "-parallel", "2"}
	for _, c := range [][]string{{"-out", "whole"}, {"-shard", "0/2", "-out", "s1"}, {"-shard", "1/2", "-out", "s2"}} {
		if code, _, errOut := runCLI(append(append([]string{}, args...), c...)...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", c, code, errOut)
		}
	}
	if code, _, errOut := runCLI("merge", "-out", "merged", "s1", "s2"); code != exitOK {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	pages := func(d string) []string {
		ents, _ := os.ReadDir(d)
		var out []string
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".html") && e.Name() != IndexFile {
				out = append(out, e.Name())
			}
		}
		return out
	}
	whole, merged := pages("whole"), pages("merged")
	if len(whole) == 0 || !slices.Equal(whole, merged) {
		t.Fatalf("pages: whole sweep %v, merged %v", whole, merged)
	}
	index, err := os.ReadFile(filepath.Join("merged", IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if links := hrefs(t, index); !slices.Equal(links, merged) {
		t.Errorf("the merged index links %v, the directory has %v", links, merged)
	}
	for _, p := range merged {
		a, _ := os.ReadFile(filepath.Join("whole", p))
		b, _ := os.ReadFile(filepath.Join("merged", p))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the whole sweep and the merge", p)
		}
	}
}

// TestExplorePages: -explore -out writes the counterexample's page, with
// the reproduce line of its plan in the directory, and an index linking
// it.
func TestExplorePages(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	if code, _, errOut := runCLI("-explore", "-scenario", "ackloss", "-set", "records=3", "-idempotence=false", "-max-faults", "1", "-out", out); code != exitViolation {
		t.Fatalf("exit %d, want 1 (a counterexample): %s", code, errOut)
	}
	index, err := os.ReadFile(filepath.Join(out, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	links := hrefs(t, index)
	if !slices.Contains(links, "explore-ackloss-INV-DUP.html") {
		t.Fatalf("the index links to %v, not the INV-DUP counterexample's page", links)
	}
	p, err := os.ReadFile(filepath.Join(out, "explore-ackloss-INV-DUP.html"))
	if err != nil {
		t.Fatal(err)
	}
	if plan := filepath.Join(out, "explore-ackloss-INV-DUP.plan"); !bytes.Contains(p, []byte("-plan-file "+plan)) {
		t.Errorf("the counterexample's page does not reproduce with -plan-file %s", plan)
	}
}

// TestExploreMergePages: merging an exploration's shards writes the
// merged counterexamples' pages and an index linking them, as the whole
// exploration's -out has.
func TestExploreMergePages(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	args := []string{"-explore", "-scenario", "ackloss", "-set", "records=3", "-idempotence=false", "-max-faults", "1"}
	for _, c := range [][]string{{"-out", "whole"}, {"-shard", "0/2", "-out", "s1"}, {"-shard", "1/2", "-out", "s2"}} {
		runCLI(append(append([]string{}, args...), c...)...)
	}
	if code, _, errOut := runCLI("merge", "-out", "merged", "s1", "s2"); code != exitViolation {
		t.Fatalf("merge: exit %d, want 1: %s", code, errOut)
	}
	for _, d := range []string{"whole", "merged"} {
		index, err := os.ReadFile(filepath.Join(d, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		if links := hrefs(t, index); !slices.Contains(links, "explore-ackloss-INV-DUP.html") {
			t.Errorf("%s: the index links to %v, not the INV-DUP counterexample's page", d, links)
		}
		if _, err := os.Stat(filepath.Join(d, "explore-ackloss-INV-DUP.html")); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
