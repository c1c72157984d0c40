package net

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParsePlan reads a plan's text: one action per line, "TIME VERB ARGS",
// with TIME a Go duration from the start of the run; "#" starts a comment;
// blank lines are ignored; "end DUR" (at most once) sets [Plan.End].
//
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
// The error names the offending line: "line 3: ...". ParsePlan checks
// syntax only; [Plan.Check] checks node names against a world.
func ParsePlan(text string) (Plan, error) {
	var p Plan
	endLine := 0
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
			return Plan{}, errf("missing action after the time (allowed: %s)", strings.Join(actionVerbs[:], ", "))
		}
		a := Action{At: at, Line: ln}
		args := f[2:]
		switch f[1] {
		case "pause":
			a.Kind = Pause
			if len(args) != 2 {
				return Plan{}, errf("want \"pause NODE DUR\", e.g. 3.2s pause p1 25s")
			}
			if a.Node, err = parseNode(args[0]); err != nil {
				return Plan{}, errf("pause: %v", err)
			}
			if a.For, err = parseDur(args[1]); err != nil {
				return Plan{}, errf("pause length %v", err)
			}
		case "crash":
			a.Kind = Crash
			if len(args) != 1 {
				return Plan{}, errf("want \"crash NODE\", e.g. 12s crash b1")
			}
			if a.Node, err = parseNode(args[0]); err != nil {
				return Plan{}, errf("crash: %v", err)
			}
		case "restart":
			a.Kind = Restart
			if len(args) < 1 || len(args) > 2 {
				return Plan{}, errf("want \"restart NODE [clean|unclean]\", e.g. 14s restart b1 clean")
			}
			if a.Node, err = parseNode(args[0]); err != nil {
				return Plan{}, errf("restart: %v", err)
			}
			if len(args) == 2 {
				switch args[1] {
				case "clean":
					a.Clean = true
				case "unclean":
				default:
					return Plan{}, errf("restart: %q is not allowed (allowed: clean, unclean)", args[1])
				}
			}
		case "partition", "heal", "partition-oneway", "heal-oneway":
			a.Kind, _ = verbKind(f[1])
			sep := "|"
			if a.Kind == PartitionOneWay || a.Kind == HealOneWay {
				sep = ">"
			}
			k := -1
			for j, t := range args {
				if t == sep {
					if k >= 0 {
						return Plan{}, errf("%s: more than one %q", f[1], sep)
					}
					k = j
				}
			}
			if k <= 0 || k == len(args)-1 {
				return Plan{}, errf("want \"%s A... %s B...\" with nodes on both sides, e.g. 5s %s p1 %s b1", f[1], sep, f[1], sep)
			}
			for j, t := range args {
				if j == k {
					continue
				}
				n, err := parseNode(t)
				if err != nil {
					return Plan{}, errf("%s: %v", f[1], err)
				}
				if j < k {
					a.A = append(a.A, n)
				} else {
					a.B = append(a.B, n)
				}
			}
			for _, x := range a.A {
				for _, y := range a.B {
					if x == y {
						return Plan{}, errf("%s: node %s is on both sides", f[1], x)
					}
				}
			}
		case "drop":
			a.Kind = Drop
			// Tokens: request|response N FROM > TO.
			if len(args) != 5 || args[3] != ">" {
				return Plan{}, errf("want \"drop request|response N CLIENT>SERVER\", e.g. 0s drop response 17 p1>b1")
			}
			switch args[0] {
			case "request":
				a.Dir = Request
			case "response":
				a.Dir = Response
			default:
				return Plan{}, errf("drop: %q is not allowed (allowed: request, response)", args[0])
			}
			n, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil || n < 1 {
				return Plan{}, errf("drop: request number %q is not allowed (allowed: an integer >= 1)", args[1])
			}
			a.N = n
			if a.From, err = parseNode(args[2]); err != nil {
				return Plan{}, errf("drop: %v", err)
			}
			if a.To, err = parseNode(args[4]); err != nil {
				return Plan{}, errf("drop: %v", err)
			}
			if a.From == a.To {
				return Plan{}, errf("drop: link %s>%s needs two different nodes", a.From, a.To)
			}
		case "drift":
			a.Kind = Drift
			if len(args) != 2 {
				return Plan{}, errf("want \"drift NODE ±Nppm\", e.g. 0s drift p1 +200ppm")
			}
			if a.Node, err = parseNode(args[0]); err != nil {
				return Plan{}, errf("drift: %v", err)
			}
			s, ok := strings.CutSuffix(args[1], "ppm")
			v, err := strconv.ParseInt(s, 10, 32)
			if !ok || err != nil || v <= -MaxDriftPPM || v > MaxDriftPPM {
				return Plan{}, errf("drift: %q is not allowed (allowed: -999999ppm..+1000000ppm)", args[1])
			}
			a.PPM = int32(v)
		case "reject":
			if a, err = parseReject(a, args); err != nil {
				return Plan{}, errf("%v", err)
			}
		default:
			return Plan{}, errf("unknown action %q (allowed: %s)", f[1], strings.Join(actionVerbs[:], ", "))
		}
		p.Actions = append(p.Actions, a)
	}
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

func verbKind(v string) (ActionKind, bool) {
	for i, n := range actionVerbs {
		if n == v {
			return ActionKind(i), true
		}
	}
	return 0, false
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

// parseReject reads a reject's tokens: N FROM > TO ERROR [partition K].
func parseReject(a Action, args []string) (Action, error) {
	a.Kind, a.Part = Reject, -1
	if (len(args) != 5 && len(args) != 7) || args[2] != ">" {
		return a, fmt.Errorf("want \"reject N CLIENT>SERVER ERROR [partition K]\", e.g. 0s reject 5 p1>b1 NOT_ENOUGH_REPLICAS")
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || n < 1 {
		return a, fmt.Errorf("reject: request number %q is not allowed (allowed: an integer >= 1)", args[0])
	}
	a.N = n
	if a.From, err = parseNode(args[1]); err != nil {
		return a, fmt.Errorf("reject: %v", err)
	}
	if a.To, err = parseNode(args[3]); err != nil {
		return a, fmt.Errorf("reject: %v", err)
	}
	if a.From == a.To {
		return a, fmt.Errorf("reject: link %s>%s needs two different nodes", a.From, a.To)
	}
	code := args[4]
	ok := code != ""
	for i := 0; ok && i < len(code); i++ {
		c := code[i]
		ok = c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9'
	}
	if !ok {
		return a, fmt.Errorf("reject: %q is not an error name (e.g. NOT_ENOUGH_REPLICAS)", code)
	}
	a.Code = code
	if len(args) == 7 {
		k, err := strconv.ParseInt(args[6], 10, 32)
		if args[5] != "partition" || err != nil || k < 0 {
			return a, fmt.Errorf("reject: want \"partition K\" with K >= 0 after the error, got %q", strings.Join(args[5:], " "))
		}
		a.Part = int32(k)
	}
	return a, nil
}
