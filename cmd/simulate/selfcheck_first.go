package main

import (
	"crypto/sha256"
	"strings"
)

// firstRun is what the check keeps of a triple's first run until its
// second has run: digests of what the second must repeat, and the few
// fields the verdicts on the first run read, never its result or its
// report. The check holds one per triple drawn, so its memory grows
// with -runs by this struct alone (a few hundred bytes), not by a run's
// report and result (several KB each).
type firstRun struct {
	// exit, err and panic are the run's, as in [outcome]; ran reports
	// that it returned a result.
	exit  int
	err   error
	panic string
	ran   bool
	// report is the SHA-256 of the run's -json report; plan that of its
	// fault plan and realized plan.
	report, plan [sha256.Size]byte
	// traceHash, stop, violations and the counts are the result's.
	traceHash                               string
	stop                                    string
	violations                              int
	sent, acked, failed, pending, abandoned int64
	// reproduce is the result's reproduce command.
	reproduce string
}

// firstOf keeps what the check needs of o, a triple's first run.
func firstOf(o *outcome) firstRun {
	f := firstRun{exit: o.exit, err: o.err, panic: o.panic}
	if o.res == nil {
		return f
	}
	r := o.res
	f.ran = true
	f.report = sha256.Sum256(o.json)
	f.plan = planDigest(r.Plan, r.Realized)
	f.traceHash, f.stop, f.violations, f.reproduce = r.TraceHash, r.Stop, len(r.Violations), r.Reproduce
	f.sent, f.acked, f.failed, f.pending, f.abandoned = r.Sent, r.Acked, r.Failed, r.Pending, r.Abandoned
	return f
}

// planDigest is the SHA-256 of a run's fault plan and realized plan.
func planDigest(plan, realized string) [sha256.Size]byte {
	return sha256.Sum256([]byte(plan + "\x00" + realized))
}

// diffFirst describes how b's -json report differs from the first run
// a's, or returns "". The first run's report is gone: when they differ,
// the first run is run again (rerun) to describe the difference line by
// line; a simulator whose third report matches neither is described by
// the trace hashes alone.
func diffFirst(a *firstRun, b *outcome, rerun func() outcome) string {
	if sha256.Sum256(b.json) == a.report {
		return ""
	}
	if o := rerun(); o.res != nil && sha256.Sum256(o.json) == a.report {
		return diffReports(o.json, b.json)
	}
	if hb := reportTraceHash(b.json); a.traceHash != hb {
		return "trace-hash " + a.traceHash + ", then " + hb
	}
	return "the -json reports differ"
}

// reportTraceHash returns the trace_hash of a -json report, or "none".
func reportTraceHash(j []byte) string {
	for _, l := range strings.Split(string(j), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), `"trace_hash": `); ok {
			return strings.Trim(v, `",`)
		}
	}
	return "none"
}
