package main

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestFlagErrorsOneLine: an error found while reading the flags prints
// one line and where the usage is, never the whole usage; -h still prints
// it. (On main these printed the 52-line usage.)
func TestFlagErrorsOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"-bogus"},
		{"-set", "records"},
		{"-bug", "NOPE"},
		{"-runs", "abc", "-scenario", "ackloss"},
		{"-describe"},
		{"merge", "-bogus"},
		{"selfcheck", "-bogus"},
	} {
		code, out, errOut := runCLI(args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "-h for usage") || strings.Contains(errOut, "usage: simulate") {
			t.Errorf("simulate %v: exit %d, stderr %q", args, code, errOut)
		}
	}
	code, _, errOut := runCLI("-h")
	if code != exitOK || !strings.Contains(errOut, "usage: simulate") || !strings.Contains(errOut, "-scenario-file") {
		t.Errorf("-h: exit %d, stderr %q", code, errOut)
	}
}

// TestVersion: -version prints the version; the report carries it.
func TestVersion(t *testing.T) {
	code, out, _ := runCLI("-version")
	if code != exitOK || out != "simulate "+scenarios.Version+"\n" {
		t.Errorf("-version: exit %d, %q", code, out)
	}
	_, out, _ = runCLI("-seed", "1", "-scenario", "ackloss")
	if !strings.HasPrefix(out, "idemsim "+scenarios.Version+": scenario ackloss") {
		t.Errorf("report header: %q", strings.SplitN(out, "\n", 2)[0])
	}
}
