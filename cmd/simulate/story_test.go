package main

import (
	"strings"
	"testing"
)

// TestZombieStoryFirst: the report of -seed 42 -scenario zombie starts
// with what happened (the pause, the fence, the refused late write, every
// input once), before the parameters, which list only what differs from
// the defaults unless -v.
func TestZombieStoryFirst(t *testing.T) {
	code, out, e := runCLI("-seed", "42", "-scenario", "zombie")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	story, rest, ok := strings.Cut(out, "\nparameters that differ from their defaults")
	if !ok {
		t.Fatalf("no filtered parameter list:\n%s", out)
	}
	for _, want := range []string{"\nwhat happened:\n", "faults: 3.468780887s pause p1 25s", "1 refused for its stale", "fatal errors: PRODUCER_FENCED (1)",
		"transactions: 6 committed, 1 aborted", "every input record is in the committed\n    output exactly once (INV-EOS)"} {
		if !strings.Contains(story, want) {
			t.Errorf("the story (before the parameters) lacks %q:\n%s", want, story)
		}
	}
	if !strings.Contains(rest, "\n  linger.ms                                1000           (scenario; default 5)\n") || strings.Contains(rest, "\n  acks ") {
		t.Errorf("the parameter list shows more or less than what differs from the defaults:\n%s", rest)
	}
	_, all, _ := runCLI("-seed", "42", "-scenario", "zombie", "-v")
	if !strings.Contains(all, "\nparameters:\n") || !strings.Contains(all, "\n  acks                                     all\n") {
		t.Errorf("-v does not list every parameter")
	}
	// A failing run's story names the broken invariants and ends with
	// the reproduce line.
	_, out, _ = runCLI("-seed", "1", "-scenario", "acks1", "-idempotence=false")
	story, _, _ = strings.Cut(out, "\nparameters")
	if !strings.Contains(story, "verdict: VIOLATED INV-LOSS") || !strings.Contains(story, "  reproduce: go run ./cmd/simulate -seed 1 -scenario acks1 -idempotence=false\n") {
		t.Errorf("acks1's story lacks its verdict or reproduce line:\n%s", story)
	}
	for _, args := range [][]string{{"-scenario", "zombie", "-runs", "2", "-v"}, {"-scenario", "zombie", "-seed", "1", "-json", "-v"}} {
		if code, _, e := runCLI(args...); code != exitUsage || !strings.Contains(e, "-v is not allowed") {
			t.Errorf("%v: exit %d %q, want -v refused", args, code, e)
		}
	}
}

// TestCoordinatorBumpsCounted: with transaction version 2 every EndTxn
// bumps the epoch, and the count shows each bump (on the main this
// started from, txnlate read 0 and zombie's 4 was one jump of 0 to 4).
func TestCoordinatorBumpsCounted(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-seed", "42", "-scenario", "txnlate"}, "\n  coordinator_epoch_bumps 10\n"},
		{[]string{"-seed", "42", "-scenario", "zombie"}, "\n  coordinator_epoch_bumps 7\n"},
		{[]string{"-seed", "42", "-scenario", "zombie", "-set", "kafka.version=3.9"}, "\n  coordinator_epoch_bumps 2\n"}, // the abort of p1's open transaction, then p2's epoch
	} {
		if _, out, _ := runCLI(c.args...); !strings.Contains(out, c.want) {
			t.Errorf("%v: report lacks %q", c.args, strings.TrimSpace(c.want))
		}
	}
}

// TestUnstableStoryStall: the story of an unstable run names the new
// owner's stall on UNSTABLE_OFFSET_COMMIT, the -json report has it as
// offset_fetch_stall_ms, and a run without a stall has neither.
func TestUnstableStoryStall(t *testing.T) {
	code, out, e := runCLI("-seed", "1", "-scenario", "unstable")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	story, _, _ := strings.Cut(out, "\nparameters")
	if !strings.Contains(strings.Join(strings.Fields(story), " "), "a member stalled on UNSTABLE_OFFSET_COMMIT for 11.8s before its offset fetch succeeded, the longest stall (offset_fetch_stall_ms)") {
		t.Errorf("the story lacks the stall:\n%s", story)
	}
	if _, js, _ := runCLI("-seed", "1", "-scenario", "unstable", "-json"); !strings.Contains(js, `"offset_fetch_stall_ms":11800`) && !strings.Contains(js, `"offset_fetch_stall_ms": 11800`) {
		t.Errorf("-json lacks offset_fetch_stall_ms 11800")
	}
	_, out, _ = runCLI("-seed", "1", "-scenario", "eosv2")
	if strings.Contains(out, "stalled on UNSTABLE_OFFSET_COMMIT") {
		t.Errorf("eosv2 seed 1 (no fetch answered UNSTABLE_OFFSET_COMMIT) tells a stall:\n%s", out)
	}
}
