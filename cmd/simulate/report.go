package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// checked lists the invariants every run judges, in report order.
var checked = scenarios.Invariants()

// writeReport prints the human-readable report: what happened (the
// story, writeStory), the parameters that differ from their defaults
// (all of them with allParams, -v), counts, verdicts, trace hash, and on
// a violation the reproduce command.
func writeReport(w io.Writer, r *scenarios.Result, withTrace, allParams bool) {
	mode := "on"
	if !r.Idempotence {
		mode = "off"
	}
	fmt.Fprintf(w, "idemsim %s: scenario %s  seed %d  idempotence %s  %s\n", scenarios.Version, r.Scenario, r.Seed, mode, r.Versions)
	if len(r.Bugs) > 0 {
		fmt.Fprintln(w, "\nhistorical defects (-bug):")
		for _, id := range r.Bugs {
			title := ""
			if b, err := params.LookupBug(id); err == nil {
				title = b.Title
			}
			fmt.Fprintf(w, "  %-7s %s\n", id, title)
		}
	}
	writeStory(w, r)
	// defaults: each parameter's own default (before the scenario's);
	// scenario: the scenario's value, where it sets one.
	defaults, scenario := map[string]string{}, map[string]string{}
	sc, scErr := scenarios.Lookup(r.Scenario)
	if scErr == nil && !allParams {
		v := sc.Values()
		for _, p := range v.Params() {
			defaults[p.Key] = v.OwnDefault(p.Key)
			if got := v.Get(p.Key); got != defaults[p.Key] {
				scenario[p.Key] = got
			}
		}
	}
	if len(defaults) > 0 {
		fmt.Fprintln(w, "\nparameters that differ from their defaults (-v lists all, -describe explains each):")
	} else {
		fmt.Fprintln(w, "\nparameters:")
	}
	if scErr == nil {
		// Read rates against what the parameters are (issue: stress
		// values, not production estimates).
		for _, line := range wrapText(sc.StressNote(), 76) {
			fmt.Fprintf(w, "  # %s\n", line)
		}
	}
	for _, kv := range r.Params {
		if d, ok := defaults[kv.Key]; ok && d == kv.Value {
			continue
		}
		v := kv.Value
		if v == "" {
			v = `""`
		}
		if d, ok := defaults[kv.Key]; ok {
			if d == "" {
				d = `""`
			}
			by := "this run"
			if s, ok := scenario[kv.Key]; ok && s == kv.Value {
				by = "scenario"
			}
			fmt.Fprintf(w, "  %-40s %-14s (%s; default %s)\n", kv.Key, v, by, d)
			continue
		}
		fmt.Fprintf(w, "  %-40s %s\n", kv.Key, v)
	}
	for _, n := range r.ConfigNotes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if withTrace {
		fmt.Fprintln(w, "\ntimeline:")
		for _, l := range r.Trace {
			fmt.Fprintln(w, "  "+l)
		}
	}
	fmt.Fprintln(w, "\ncounts (each record once, by its final outcome: one an instance failed")
	fmt.Fprintln(w, "and a later instance acknowledged counts as acked):")
	row := func(k string, v int64) { fmt.Fprintf(w, "  %-23s %d\n", k, v) }
	row("sent", r.Sent)
	row("acked", r.Acked)
	row("failed", r.Failed)
	row("pending", r.Pending)
	row("appended", r.Appended)
	row("duplicates", r.Duplicates)
	row("reordered", r.Reordered)
	row("lost_acked", r.LostAcked)
	if r.Deleted > 0 {
		// Committed, then deleted by retention or DeleteRecords: not lost.
		row("deleted", r.Deleted)
	}
	row("abandoned", r.Abandoned)
	row("fenced", r.Fenced)
	row("zombie_writes", r.ZombieWrite)
	row("client_epoch_bumps", r.ClientEpochBumps)
	row("coordinator_epoch_bumps", r.CoordinatorEpochBumps) // each epoch increment handed out
	if r.TxnCommitted+r.TxnAborted > 0 {
		// Transactions end apart from their records' acknowledgements.
		fmt.Fprintf(w, "  %-23s committed=%d aborted=%d (records aborted in the logs: %d)\n", "transactions", r.TxnCommitted, r.TxnAborted, r.Aborted)
	}
	if len(r.Errors) > 0 {
		keys := make([]string, 0, len(r.Errors))
		for k := range r.Errors {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%d", k, r.Errors[k])
		}
		fmt.Fprintf(w, "  %-23s %s\n", "errors", strings.Join(parts, " "))
	}
	fmt.Fprintf(w, "  %-23s %d events, %.3fs simulated\n", "run", r.Events, float64(r.SimTimeNs)/1e9)
	if d := check.StopDetail(r.Stop); d != "" {
		// A budget of the simulator's stopped the run: say which.
		fmt.Fprintf(w, "  %-23s %s: %s\n", "stop", r.Stop, d)
	}

	fmt.Fprintln(w, "\nverdicts:")
	width := 0
	for _, inv := range checked {
		width = max(width, len(inv))
	}
	for _, inv := range checked {
		var vs []check.Violation
		for _, v := range r.Violations {
			if v.Invariant == inv {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			fmt.Fprintf(w, "  %-*s ok\n", width, inv)
			continue
		}
		fmt.Fprintf(w, "  %-*s VIOLATED\n", width, inv)
		for _, v := range vs {
			fmt.Fprintf(w, "    at %.6fs: %s\n", float64(v.AtNs)/1e9, v.Detail)
		}
		if n := r.CutBy[inv]; n > 0 {
			fmt.Fprintf(w, "    ... and %d more (violations_cut)\n", n)
		}
	}
	fmt.Fprintf(w, "\ntrace-hash %s\n", r.TraceHash)
	if r.HasViolations() {
		fmt.Fprintf(w, "\nreproduce: %s\n", r.Reproduce)
	}
}

// writeDescription prints a scenario's story, expectations, defects and
// every parameter with its value, where the value came from (the level
// of precedence, docs/parameters.md), unit, allowed values and meaning.
// bugReleases names the Kafka releases with defect b: "Kafka before 3.6",
// or "Kafka 4.0 (fixed in 4.1)".
func bugReleases(b params.Bug) string {
	if b.IntroducedIn != "" {
		return "Kafka " + b.IntroducedIn + " (fixed in " + b.FixedIn + ")"
	}
	return "Kafka before " + b.FixedIn
}

// bugTurnsOn says what -bug b does: sets the versions that have it, or
// turns it on at any version.
func bugTurnsOn(b params.Bug) string {
	var vs []string
	for _, kv := range b.Sets {
		if strings.HasSuffix(kv.Key, ".version") && kv.Key != "transaction.version" {
			vs = append(vs, kv.Key+"="+kv.Value)
		}
	}
	if len(vs) > 0 {
		return "-bug " + b.ID + " sets " + strings.Join(vs, " ")
	}
	return "-bug turns it on at any version"
}

func writeDescription(w io.Writer, sc *scenarios.Scenario, res *scenarios.Resolved) {
	fmt.Fprintf(w, "%s: %s\n\n%s\n\n", sc.Name, sc.Summary, sc.Story)
	fmt.Fprintf(w, "expect with idempotence off: %s\n", sc.ExpectOff)
	if sc.OffNote != "" {
		fmt.Fprintf(w, "  (%s)\n", sc.OffNote)
	}
	fmt.Fprintf(w, "expect with idempotence on:  %s\n", sc.ExpectOn)
	if len(sc.OnShows) > 0 {
		fmt.Fprintf(w, "  %s fails with idempotence on as well, as in real Kafka: %s\n", strings.Join(sc.OnShows, ", "), sc.OnNote)
	}
	if bugs := params.BugsFor(sc.Name); len(bugs) > 0 {
		fmt.Fprintln(w, "\ndefects and what-ifs (-bug ID):")
		for _, b := range bugs {
			fmt.Fprintf(w, "  %-7s %s\n          breaks %s; source: %s\n", b.ID, b.Title, b.Breaks, b.Source)
			switch {
			case b.WhatIf:
				fmt.Fprintf(w, "          a what-if: no Kafka release or shipped client has it\n")
			case b.FixedIn != "":
				fmt.Fprintf(w, "          %s has it (the profile); %s\n", bugReleases(b), bugTurnsOn(b))
			case len(b.Off) > 0:
				var off []string
				for _, kv := range b.Off {
					off = append(off, "-set "+kv.Key+"="+kv.Value)
				}
				fmt.Fprintf(w, "          every covered Kafka release (up to %s) has it; %s is the later fix, a what-if here\n", params.LatestKafkaVersion, strings.Join(off, " "))
			}
		}
	}
	cfg := res.Values.Config()
	fmt.Fprintf(w, "\nversions: %s (the client runs transaction protocol %d); kafka.version, broker.version and client.version pick the profile, client.policy the client\n",
		cfg.VersionLabel(), cfg.ProducerConfig().TransactionVersion)
	fmt.Fprintf(w, "\nstress values: %s\n", sc.StressNote())
	var levels []string
	for _, l := range params.Levels() {
		levels = append(levels, l.String())
	}
	fmt.Fprintln(w, "\nparameters (-set key=value): value, where it came from, allowed values, meaning")
	fmt.Fprintf(w, "(levels, weakest first: %s; see docs/parameters.md):\n", strings.Join(levels, ", "))
	quote := func(s string) string {
		if s == "" {
			return `""`
		}
		return s
	}
	v := res.Values
	for _, p := range v.Params() {
		val := quote(v.Get(p.Key))
		if p.Unit != "" {
			val += " " + p.Unit
		}
		// The value the source overrode: the scenario's default, or for
		// the scenario's default the parameter's own.
		src := v.Source(p.Key)
		allowed := p.Allowed()
		switch {
		case src.Level == params.LevelScenario:
			allowed += "; default " + quote(v.OwnDefault(p.Key))
		case src.Level > params.LevelScenario:
			allowed += "; default " + quote(p.Default)
		}
		fmt.Fprintf(w, "  %-40s %-14s %-11s (%s): %s\n", p.Key, val, src, allowed, p.Doc)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// wrapText breaks text into lines of at most width bytes at spaces.
func wrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
