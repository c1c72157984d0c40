package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// writeStory prints what happened in a run, before anything else: the
// scenario's premise, the faults, what the producers and brokers did
// about them, where every record ended up, the verdict and, when an
// invariant failed, the reproduce line. Every sentence is made from the
// run's result, so it is as true as the counts below it.
func writeStory(w io.Writer, r *scenarios.Result) {
	fmt.Fprintln(w, "\nwhat happened:")
	line := func(format string, a ...any) {
		for i, l := range wrapText(fmt.Sprintf(format, a...), 76) {
			if i == 0 {
				fmt.Fprintf(w, "  - %s\n", l)
			} else {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
	}
	if sc, err := scenarios.Lookup(r.Scenario); err == nil {
		line("scenario: %s", sc.Summary)
	}
	if acts := planActions(r.Plan); len(acts) > 0 {
		shown := acts
		more := ""
		if len(acts) > 4 {
			shown, more = acts[:4], fmt.Sprintf(" and %d more (-plan prints them all)", len(acts)-4)
		}
		line("faults: %s%s", strings.Join(shown, "; "), more)
	} else {
		line("faults: none planned (the network's random sources only)")
	}
	if n := r.Net; n.RequestsLost+n.ResponsesLost+n.Dropped > 0 {
		line("the network lost %s and %s of the producers', and dropped %d at a broken connection or a partition",
			plural(n.RequestsLost, "request", "requests"), plural(n.ResponsesLost, "response", "responses"), n.Dropped)
	}
	if r.ZombieAttempts > 0 {
		line("a superseded instance got %s to the brokers: %d refused for its stale epoch, %s appended",
			plural(r.ZombieAttempts, "batch", "batches"), r.ZombieRejected, plural(r.ZombieWrite, "record", "records"))
	}
	if r.CommitsFencedByGeneration+r.OffsetFetchUnstable > 0 {
		line("the group refused %s on the generation (commits_fenced_by_generation); %s answered UNSTABLE_OFFSET_COMMIT (offset_fetch_unstable)",
			plural(r.CommitsFencedByGeneration, "offset commit", "offset commits"), plural(r.OffsetFetchUnstable, "offset fetch", "offset fetches"))
	}
	if r.OffsetFetchStallMs > 0 {
		line("a member stalled on UNSTABLE_OFFSET_COMMIT for %v before its offset fetch succeeded, the longest stall (offset_fetch_stall_ms)",
			time.Duration(r.OffsetFetchStallMs)*time.Millisecond)
	}
	if fatal := fatalErrors(r.Errors); fatal != "" {
		line("fatal errors: %s", fatal)
	}
	if r.CoordinatorEpochBumps+r.ClientEpochBumps > 0 {
		line("epoch bumps: %d by the coordinators, %d asked for by the producers", r.CoordinatorEpochBumps, r.ClientEpochBumps)
	}
	rec := fmt.Sprintf("records: %d sent: %d acknowledged, %d failed, %d pending", r.Sent, r.Acked, r.Failed, r.Pending)
	if r.Abandoned > 0 {
		rec += fmt.Sprintf(", %d abandoned", r.Abandoned)
	}
	rec += fmt.Sprintf("; %d appended to the logs", r.Appended)
	if r.Duplicates > 0 {
		rec += fmt.Sprintf(", %d of them duplicates", r.Duplicates)
	}
	if r.LostAcked > 0 {
		rec += "; " + plural(r.LostAcked, "acknowledged record", "acknowledged records") + " lost"
	}
	line("%s", rec)
	if r.TxnCommitted+r.TxnAborted > 0 {
		line("transactions: %d committed, %d aborted", r.TxnCommitted, r.TxnAborted)
	}
	var broken []string
	for _, inv := range checked {
		n := 0
		for _, v := range r.Violations {
			if v.Invariant == inv {
				n++
			}
		}
		if n += int(r.CutBy[inv]); n > 0 {
			broken = append(broken, fmt.Sprintf("%s (%d)", inv, n))
		}
	}
	switch {
	case len(broken) > 0:
		line("verdict: VIOLATED %s", strings.Join(broken, ", "))
	case slices.Contains(r.Params, paramKV("app.mode", "exactly-once")) && r.TxnCommitted > 0:
		line("verdict: every invariant holds; every input record is in the committed output exactly once (INV-EOS)")
	default:
		line("verdict: every invariant holds")
	}
	if r.HasViolations() {
		fmt.Fprintf(w, "  reproduce: %s\n", r.Reproduce)
	}
}

// planActions returns a fault plan's actions, one line each (its format
// line, end line and comments left out).
func planActions(plan string) []string {
	var out []string
	for _, l := range strings.Split(plan, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "format ") || strings.HasPrefix(l, "end ") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// fatalErrors names the errors a producer stopped on ("NAME(fatal)" in
// the error counts), with their counts, in name order; "" for none.
func fatalErrors(errs map[string]int64) string {
	var out []string
	for k, n := range errs {
		if name, ok := strings.CutSuffix(k, "(fatal)"); ok {
			out = append(out, fmt.Sprintf("%s (%d)", name, n))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// plural returns "1 batch" or "N batches".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// paramKV is a parameter and its value as a result lists them.
func paramKV(key, value string) params.KV { return params.KV{Key: key, Value: value} }
