package main

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// long runs the documents' commands as printed, without quickArgs.
var long = flag.Bool("long", false, "run the documentation's commands at their documented sizes")

// docCommand is one command line of the documentation that runs the
// simulator.
type docCommand struct {
	file string   // README.md or docs/NAME.md
	line int      // 1-based line of the command's first line
	text string   // the command as printed, continuations joined
	args []string // simulate's arguments (after the program name)
	// out is the output the documentation shows for the command (lines
	// after a "$ " prompt, or the plain block right after the command's
	// block); "..." lines stand for omitted output.
	out []string
	// row is the rest of a table row that holds the command: what the
	// table says the command finds.
	row string
	// skip names why the command is not run (a synopsis, shell
	// variables, an external cluster); empty when it runs.
	skip string
}

// key is the command as printed without its comment: docExit's key.
func (c docCommand) key() string {
	return normSpace(regexp.MustCompile(`\s#.*$`).ReplaceAllString(c.text, ""))
}

// where is the command's file:line, for messages and subtest names.
func (c docCommand) where() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

// docFiles are the documents whose commands the test runs.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, filepath.ToSlash(filepath.Join("docs", filepath.Base(d))))
	}
	slices.Sort(files[1:])
	return files
}

// docBlock is a code block of a markdown file: fenced or indented.
type docBlock struct {
	lang  string // the fence's info string; "" for an indented block
	first int    // line number of the block's first content line
	lines []string
	row   string // for a table's command, the rest of its row
	// adjacent: only blank lines separate it from the previous block.
	adjacent bool
}

var (
	fenceLine    = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*(\\S*)")
	tableCommand = regexp.MustCompile("`((?:go run \\./cmd/simulate|simulate)(?: [^`]*)?)`")
)

// markdownBlocks splits src into its code blocks; a table row's
// backquoted simulate commands come back as one-line blocks of their own
// with lang "table".
func markdownBlocks(src string) []docBlock {
	lines := strings.Split(src, "\n")
	var (
		blocks   []docBlock
		lastEnd  = -10 // index of the line after the last block
		inFence  bool
		fence    string
		cur      *docBlock
		prevText string // the previous non-blank line outside blocks
	)
	blankSince := func(i int) bool {
		for j := lastEnd; j < i; j++ {
			if j >= 0 && strings.TrimSpace(lines[j]) != "" {
				return false
			}
		}
		return lastEnd >= 0
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if inFence {
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), fence[:1])) == "" {
				inFence = false
				blocks = append(blocks, *cur)
				cur = nil
				lastEnd = i + 1
				continue
			}
			cur.lines = append(cur.lines, l)
			continue
		}
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			inFence, fence = true, m[1]
			cur = &docBlock{lang: m[2], first: i + 2, adjacent: blankSince(i)}
			continue
		}
		if strings.HasPrefix(l, "    ") && strings.TrimSpace(l) != "" && strings.TrimSpace(prevText) == "" {
			// An indented block: after a blank line, not a list item's
			// continuation (which follows a list line without a blank).
			b := docBlock{first: i + 1, adjacent: blankSince(i)}
			for ; i < len(lines) && (strings.HasPrefix(lines[i], "    ") || strings.TrimSpace(lines[i]) == ""); i++ {
				b.lines = append(b.lines, strings.TrimPrefix(lines[i], "    "))
			}
			for len(b.lines) > 0 && strings.TrimSpace(b.lines[len(b.lines)-1]) == "" {
				b.lines = b.lines[:len(b.lines)-1]
			}
			blocks = append(blocks, b)
			lastEnd = i
			i--
			prevText = "x"
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "|") {
			for _, m := range tableCommand.FindAllStringSubmatch(l, -1) {
				_, rest, _ := strings.Cut(l, m[0])
				blocks = append(blocks, docBlock{lang: "table", first: i + 1, lines: []string{m[1]}, row: rest})
			}
		}
		prevText = l
		if strings.TrimSpace(l) == "" {
			prevText = ""
		}
	}
	return blocks
}

