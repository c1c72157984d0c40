package callpath

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Event is one recorded event of an instrumented run: a function entered
// (Kind 'E', File and Func name it), a function returning (Kind 'X') or a
// mark (Kind 'M': What was constructed in Func, in File).
type Event struct {
	Kind       byte
	File, Func string
	What       string
}

// ParseEvents reads the events the driver printed: one a line, "E", "X"
// or "M" and then the event's fields, separated by tabs. Lines of any
// other kind are returned separately, for the caller to read.
func ParseEvents(r io.Reader) (events []Event, other []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case f[0] == "E" && len(f) == 3:
			events = append(events, Event{Kind: 'E', File: f[1], Func: f[2]})
		case f[0] == "X" && len(f) == 1:
			events = append(events, Event{Kind: 'X'})
		case f[0] == "M" && len(f) == 4:
			events = append(events, Event{Kind: 'M', File: f[1], Func: f[2], What: f[3]})
		case f[0] == "E" || f[0] == "X" || f[0] == "M":
			return nil, nil, fmt.Errorf("malformed event line %q", sc.Text())
		default:
			other = append(other, sc.Text())
		}
	}
	return events, other, sc.Err()
}

// Step is where the path is after one event: in Func, in File. Return
// says it got there by a return from a callee; Mark names what a mark
// step marked.
type Step struct {
	File, Func string
	Return     bool
	Mark       string
}

// Path is the steps of a window and what they cross.
type Path struct {
	Steps []Step
	// Transitions counts the pairs of consecutive steps in different
	// files.
	Transitions int
	// Files are the distinct files of the steps, sorted.
	Files []string
	// Entries counts, by file, the transitions into it (a call into one
	// of its functions or a return into one).
	Entries map[string]int
}

// outside is the file of a step that returned out of every instrumented
// function: the driver's own code.
const outside = "(outside the instrumented files)"

// Window returns the path from the first entry of a function named from
// to the first mark of what after it, both steps included. A call is a
// step into the callee, a return a step back into its caller. The steps
// made inside a function named in cut are left out: the call into it and
// the return out of it stay, what it calls and the returns into it go.
func Window(events []Event, from, what string, cut ...string) (*Path, error) {
	return WindowN(events, 1, from, what, cut...)
}

// WindowN is [Window] from the n-th entry of from (n ≥ 1) to the n-th
// mark of what counted from the start of the run: the n-th record's
// round trip, when each entry of from takes one record and each mark is
// one record's outcome. The n-th mark must come after the n-th entry.
func WindowN(events []Event, n int, from, what string, cut ...string) (*Path, error) {
	if n < 1 {
		return nil, fmt.Errorf("window %d: the first is 1", n)
	}
	entries, marks := 0, 0
	var stack []Step
	var steps []Step
	in := false
	inCut := 0 // frames of cut functions on the stack
	isCut := func(fn string) bool {
		for _, c := range cut {
			if fn == c {
				return true
			}
		}
		return false
	}
	for _, e := range events {
		var s Step
		hidden := inCut > 0
		switch e.Kind {
		case 'E':
			s = Step{File: e.File, Func: e.Func}
			stack = append(stack, s)
			if isCut(e.Func) {
				inCut++
			}
		case 'X':
			if len(stack) == 0 {
				return nil, fmt.Errorf("a return with no function entered")
			}
			if isCut(stack[len(stack)-1].Func) {
				inCut--
			}
			stack = stack[:len(stack)-1]
			s = Step{File: outside, Return: true}
			if len(stack) > 0 {
				s = stack[len(stack)-1]
				s.Return = true
			}
			hidden = inCut > 0
		case 'M':
			s = Step{File: e.File, Func: e.Func, Mark: e.What}
			if len(stack) == 0 || stack[len(stack)-1].File != e.File || stack[len(stack)-1].Func != e.Func {
				return nil, fmt.Errorf("mark %s in %s:%s, but the function entered last is not that one", e.What, e.File, e.Func)
			}
		default:
			return nil, fmt.Errorf("unknown event kind %q", e.Kind)
		}
		if e.Kind == 'E' && e.Func == from {
			entries++
			in = in || entries == n
		}
		if e.Kind == 'M' && e.What == what {
			marks++
			if marks == n && !in {
				return nil, fmt.Errorf("mark %d of %s comes before entry %d of %s", n, what, n, from)
			}
		}
		if !in {
			continue
		}
		if e.Kind == 'M' && e.What == what && marks == n {
			return newPath(append(steps, s)), nil
		}
		if !hidden {
			steps = append(steps, s)
		}
	}
	if !in {
		return nil, fmt.Errorf("%d entries of %s recorded, not %d", entries, from, n)
	}
	return nil, fmt.Errorf("%d marks of %s recorded, not %d", marks, what, n)
}

func newPath(steps []Step) *Path {
	p := &Path{Steps: steps, Entries: map[string]int{}}
	files := map[string]bool{}
	for i, s := range steps {
		files[s.File] = true
		if i > 0 && s.File != steps[i-1].File {
			p.Transitions++
			p.Entries[s.File]++
		}
	}
	for f := range files {
		p.Files = append(p.Files, f)
	}
	sort.Strings(p.Files)
	return p
}

// Segment is a run of consecutive steps in one file.
type Segment struct {
	File string
	// Funcs are the functions of the segment's steps, a function once
	// for each run of steps in it.
	Funcs []string
}

// Segments cuts the path at its transitions: one more segment than there
// are transitions.
func (p *Path) Segments() []Segment {
	var segs []Segment
	for i, s := range p.Steps {
		if i == 0 || s.File != p.Steps[i-1].File {
			segs = append(segs, Segment{File: s.File})
		}
		g := &segs[len(segs)-1]
		if n := len(g.Funcs); n == 0 || g.Funcs[n-1] != s.Func {
			g.Funcs = append(g.Funcs, s.Func)
		}
	}
	return segs
}

// FileCount is a file and how many times the path enters it.
type FileCount struct {
	File    string
	Entries int
}

// ByEntries returns the files the path enters, most entered first (ties
// by name).
func (p *Path) ByEntries() []FileCount {
	var out []FileCount
	for f, n := range p.Entries {
		out = append(out, FileCount{f, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Entries != out[j].Entries {
			return out[i].Entries > out[j].Entries
		}
		return out[i].File < out[j].File
	})
	return out
}

// String writes the path as a report: the count, the files by entries,
// the segments (one line a transition), then every step.
func (p *Path) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d transitions over %d files, %d steps\n", p.Transitions, len(p.Files), len(p.Steps))
	b.WriteString("entries by file:\n")
	for _, fc := range p.ByEntries() {
		fmt.Fprintf(&b, "  %3d %s\n", fc.Entries, fc.File)
	}
	for _, f := range p.Files {
		if p.Entries[f] == 0 {
			fmt.Fprintf(&b, "  %3d %s (the start)\n", 0, f)
		}
	}
	b.WriteString("segments (each line after the first is one transition):\n")
	for i, g := range p.Segments() {
		fmt.Fprintf(&b, "  %3d %s: %s\n", i, g.File, strings.Join(g.Funcs, " "))
	}
	b.WriteString("steps (-> a call, <- a return, * a transition, ! the mark):\n")
	for i, s := range p.Steps {
		t := " "
		if i > 0 && s.File != p.Steps[i-1].File {
			t = "*"
		}
		dir := "->"
		switch {
		case s.Return:
			dir = "<-"
		case s.Mark != "":
			dir = "! " + s.Mark
		}
		fmt.Fprintf(&b, "  %4d %s %s %s:%s\n", i, t, dir, s.File, s.Func)
	}
	return b.String()
}
