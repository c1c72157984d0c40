package sweep

import (
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/check"
	"github.com/idemsim/idemsim/scenarios"
)

// planColumns is how many of a run's fault plan actions runs.csv spells
// out, each as fault<i>_at_ms and fault<i>: the scripted faults of every
// catalogue scenario at its defaults fit (unclean's and restart's four
// actions are the most) but epochx's (nine restarts, 18 actions); the
// column faults counts them all.
const planColumns = 4

// flatColumns are runs.csv's last columns, after the -json report's: a
// spreadsheet reads each as one number or one word, where the -json
// columns before them hold JSON (errors, violations) or nothing of the
// plan. docs/sweeps.md documents them.
//
//	violations_count       violations found, those the list cuts included (len(violations) + violations_cut)
//	first_violation        the invariant of the earliest violation, "" without one
//	first_violation_at_ms  its time in ms, "" without one
//	violated               the invariants violated, in report order, space-separated
//	errors_total           error answers the producers got: the sum of the errors map
//	faults                 actions in the run's fault plan (-plan prints them)
//	fault1_at_ms, fault1   the plan's first action: its time in ms and its text
//	...                    up to fault4; "" for actions the plan does not have
var flatColumns = func() []string {
	cols := []string{"violations_count", "first_violation", "first_violation_at_ms", "violated", "errors_total", "faults"}
	for i := 1; i <= planColumns; i++ {
		n := strconv.Itoa(i)
		cols = append(cols, "fault"+n+"_at_ms", "fault"+n)
	}
	return cols
}()

// appendFlat appends r's flat columns (flatColumns) to the row b, each
// after a comma.
func appendFlat(b []byte, r *scenarios.Result) []byte {
	b = strconv.AppendInt(append(b, ','), int64(len(r.Violations))+r.ViolationsCut, 10)
	first := -1
	for i := range r.Violations {
		if first < 0 || r.Violations[i].AtNs < r.Violations[first].AtNs {
			first = i
		}
	}
	b = append(b, ',')
	if first >= 0 {
		b = appendCSVField(b, r.Violations[first].Invariant)
	}
	b = append(b, ',')
	if first >= 0 {
		b = appendMs(b, r.Violations[first].AtNs)
	}
	b = append(b, ',')
	sep := false
	for _, inv := range reportOrder {
		if len(r.Violations) == 0 && len(r.CutBy) == 0 {
			break
		}
		if r.CutBy[inv] > 0 || hasInvariant(r.Violations, inv) {
			if sep {
				b = append(b, ' ')
			}
			b = append(b, inv...) // INV-NAME: never quoted
			sep = true
		}
	}
	var errs int64
	for _, n := range r.Errors {
		errs += n
	}
	b = strconv.AppendInt(append(b, ','), errs, 10)
	return appendPlanColumns(b, r.Plan)
}

// reportOrder are the invariants in report order (check.Invariants),
// listed once.
var reportOrder = check.Invariants()

func hasInvariant(vs []check.Violation, inv string) bool {
	for i := range vs {
		if vs[i].Invariant == inv {
			return true
		}
	}
	return false
}

// appendPlanColumns appends the columns faults, fault1_at_ms, fault1, ...
// of a plan's text (faults.Plan.String: one "DUR action" line per action,
// in time order, then "end DUR").
func appendPlanColumns(b []byte, plan string) []byte {
	n := 0
	var at [planColumns]int64
	var text [planColumns]string
	for line := range strings.Lines(plan) {
		line = strings.TrimSuffix(line, "\n")
		d, act, ok := strings.Cut(line, " ")
		if !ok || d == "end" {
			continue
		}
		if n < planColumns {
			t, err := time.ParseDuration(d)
			if err != nil {
				t = -1 // not a plan's text: the column says so, empty
			}
			at[n], text[n] = int64(t), act
		}
		n++
	}
	b = strconv.AppendInt(append(b, ','), int64(n), 10)
	for i := range planColumns {
		b = append(b, ',')
		if i < n && at[i] >= 0 {
			b = appendMs(b, at[i])
		}
		b = appendCSVField(append(b, ','), text[i])
	}
	return b
}

// appendMs appends ns nanoseconds (>= 0) as milliseconds, exactly: the
// whole milliseconds, then the fraction's digits without trailing zeros
// (1500000 is 1.5, 2000000 is 2).
func appendMs(b []byte, ns int64) []byte {
	b = strconv.AppendInt(b, ns/1e6, 10)
	frac := ns % 1e6
	if frac == 0 {
		return b
	}
	var d [6]byte
	for i := 5; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	k := 6
	for d[k-1] == '0' {
		k--
	}
	return append(append(b, '.'), d[:k]...)
}