// docCommands extracts every simulate command of the markdown src, the
// document rel (its name in messages).
func docCommands(rel, src string) []docCommand {
	var cmds []docCommand
	var prevBlockCmd = -1 // index in cmds of the previous block's last command
	for _, b := range markdownBlocks(src) {
		before := len(cmds)
		hasPrompt := false
		for _, l := range b.lines {
			if strings.HasPrefix(strings.TrimSpace(l), "$ ") {
				hasPrompt = true
			}
		}
		var last *docCommand
		for i := 0; i < len(b.lines); i++ {
			l := strings.TrimSpace(b.lines[i])
			start := i
			prompt := strings.HasPrefix(l, "$ ")
			if hasPrompt && !prompt {
				if last != nil {
					last.out = append(last.out, strings.TrimRight(b.lines[i], " "))
				}
				continue
			}
			l = strings.TrimPrefix(l, "$ ")
			for strings.HasSuffix(l, "\\") && i+1 < len(b.lines) {
				i++
				l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(b.lines[i])
			}
			words, ok := docShellWords(l)
			if !ok {
				continue
			}
			args, isSim := simulateArgs(words)
			if !isSim {
				last = nil
				continue
			}
			c := docCommand{file: rel, line: b.first + start, text: l, args: args, row: b.row}
			if why := notRunnable(args); why != "" {
				c.skip = why
			}
			cmds = append(cmds, c)
			last = &cmds[len(cmds)-1]
		}
		if len(cmds) == before && b.adjacent && b.lang != "table" && prevBlockCmd >= 0 && len(cmds[prevBlockCmd].out) == 0 {
			// A plain block right after a command's block: its output.
			cmds[prevBlockCmd].out = append([]string(nil), b.lines...)
		}
		prevBlockCmd = -1
		if len(cmds) > before {
			prevBlockCmd = len(cmds) - 1
		}
	}
	return cmds
}

// docShellWords splits a command line as a POSIX shell would for the
// simple commands the docs print: quotes, backslashes, a # comment, and
// it stops at the first pipe, redirection, ; or &&, so that
// "simulate ... | tail -40" or "... > x" runs the simulate part.
func docShellWords(s string) (words []string, ok bool) {
	var (
		cur     strings.Builder
		inWord  bool
		quote   byte
		escaped bool
	)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case escaped:
			cur.WriteByte(ch)
			escaped = false
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case quote == '"':
			switch ch {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteByte(ch)
			}
		case ch == '\\':
			escaped, inWord = true, true
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '#' && !inWord:
			flush()
			return words, true
		case ch == '|' || ch == ';' || ch == '&' || ch == '<':
			flush()
			return words, true
		case ch == '>':
			// "2>" or ">" ends the command's words.
			if inWord && cur.String() == "2" {
				cur.Reset()
				inWord = false
			}
			flush()
			return words, true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	flush()
	return words, true
}

// simulateArgs returns the arguments of a simulate command line: one that
// starts with "go run ./cmd/simulate", "simulate", "./simulate" or
// "/PATH/simulate", possibly after "/usr/bin/time [-f FORMAT]".
func simulateArgs(w []string) ([]string, bool) {
	if len(w) > 0 && (w[0] == "time" || w[0] == "/usr/bin/time") {
		w = w[1:]
		if len(w) > 1 && w[0] == "-f" {
			w = w[2:]
		}
	}
	switch {
	case len(w) >= 3 && w[0] == "go" && w[1] == "run" && w[2] == "./cmd/simulate":
		return w[3:], true
	case len(w) >= 1 && (w[0] == "simulate" || strings.HasPrefix(w[0], "/") && strings.HasSuffix(w[0], "/simulate") || w[0] == "./simulate"):
		return w[1:], true
	}
	return nil, false
}

var placeholder = regexp.MustCompile(`^[A-Z][A-Z_]*(:[A-Z_]+)?$|[\[\]{}$*]|\.\.\.|^i/n$|^key=|=FROM:|^-bootstrap$`)

