package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// summaryColumns returns, for each line of a -list output, the column
// where the summary starts: after the name and the spaces that follow it.
func summaryColumns(t *testing.T, out string) []int {
	t.Helper()
	var cols []int
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		name, rest, ok := strings.Cut(line, " ")
		if !ok || strings.TrimLeft(rest, " ") == "" {
			t.Fatalf("line %q has no summary", line)
		}
		cols = append(cols, len(name)+1+len(rest)-len(strings.TrimLeft(rest, " ")))
	}
	return cols
}

// TestListAligned: every row of -list has its summary in the same
// column, whatever the longest scenario name (coordfailover is longer
// than ten characters), with at least two spaces after each name.
func TestListAligned(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-list"}, &out, &errb); code != exitOK {
		t.Fatal(errb.String())
	}
	long := &scenarios.Scenario{Name: "averyveryverylongscenarioname", Summary: "a long one"}
	var synth bytes.Buffer
	writeList(&synth, append(scenarios.All(), long))
	for _, o := range []string{out.String(), synth.String()} {
		cols := summaryColumns(t, o)
		width := 0
		for _, line := range strings.Split(strings.TrimSuffix(o, "\n"), "\n") {
			width = max(width, strings.Index(line, " "))
		}
		for i, c := range cols {
			if c != width+2 {
				t.Errorf("row %d: summary at column %d, want %d (longest name %d + 2):\n%s", i+1, c, width+2, width, o)
			}
		}
	}
	if !strings.Contains(out.String(), "\ncoordfailover  the transaction coordinator") {
		t.Errorf("coordfailover row:\n%s", out.String())
	}
}
