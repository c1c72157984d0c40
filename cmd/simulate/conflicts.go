package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

// singleRunFlags are the flags that act on one run: a sweep (-runs)
// refuses them rather than ignore them. (-plan-file applies to every seed
// of a sweep.)
var singleRunFlags = []string{"plan", "plan-out", "shrink", "shrink-budget", "diagram", "timeline", "latency-chart", "v"}

// singleRunOnly returns the usage message for a single-run flag given
// with -runs, or "".
func singleRunOnly(explicit map[string]bool) string {
	for _, name := range singleRunFlags {
		if explicit[name] {
			return "-" + name + " is not allowed with -runs (it acts on one run: drop -runs, and take a seed from the sweep's failing list)"
		}
	}
	return ""
}

// conflicts returns the usage message for two flags of which one would
// silently cancel the other, or "": -idempotence against -set
// enable.idempotence, a -set or -vary of a key a -bug sets, -shrink with
// -json, and an empty -out or -keep-failing.
func conflicts(fs *flag.FlagSet, explicit map[string]bool, idempotence bool, bugs []string, sets []params.KV, vary []string) string {
	if explicit["idempotence"] {
		for _, kv := range sets {
			if kv.Key == "enable.idempotence" && kv.Value != strconv.FormatBool(idempotence) {
				return fmt.Sprintf("-idempotence=%t and -set enable.idempotence=%s contradict each other (give one)", idempotence, kv.Value)
			}
		}
	}
	if err := params.BugSetConflict(bugs, sets); err != nil {
		return err.Error()
	}
	for _, id := range bugs {
		b, err := params.LookupBug(id)
		if err != nil {
			continue
		}
		for _, bk := range b.Sets {
			for _, v := range vary {
				if k, _, _ := strings.Cut(v, "="); k == bk.Key {
					return fmt.Sprintf("-bug %s sets %s=%s, and -vary %s would override it (give one)", b.ID, bk.Key, bk.Value, v)
				}
			}
		}
	}
	if explicit["v"] && explicit["json"] {
		return "-v is not allowed with -json (the JSON lists every parameter)"
	}
	if explicit["shrink"] && explicit["json"] {
		return "-shrink is not allowed with -json (-shrink prints the minimal plan and its reproduce command; run that with -json)"
	}
	for _, name := range []string{"out", "keep-failing", "plan-out", "plan-file", "diagram", "timeline", "latency-chart", "html", "scenario-file"} {
		if f := fs.Lookup(name); explicit[name] && f != nil && f.Value.String() == "" {
			return "-" + name + " '' is not allowed (allowed: a path)"
		}
	}
	return ""
}

// writeJSONTrace prints a run's -json report; with -trace the timeline
// is the field "trace", a list of lines.
func writeJSONTrace(w io.Writer, res *scenarios.Result, trace bool) error {
	if !trace {
		return writeJSON(w, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	lines := res.Trace
	if lines == nil {
		lines = []string{}
	}
	return enc.Encode(struct {
		*scenarios.Result
		Trace []string `json:"trace"`
	}{res, lines})
}