// notRunnable says why a command cannot run as printed: a synopsis with
// placeholders, shell variables or globs, or an external cluster.
func notRunnable(args []string) string {
	for i, a := range args {
		if a == "-client" && i+1 < len(args) && args[i+1] == "librdkafka" {
			return "needs a build with -tags librdkafka"
		}
		if placeholder.MatchString(a) {
			if a == "-bootstrap" {
				return "needs a Kafka cluster (-bootstrap)"
			}
			return fmt.Sprintf("synopsis or shell template (%q)", a)
		}
	}
	return ""
}

// docExit names the documented commands that do not exit 0, by the text
// the document prints: runs documented to find a violation exit 1. A
// command whose shown output has a "simulate: " error line is a
// documented refusal and must exit 2 with that line; an exploration's
// table row that names a counterexample ("INV-DUP with 1 fault") must
// exit 1. Every other command must exit 0.
var docExit = map[string]int{
	// README.md: the run of "What a run looks like", the history of
	// that run, the replicated acks=1 failure and the shrink example.
	"go run ./cmd/simulate -seed 4 -scenario ackloss -idempotence=false":                                                                               exitViolation,
	"go run ./cmd/simulate -seed 4 -scenario ackloss -idempotence=false -history h.edn":                                                                exitViolation,
	"go run ./cmd/simulate -seed 1 -scenario acks1 -idempotence=false -trace":                                                                          exitViolation,
	"go run ./cmd/simulate -seed 539 -scenario zombie -set app.mode=at-least-once -set fault.count=2 -shrink -diagram zombie.mmd -timeline zombie.svg": exitViolation,
	// docs/explain.md: the same shrink, and a shrink drawn as a timeline.
	"simulate -seed 539 -scenario zombie -set app.mode=at-least-once -set fault.count=2 -shrink -diagram zombie.mmd -timeline zombie.svg": exitViolation,
	"simulate -seed 1 -scenario zombie -idempotence=false -set fault.count=6 -shrink -diagram z.mmd -timeline z.svg":                      exitViolation,
	// docs/explore.md: both explorations of ackloss find a counterexample.
	"go run ./cmd/simulate -explore -scenario ackloss -set records=3 -max-faults 2":                    exitViolation,
	"go run ./cmd/simulate -explore -scenario ackloss -idempotence=false -set records=3 -max-faults 2": exitViolation,
	// docs/history.md: the README's run with a JSON lines history.
	"go run ./cmd/simulate -seed 4 -scenario ackloss -idempotence=false -history h.jsonl": exitViolation,
}

// quickRuns is what -runs becomes (without -long) in a documented command
// that shows no output: enough runs to exercise the command, few enough
// that every documented command runs in seconds.
var quickRuns = map[string]int{
	"":          2, // a sweep (per point and mode)
	"selfcheck": 20,
	"validate":  2,
}

// quickBudget is what a validate command's -budget becomes (without
// -long): a validate -all or -runs auto runs its cells' simulated sides
// and a first real run or two within it, and exits 0 with a partial
// report, as with its documented budget of minutes.
const quickBudget = time.Second

