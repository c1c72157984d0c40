package faults

import (
	"fmt"
	"strings"
	"time"
)

// FormatVersion is the plan file format this version reads and writes;
// FormatLine declares it, as a plan's first line.
const (
	FormatVersion = "1"
	FormatLine    = "format " + FormatVersion
)

// Parse reads a plan's text: an optional format line "format 1" before
// any action (a plan without one is read as format 1; any other version
// is refused), then one action per line, "TIME VERB ARGS", with TIME a Go
// duration from the start of the run; "#" starts a comment; blank lines
// are ignored; "end DUR" (at most once) sets [Plan.End].
//
//	format 1
//	# pause producer p1 for 25s at 3.2s
//	3.2s pause p1 25s
//	5s partition p1 | b1
//	9s heal p1 | b1
//	5s partition-oneway p1 > b1
//	12s crash b1
//	14s restart b1 clean
//	0s drop response 17 p1>b1
//	0s drift p2 +200ppm
//	0s reject 5 p1>b1 NOT_ENOUGH_REPLICAS
//	end 60s
//
// Node names are a letter followed by letters, digits, '_', '-' or '.'.
// The error names the offending line: "line 3: ...". Parse checks syntax
// only; [Plan.Check] checks the actions against a world.
func Parse(text string) (Plan, error) {
	var p Plan
	endLine, formatLine, seen := 0, 0, false
	for i, line := range strings.Split(text, "\n") {
		ln := i + 1
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		f := tokens(line)
		if len(f) == 0 {
			continue
		}
		errf := func(format string, args ...any) error {
			return fmt.Errorf("line %d: "+format, append([]any{ln}, args...)...)
		}
		if f[0] == "format" {
			if seen {
				if formatLine != 0 {
					return Plan{}, errf("second format line (the first is on line %d)", formatLine)
				}
				return Plan{}, errf("the format line must come before the first action")
			}
			if len(f) != 2 || f[1] != FormatVersion {
				return Plan{}, errf("unknown plan format %q: this simulator reads %q (want \"%s\")", strings.Join(f[1:], " "), FormatVersion, FormatLine)
			}
			formatLine, seen = ln, true
			continue
		}
		seen = true
		if f[0] == "end" {
			if len(f) != 2 {
				return Plan{}, errf("want \"end DUR\", e.g. end 60s")
			}
			if endLine != 0 {
				return Plan{}, errf("second end (the first is on line %d)", endLine)
			}
			d, err := parseDur(f[1])
			if err != nil {
				return Plan{}, errf("end %v", err)
			}
			p.End, endLine = d, ln
			continue
		}
		at, err := parseDur(f[0])
		if err != nil {
			return Plan{}, errf("time %v (a line is \"TIME VERB ARGS\" or \"end DUR\")", err)
		}
		if len(f) < 2 {
			return Plan{}, errf("missing action after the time (allowed: %s)", verbList())
		}
		parse := lookup(f[1])
		if parse == nil {
			return Plan{}, errf("unknown action %q (allowed: %s)", f[1], verbList())
		}
		a, err := parse(f[2:])
		if err != nil {
			return Plan{}, errf("%v", err)
		}
		p.Actions = append(p.Actions, Timed{At: at, Action: a, Line: ln})
	}
	p.EndLine = endLine
	if p.End != 0 {
		for i := range p.Actions {
			if a := &p.Actions[i]; a.At > p.End {
				return Plan{}, fmt.Errorf("line %d: action at %v is after the plan's end %v (line %d)", a.Line, a.At, p.End, endLine)
			}
		}
	}
	return p, nil
}

// tokens splits a line on white space and makes '|' and '>' tokens of
// their own, so "p1>b1" and "p1 > b1" read alike.
func tokens(line string) []string {
	line = strings.ReplaceAll(line, "|", " | ")
	line = strings.ReplaceAll(line, ">", " > ")
	return strings.Fields(line)
}

// parseDur parses a non-negative Go duration.
func parseDur(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 250ms, 3.2s, 1m30s)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative (allowed: >= 0)", s)
	}
	return d, nil
}

// parseNode checks a node name: a letter, then letters, digits, '_', '-'
// or '.'.
func parseNode(s string) (string, error) {
	ok := s != ""
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		ok = letter || i > 0 && (c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.')
	}
	if !ok {
		return "", fmt.Errorf("%q is not a node name (e.g. p1, b1, c1)", s)
	}
	return s, nil
}

// parseLink reads the tokens "FROM > TO" of a drop or reject: two
// different node names. verb prefixes the errors.
func parseLink(verb string, from, to string) (string, string, error) {
	f, err := parseNode(from)
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", verb, err)
	}
	t, err := parseNode(to)
	if err != nil {
		return "", "", fmt.Errorf("%s: %v", verb, err)
	}
	if f == t {
		return "", "", fmt.Errorf("%s: link %s>%s needs two different nodes", verb, f, t)
	}
	return f, t, nil
}
