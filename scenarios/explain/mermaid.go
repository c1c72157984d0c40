package explain

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/sim"
)

// DiagramMaxLines is how many diagram lines [WriteMermaid] draws before it
// cuts the run to the window around the failure.
const DiagramMaxLines = 90

// WriteMermaid writes a run's event log as a Mermaid sequence diagram:
// participants are the applications, the producer instances, the broker
// b1 and the coordinator c1. Delivered messages are solid arrows (->>),
// lost ones crossed (-x) with why they were lost; outcomes reported to the
// application are dotted (-->>). Fault actions, resumes, restarts, the
// broker's verdict on each batch and the violations are notes; the
// violations of one invariant found at one instant share a note with
// their count. Runs of consecutive sends or acknowledgements of one
// application are drawn as one arrow. A diagram longer than limit lines
// (0: DiagramMaxLines) keeps the window around the first violation, every
// fault and every violation, and says what it left out. Text is kept to
// characters Mermaid reads literally (no ';', '#', ':', braces or angle
// brackets).
func WriteMermaid(out io.Writer, l *Log, title string, limit int) error {
	if limit <= 0 {
		limit = DiagramMaxLines
	}
	parts := slices.Concat(l.Apps, l.Nodes)
	all := parts[0] + "," + parts[len(parts)-1]
	var lines []dline
	add := func(at sim.Time, keep bool, s string) { lines = append(lines, dline{at: at, keep: keep, text: s}) }
	es := l.Entries
	for i := 0; i < len(es); i++ {
		e := &es[i]
		at := "[" + fmtTime(e.At) + "] "
		switch e.Kind {
		case LogSend:
			if e.Fate == "" {
				add(e.At, false, e.From+"->>"+e.To+": "+at+mermaidText(e.Text))
			} else {
				add(e.At, true, e.From+"-x"+e.To+": "+at+mermaidText(e.Text)+" LOST "+mermaidText(e.Fate))
			}
		case LogApp, LogOutcome:
			// Group a run of like entries: app sends, or acks.
			j := i
			for j+1 < len(es) && es[j+1].Kind == e.Kind && es[j+1].From == e.From && es[j+1].To == e.To &&
				(e.Kind == LogApp || strings.HasPrefix(es[j+1].Text, "ack ") && strings.HasPrefix(e.Text, "ack ")) {
				j++
			}
			text := e.Text
			if j > i {
				verb, first, _ := strings.Cut(e.Text, " ")
				_, last, _ := strings.Cut(es[j].Text, " ")
				if e.Kind == LogApp {
					verb, first, last = "send", e.Text, es[j].Text
				}
				text = verb + " " + first + ".." + last + " (" + strconv.Itoa(j-i+1) + " records)"
			} else if e.Kind == LogApp {
				text = "send " + text
			}
			arrow := "->>"
			if e.Kind == LogOutcome {
				arrow = "-->>"
			}
			add(e.At, false, e.From+arrow+e.To+": "+at+mermaidText(text))
			i = j
		case LogBatch:
			add(e.At, false, "Note over "+e.From+": "+at+mermaidText(e.Text))
		case LogFault:
			add(e.At, true, "Note over "+span(parts, e.Nodes)+": "+at+"FAULT "+mermaidText(e.Text))
		case LogNote:
			if e.From == "fault" {
				add(e.At, true, "Note over "+all+": "+at+"plan end, faults off, network healed")
			} else {
				add(e.At, e.Text != "starts", "Note over "+e.From+": "+at+mermaidText(e.Text))
			}
		case LogViolation:
			// The violations found at one instant, one note per
			// invariant, in the order the checker reported them.
			j := i
			for j+1 < len(es) && es[j+1].Kind == LogViolation && es[j+1].At == e.At {
				j++
			}
			for _, v := range violationNotes(es[i : j+1]) {
				add(e.At, true, "Note over "+all+": "+at+"VIOLATED "+mermaidText(v))
			}
			i = j
		}
	}
	lines = window(lines, limit, all)
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	if title != "" {
		b.WriteString("    %% " + mermaidText(title) + "\n")
	}
	for _, p := range parts {
		b.WriteString("    participant " + p + "\n")
	}
	for _, ln := range lines {
		b.WriteString("    " + ln.text + "\n")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// violationNotes returns the notes for violations found at one instant:
// one per invariant, in order of first appearance, "INV-X detail" for a
// single violation and "INV-X ×n, first detail" for n of them.
func violationNotes(vs []LogEvent) []string {
	var names []string
	count := map[string]int{}
	first := map[string]string{}
	for _, v := range vs {
		if count[v.From] == 0 {
			names = append(names, v.From)
			first[v.From] = v.Text
		}
		count[v.From]++
	}
	notes := make([]string, 0, len(names))
	for _, n := range names {
		if c := count[n]; c > 1 {
			notes = append(notes, n+" ×"+strconv.Itoa(c)+", first "+first[n])
		} else {
			notes = append(notes, n+" "+first[n])
		}
	}
	return notes
}

type dline struct {
	at   sim.Time
	keep bool // faults, losses, violations: kept outside the window
	text string
}

// window cuts lines to at most limit around the first violation (or the
// end), keeping the lines marked keep, and replaces each left-out stretch
// with a note.
func window(lines []dline, limit int, all string) []dline {
	if len(lines) <= limit {
		return lines
	}
	focus := len(lines) - 1
	for i, ln := range lines {
		if strings.Contains(ln.text, ": ["+fmtTime(ln.at)+"] VIOLATED ") {
			focus = i
			break
		}
	}
	kept := 0
	for _, ln := range lines {
		if ln.keep {
			kept++
		}
	}
	room := max(limit-kept, 10)
	lo := max(0, focus-room*3/4)
	hi := min(len(lines), lo+room)
	var out []dline
	gap, gapFrom, gapTo := 0, sim.Time(0), sim.Time(0)
	flush := func() {
		if gap > 0 {
			out = append(out, dline{at: gapFrom, text: "Note over " + all + ": " + strconv.Itoa(gap) + " events left out (" + fmtTime(gapFrom) + " to " + fmtTime(gapTo) + ")"})
			gap = 0
		}
	}
	for i, ln := range lines {
		if ln.keep || i >= lo && i < hi {
			flush()
			out = append(out, ln)
			continue
		}
		if gap == 0 {
			gapFrom = ln.at
		}
		gap, gapTo = gap+1, ln.at
	}
	flush()
	return out
}

// span returns "A" or "A,B": the first and last of nodes in participant
// order.
func span(parts, nodes []string) string {
	lo, hi := len(parts), -1
	for _, n := range nodes {
		if i := slices.Index(parts, n); i >= 0 {
			lo, hi = min(lo, i), max(hi, i)
		}
	}
	switch {
	case hi < 0:
		return parts[0] + "," + parts[len(parts)-1]
	case lo == hi:
		return parts[lo]
	}
	return parts[lo] + "," + parts[hi]
}

// fmtTime formats a time as seconds with up to 3 decimals: "8.701s".
func fmtTime(t sim.Time) string {
	s := strconv.FormatFloat(float64(t)/1e9, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "s"
}

// mermaidText maps characters Mermaid's sequence-diagram text would read
// as syntax to harmless ones: ':' and '#' to '.', ';' to ',', braces and
// angle brackets to parentheses; '%' becomes "pct".
func mermaidText(s string) string {
	r := strings.NewReplacer(":", ".", "#", ".", ";", ",", "{", "(", "}", ")", "<", " from ", ">", " to ", "%", "pct", "\n", " ")
	return r.Replace(s)
}

// MermaidTitle is a diagram's comment line for a run.
func MermaidTitle(r *scenarios.Result) string {
	return fmt.Sprintf("idemsim scenario %s seed %d idempotence %t", r.Scenario, r.Seed, r.Idempotence)
}