// quickArgs rewrites a documented command to a quick variant of itself
// (see quickRuns; a million records become 2,000), unless -long. It
// returns the arguments and what it changed.
func quickArgs(c docCommand) ([]string, string) {
	args := slices.Clone(c.args)
	if *long || len(c.out) > 0 {
		return args, ""
	}
	sub := ""
	if len(args) > 0 && (args[0] == "selfcheck" || args[0] == "validate") {
		sub = args[0]
	}
	var changed []string
	for i := 0; i+1 < len(args); i++ {
		switch {
		case args[i] == "-runs" && !slices.Contains(args, "-explore"):
			n, err := strconv.Atoi(args[i+1])
			if q := quickRuns[sub]; err == nil && n > q {
				changed = append(changed, fmt.Sprintf("-runs %d", q))
				args[i+1] = strconv.Itoa(q)
			}
		case sub == "validate" && args[i] == "-budget":
			// -runs auto and -all run until their budget ends:
			// quickBudget's, which they wait out (a 2 s budget made
			// the validate commands about 20 s of the test).
			if d, err := time.ParseDuration(args[i+1]); err == nil && d > quickBudget {
				changed = append(changed, "-budget "+quickBudget.String())
				args[i+1] = quickBudget.String()
			}
		case sub == "validate" && args[i] == "-o" && strings.Contains(args[i+1], "/"):
			// The scoreboard's file, in the test's directory.
			args[i+1] = filepath.Base(args[i+1])
			changed = append(changed, "-o "+args[i+1])
		case args[i] == "-set" && args[i+1] == "records=1000000":
			args[i+1] = "records=2000"
			changed = append(changed, args[i+1])
		}
	}
	if sub == "validate" && !slices.Contains(args, "-budget") && (slices.Contains(args, "-all") || slices.Contains(args, "auto")) {
		// Their default budget is minutes.
		args = append(args, "-budget", quickBudget.String())
		changed = append(changed, "-budget "+quickBudget.String())
	}
	if sub == "validate" && len(changed) > 0 {
		args = append(args, "-sim-runs", "4")
		changed = append(changed, "-sim-runs 4")
	}
	return args, strings.Join(changed, ", ")
}

// wantExit is the exit status the documentation implies for c.
func wantExit(c docCommand) (int, string) {
	for _, l := range c.out {
		if strings.HasPrefix(l, "simulate: ") {
			return exitUsage, "its shown output is a refusal"
		}
	}
	if m := commentExit.FindStringSubmatch(c.text); m != nil {
		code, _ := strconv.Atoi(m[1])
		return code, "its comment says " + m[0][strings.Index(m[0], "exit"):]
	}
	if code, ok := docExit[c.key()]; ok {
		return code, "docExit"
	}
	if regexp.MustCompile(`INV-\S+ (and \S+ )?with \d+ fault`).MatchString(c.row) {
		return exitViolation, "its table row names a counterexample"
	}
	return exitOK, "no violation or refusal documented"
}

// commentExit is an exit status a command's comment states.
var commentExit = regexp.MustCompile(`\s#.*\bexit (\d+)`)

