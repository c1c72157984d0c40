package main

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestUnknownNamesSuggest: a misspelt scenario, parameter (by -set, -vary
// or a scenario file), bug, preset or flag is refused with one line and
// exit 2 that names the likely intended one.
func TestUnknownNamesSuggest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "zombi"}, `unknown scenario "zombi" (did you mean zombie?)`},
		{[]string{"-scenario", "zombie", "-set", "net.respons_loss=0.1"}, `unknown parameter "net.respons_loss" (did you mean net.response_loss?)`},
		{[]string{"-scenario", "zombie", "-runs", "2", "-vary", "net.respons_loss=0.1,0.2"}, `unknown parameter "net.respons_loss" (did you mean net.response_loss?)`},
		{[]string{"-scenario", "zombie", "-bug", "K1936"}, `unknown bug "K1936" (did you mean K19367?)`},
		{[]string{"-scenario", "zombie", "-preset", "kafka-default"}, `unknown preset "kafka-default" (did you mean kafka-defaults?)`},
		{[]string{"-sed", "3"}, "flag provided but not defined: -sed (did you mean -seed?)"},
	} {
		code, _, e := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(e, c.want) || strings.Count(e, "\n") != 1 {
			t.Errorf("simulate %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(c.args, " "), code, e, c.want)
		}
	}
	if _, err := scenarios.Lookup("nosuchthing"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a name near nothing gets no suggestion: %v", err)
	}
}

// TestConflictsSayWhatRan: a run whose settings Kafka's rules change
// lists the values that ran, and a sweep point that cannot run with
// idempotence says how to sweep it.
func TestConflictsSayWhatRan(t *testing.T) {
	code, out, e := runCLI("-scenario", "acks1", "-seed", "1", "-set", "acks=1", "-v")
	if code == exitUsage {
		t.Fatalf("exit 2: %s", e)
	}
	if !strings.Contains(out, "note: idempotence disabled implicitly") {
		t.Errorf("no note of the implicit change:\n%s", out)
	}
	for _, want := range []string{"\n  enable.idempotence                       false\n", "\n  acks                                     1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("parameter list lacks %q: it must show what ran", want)
		}
	}
	code, out, _ = runCLI("-scenario", "zombie", "-seed", "1", "-idempotence=false", "-v")
	for _, want := range []string{"\n  transactional.id                         \"\"\n", "\n  app.mode                                 at-least-once\n", "\n  transaction.records                      0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("zombie without idempotence: parameter list lacks %q", want)
		}
	}
	code, _, e = runCLI("-scenario", "acks1", "-runs", "4", "-vary", "acks=1,all")
	if code != exitUsage || !strings.Contains(e, "add -idempotence=false") || strings.Count(e, "\n") != 1 {
		t.Errorf("sweep of acks=1 with both modes: exit %d %q; want exit 2 naming -idempotence=false", code, e)
	}
	if code, _, e = runCLI("-scenario", "acks1", "-runs", "4", "-vary", "acks=1,all", "-idempotence=false"); code == exitUsage {
		t.Errorf("the fix the refusal names fails: %s", e)
	}
}