// checkComment checks the figures a command's comment states: "duplicates
// N" of a run, "no violation" of a sweep.
func checkComment(t *testing.T, c docCommand, out string) {
	t.Helper()
	_, comment, ok := strings.Cut(c.text, " #")
	if !ok {
		return
	}
	if m := regexp.MustCompile(`\bduplicates (\d+)`).FindStringSubmatch(comment); m != nil &&
		!regexp.MustCompile(`(?m)^\s+duplicates\s+`+m[1]+`$`).MatchString(out) {
		t.Errorf("%s: the comment says %q; `%s` prints:\n%s", c.where(), m[0], c.key(), out)
	}
	if strings.Contains(comment, "no violation") && slices.Contains(c.args, "-runs") &&
		!regexp.MustCompile(`(?m)^\s+any violation\s+0 .*\s0 `).MatchString(out) {
		t.Errorf("%s: the comment says no violation; `%s` prints:\n%s", c.where(), c.key(), out)
	}
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// shownFiles are the files a document shows in full: a code block whose
// first line is a comment "# NAME.EXT" (the README's study.yaml).
func shownFiles(src string) map[string][]byte {
	files := map[string][]byte{}
	name := regexp.MustCompile(`^# ([\w.-]+\.\w+)$`)
	for _, b := range markdownBlocks(src) {
		if len(b.lines) > 0 {
			if m := name.FindStringSubmatch(b.lines[0]); m != nil {
				files[m[1]] = []byte(strings.Join(b.lines, "\n") + "\n")
			}
		}
	}
	return files
}

// provideInputs writes into the current directory the input files args
// name: a file an earlier command of the same document wrote, or one a
// document shows; a directory argument (DIR/) gets the shown files.
func provideInputs(t *testing.T, args []string, produced, shown map[string][]byte) {
	t.Helper()
	for i := 0; i+1 < len(args); i++ {
		name := args[i+1]
		switch {
		case args[i] == "-o" && slices.Contains(args, "-only"):
			// validate -all -only rewrites the scoreboard an earlier
			// command of the document wrote (quickArgs keeps its base).
			name = filepath.Base(name)
		case args[i] != "-plan-file" && args[i] != "-scenario-file":
			continue
		}
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(name, 0o755); err != nil {
				t.Fatal(err)
			}
			for f, b := range shown {
				if err := os.WriteFile(filepath.Join(name, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		b, ok := produced[name]
		if !ok {
			b, ok = shown[name]
		}
		if ok {
			if err := os.WriteFile(name, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// collectOutputs adds the regular files of the current directory to
// produced, for later commands of the same document to read.
func collectOutputs(t *testing.T, produced map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() < 1<<20 {
			b, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			produced[e.Name()] = b
		}
	}
}

// missingLines returns the first shown line that is not in got, in
// order; "..." lines of the shown output stand for any number of lines,
// and trailing spaces do not count.
func missingLines(shown []string, got string) (string, bool) {
	gotLines := strings.Split(got, "\n")
	j := 0
	for _, s := range shown {
		s = strings.TrimRight(s, " ")
		if strings.TrimSpace(s) == "..." || s == "" {
			continue
		}
		for j < len(gotLines) && strings.TrimRight(gotLines[j], " ") != s {
			j++
		}
		if j == len(gotLines) {
			return s, true
		}
		j++
	}
	return "", false
}

// TestDocCommands runs every simulate command of README.md and docs/*.md
// (fenced and indented code blocks, and backquoted commands in tables) in
// a temporary directory, each with the exit status the document implies,
// and checks the output the document shows for it. Without -long, sweeps,
// selfchecks and validations run with fewer runs (quickArgs).
func TestDocCommands(t *testing.T) {
	usedExit := map[string]bool{}
	ran := 0
	srcs := map[string]string{}
	shown := map[string][]byte{}
	for _, f := range docFiles(t) {
		src, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		srcs[f] = string(src)
		maps.Copy(shown, shownFiles(string(src)))
	}
	for _, f := range docFiles(t) {
		produced := map[string][]byte{}
		for _, c := range docCommands(f, srcs[f]) {
			if c.skip != "" {
				t.Logf("%s: not run: %s: %s", c.where(), c.skip, c.text)
				continue
			}
			usedExit[c.key()] = true
			ran++
			t.Run(c.where(), func(t *testing.T) {
				t.Chdir(t.TempDir())
				provideInputs(t, c.args, produced, shown)
				if slices.Contains(c.args, "-subprocess") {
					useTestBinaryAsChild(t)
				}
				args, changed := quickArgs(c)
				want, why := wantExit(c)
				var o, e bytes.Buffer
				code := run(args, &o, &e)
				collectOutputs(t, produced)
				as := ""
				if changed != "" {
					as = " (run with " + changed + ")"
				}
				if code != want {
					t.Fatalf("%s: `%s`%s exits %d, the document implies %d (%s)\nstderr: %s", c.where(), c.text, as, code, want, why, lastLines(e.String(), 5))
				}
				if len(c.out) > 0 {
					if l, missing := missingLines(c.out, o.String()+e.String()); missing {
						t.Errorf("%s: `%s` does not print, in the document's order, the line\n\t%s\nactual output:\n%s%s", c.where(), c.text, l, o.String(), e.String())
					}
				}
				if len(c.out) > 0 && want == exitUsage && strings.Count(strings.TrimSpace(e.String()), "\n") != 0 {
					t.Errorf("%s: the refusal is not one line: %s", c.where(), e.String())
				}
				checkTableRow(t, c, o.String())
				checkComment(t, c, o.String())
				if slices.Contains(c.args, "-shrink") {
					checkShrinkProse(t, c, srcs[c.file], o.String())
				}
			})
		}
		checkDiagrams(t, f, srcs[f], produced)
	}
	for k := range docExit {
		if !usedExit[k] {
			t.Errorf("docExit names a command no document prints: %s", k)
		}
	}
	if ran < 40 {
		t.Errorf("only %d documented commands ran; the extraction lost some", ran)
	}
}

// checkTableRow checks the figures an exploration's table row names: the
// schedules explored and the counterexample's invariant and faults.
func checkTableRow(t *testing.T, c docCommand, out string) {
	t.Helper()
	if c.row == "" || !slices.Contains(c.args, "-explore") {
		return
	}
	if m := regexp.MustCompile(`([\d,]+) schedules`).FindStringSubmatch(c.row); m != nil && !strings.Contains(out, "explored "+m[1]+" schedules") {
		t.Errorf("%s: the table says %s schedules; `%s` prints:\n%s", c.where(), m[1], c.text, out)
	}
	if m := regexp.MustCompile(`(INV-\S+) (?:and \S+ )?with (\d+) faults?`).FindStringSubmatch(c.row); m != nil && !strings.Contains(out, "counterexample: "+m[1]+" with "+m[2]+" fault") {
		t.Errorf("%s: the table says %s with %s fault(s); `%s` prints:\n%s", c.where(), m[1], m[2], c.text, out)
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// checkDiagrams: a Mermaid block of a document is an excerpt, in order,
// of a diagram one of the document's commands wrote.
func checkDiagrams(t *testing.T, file, src string, produced map[string][]byte) {
	t.Helper()
	for _, b := range markdownBlocks(src) {
		if b.lang != "mermaid" {
			continue
		}
		found, drawn := false, false
		for name, content := range produced {
			if strings.HasSuffix(name, ".mmd") {
				drawn = true
				if _, missing := missingLines(b.lines, string(content)); !missing {
					found = true
				}
			}
		}
		switch {
		case !drawn:
			t.Logf("%s:%d: no command of the document draws a diagram to compare the Mermaid block with", file, b.first)
		case !found:
			t.Errorf("%s:%d: the Mermaid block is not an excerpt of any diagram the document's commands write", file, b.first)
		}
	}
}

// shrinkProse is how a document states a shrink's figures in prose: "the
// seed's 4 actions shrink to one 1-second pause of `p1` in 28 runs".
var shrinkProse = regexp.MustCompile("the seed's (\\d+) actions shrink to one\\s+(\\S+)-second pause of `(\\w+)` in (\\d+) runs")

// checkShrinkProse checks the figures a document states in prose for its
// shrink command against the command's output.
func checkShrinkProse(t *testing.T, c docCommand, src, out string) {
	t.Helper()
	if c.file == "README.md" && !shrinkProse.MatchString(src) {
		t.Errorf("README.md no longer states its shrink example's figures as shrinkProse reads them; update the test")
	}
	for _, m := range shrinkProse.FindAllStringSubmatch(src, -1) {
		for _, want := range []string{
			"minimal plan (1 of " + m[1] + " actions):",
			" pause " + m[3] + " " + m[2] + "s\n",
			"runs: " + m[4] + " of ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the document says %q, but `%s` does not print %q:\n%s", c.where(), m[0], c.text, strings.TrimSpace(want), out)
			}
		}
	}
}

// docErrorLines are the commands behind the "simulate: ..." lines the
// documents print without their command: docs/plans.md shows the error of
// a hand-edited p.txt, not the file, and docs/sweeps.md what -force says
// before it replaces an earlier output. Each runs its before commands,
// then its command, on its p.txt.
var docErrorLines = map[string]struct {
	before [][]string
	args   []string
	file   string // p.txt's content
	code   int
}{
	`simulate: -plan-file p.txt: line 2: pause length "soon" is not a duration (e.g. 250ms, 3.2s, 1m30s)`: {
		args: []string{"-seed", "42", "-scenario", "ackloss", "-set", "fault.count=8", "-plan-file", "p.txt"}, file: "format 1\n1s pause p1 soon\n", code: exitUsage},
	`simulate: -plan-file p.txt: line 1: unknown plan format "2": this simulator reads "1" (want "format 1")`: {
		args: []string{"-seed", "42", "-scenario", "ackloss", "-set", "fault.count=8", "-plan-file", "p.txt"}, file: "format 2\n1s pause p1 1s\n", code: exitUsage},
	`simulate: -plan-file p.txt: line 2: time 2s is earlier than line 1's 3s (allowed: lines in time order, each at or after the one before)`: {
		args: []string{"-seed", "1", "-scenario", "ackloss", "-plan-file", "p.txt"}, file: "3s crash b1\n2s restart b1\n", code: exitUsage},
	`simulate: -plan-file p.txt: line 1: time 1000000h0m0s is after the run's time limit 5m4s (allowed: up to 5m4s: the last send 2s plus delivery.timeout.ms 2m0s, then delivery.timeout.ms 2m0s, two request.timeout.ms 1s and 1m0s to converge)`: {
		args: []string{"-seed", "1", "-scenario", "ackloss", "-plan-file", "p.txt"}, file: "1000000h pause p1 1s\n", code: exitUsage},
	`simulate: -force: out holds an earlier output; its 7 files (failing.tsv, index.html, latency_cdf.png, latency_cdf.svg, report.md, runs.csv, summary.json) are replaced when this command completes`: {
		before: [][]string{{"-scenario", "ackloss", "-runs", "2", "-out", "out"}},
		args:   []string{"-scenario", "ackloss", "-runs", "2", "-out", "out", "-force"}, code: exitOK},
}

// TestDocErrorLines: every "simulate: ..." line a document prints in a
// code block without its command is a line of what the command of
// docErrorLines prints on stderr, with its exit status (a refusal: one
// line, exit status 2).
func TestDocErrorLines(t *testing.T) {
	used := map[string]bool{}
	for _, f := range docFiles(t) {
		src, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		shownOut := map[string]bool{}
		for _, c := range docCommands(f, string(src)) {
			for _, l := range c.out {
				shownOut[strings.TrimSpace(l)] = true
			}
		}
		for _, b := range markdownBlocks(string(src)) {
			for i, l := range b.lines {
				l = strings.TrimSpace(l)
				if !strings.HasPrefix(l, "simulate: ") || shownOut[l] {
					continue
				}
				r, ok := docErrorLines[l]
				if !ok {
					t.Errorf("%s:%d: the line %q has no command in the document and none in docErrorLines", f, b.first+i, l)
					continue
				}
				used[l] = true
				t.Run(fmt.Sprintf("%s:%d", f, b.first+i), func(t *testing.T) {
					t.Chdir(t.TempDir())
					if r.file != "" {
						if err := os.WriteFile("p.txt", []byte(r.file), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					for _, args := range r.before {
						if code, _, e := runCLI(args...); code != exitOK {
							t.Fatalf("simulate %s: exit %d: %s", strings.Join(args, " "), code, e)
						}
					}
					code, _, e := runCLI(r.args...)
					lines := strings.Split(strings.TrimSpace(e), "\n")
					if code != r.code || !slices.Contains(lines, l) || code == exitUsage && len(lines) != 1 {
						t.Errorf("%s:%d: simulate %s exits %d and prints\n\t%s\nthe document says exit status %d and\n\t%s", f, b.first+i, strings.Join(r.args, " "), code, strings.TrimSpace(e), r.code, l)
					}
				})
			}
		}
	}
	for l := range docErrorLines {
		if !used[l] {
			t.Errorf("docErrorLines names a line no document prints: %s", l)
		}
	}
}

// TestDocCommandExtraction: the extraction finds commands in fenced,
// indented and table blocks, joins continuations, honours quotes, stops
// at pipes, redirections and comments, and takes a prompt's following
// lines, or a plain block right after the block of a command (its last),
// as its output.
func TestDocCommandExtraction(t *testing.T) {
	src := "# T\n\n```sh\n" +
		"go run ./cmd/simulate -seed 1 \\\n    -scenario ackloss | tail -40   # one\n" +
		"simulate -set 'a=b c' -set \"d=e\\\"f\" > x\n" +
		"go test ./...\n" +
		"```\n\n" +
		"```text\nline one\n...\n```\n\n" +
		"Prose:\n\n    $ simulate -list\n    out 1\n    out 2\n\n" +
		"- a list\n    simulate -not-a-block\n\n" +
		"| a | b |\n|---|---|\n| x | `simulate -explore -scenario restart` | INV-DUP with 1 fault, 105 schedules |\n" +
		"\n```\nsimulate -seed N -scenario NAME [flags]\n/usr/bin/time -f '%e s' /tmp/simulate -version\n```\n"
	cmds := docCommands("T.md", src)
	var got []string
	for _, c := range cmds {
		got = append(got, fmt.Sprintf("%d %q out=%q row=%q skip=%v", c.line, c.args, c.out, strings.TrimSpace(c.row), c.skip != ""))
	}
	want := []string{
		`4 ["-seed" "1" "-scenario" "ackloss"] out=[] row="" skip=false`,
		`6 ["-set" "a=b c" "-set" "d=e\"f"] out=["line one" "..."] row="" skip=false`,
		`17 ["-list"] out=["out 1" "out 2"] row="" skip=false`,
		`26 ["-explore" "-scenario" "restart"] out=[] row="| INV-DUP with 1 fault, 105 schedules |" skip=false`,
		`29 ["-seed" "N" "-scenario" "NAME" "[flags]"] out=[] row="" skip=true`,
		`30 ["-version"] out=[] row="" skip=false`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if l, missing := missingLines([]string{"a", "...", "c"}, "a\nb\nc\n"); missing {
		t.Errorf("missingLines: %q reported missing", l)
	}
	if _, missing := missingLines([]string{"c", "a"}, "a\nb\nc\n"); !missing {
		t.Error("missingLines: lines out of order not reported")
	}
}

// TestDocVersionTable: the table of docs/versions.md that counts hanging's
// violations by Kafka version is what its command prints for each
// version, idempotence on.
func TestDocVersionTable(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "versions.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	const header = "| kafka.version | INV-FENCE | LIVE-LSO | LIVE-PROD |"
	i := strings.Index(text, header)
	if i < 0 {
		t.Fatal("docs/versions.md has no table of hanging's violations by version")
	}
	cmd := regexp.MustCompile("(?m)^\\$ go run \\./cmd/simulate (-scenario hanging -runs (\\d+) .*-set kafka\\.version=)\\S+$").FindStringSubmatch(text[i:])
	if cmd == nil {
		t.Fatal("docs/versions.md has no hanging sweep after its table")
	}
	invs := strings.Fields(strings.ReplaceAll(strings.Trim(header, "| "), "|", ""))[1:]
	rows := regexp.MustCompile(`(?m)^\| (\d\.\d+) \| (\d+) \| (\d+) \| (\d+) \|$`).FindAllStringSubmatch(text[i:], -1)
	if len(rows) < 2 {
		t.Fatalf("docs/versions.md's table has %d rows", len(rows))
	}
	for _, r := range rows {
		args := strings.Fields(cmd[1] + r[1])
		code, out, e := runCLI(args...)
		if code != exitOK {
			t.Fatalf("simulate %s: exit %d: %s", strings.Join(args, " "), code, e)
		}
		for k, inv := range invs {
			// The row is "  INV  off-count  off%  [interval]  on-count ...".
			m := regexp.MustCompile(`(?m)^\s+` + inv + `\s+\d+ +\S+ +\[[^]]*\] +(\d+) `).FindStringSubmatch(out)
			if m == nil || m[1] != r[k+2] {
				t.Errorf("docs/versions.md: kafka.version %s: %s is %s in the table; simulate %s prints:\n%s", r[1], inv, r[k+2], strings.Join(args, " "), out)
			}
		}
	}
}
