package explain

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/params"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// mermaidGrammar is the subset of Mermaid's sequence-diagram syntax that
// WriteMermaid emits; every line of a diagram must match one rule.
var mermaidGrammar = struct {
	header, comment, participant, message, note *regexp.Regexp
}{
	header:      regexp.MustCompile(`^sequenceDiagram$`),
	comment:     regexp.MustCompile(`^    %% [^\n]*$`),
	participant: regexp.MustCompile(`^    participant ([A-Za-z][A-Za-z0-9_]*)$`),
	message:     regexp.MustCompile(`^    ([A-Za-z][A-Za-z0-9_]*)(->>|-->>|-x)([A-Za-z][A-Za-z0-9_]*): ([^;#:{}<>%\n]+)$`),
	note:        regexp.MustCompile(`^    Note over ([A-Za-z][A-Za-z0-9_]*)(?:,([A-Za-z][A-Za-z0-9_]*))?: ([^;#:{}<>%\n]+)$`),
}

// checkMermaid validates a diagram against mermaidGrammar: a header, then
// participants, then messages and notes between declared participants.
func checkMermaid(t *testing.T, text string) {
	t.Helper()
	g := mermaidGrammar
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) == 0 || !g.header.MatchString(lines[0]) {
		t.Fatalf("line 1: want sequenceDiagram, got %q", lines[0])
	}
	declared := map[string]bool{}
	inBody := false
	for i, ln := range lines[1:] {
		var names []string
		switch {
		case g.comment.MatchString(ln):
			continue
		case g.participant.MatchString(ln):
			if inBody {
				t.Errorf("line %d: participant after the first message: %q", i+2, ln)
			}
			declared[g.participant.FindStringSubmatch(ln)[1]] = true
			continue
		case g.message.MatchString(ln):
			m := g.message.FindStringSubmatch(ln)
			names = []string{m[1], m[3]}
		case g.note.MatchString(ln):
			m := g.note.FindStringSubmatch(ln)
			names = []string{m[1]}
			if m[2] != "" {
				names = append(names, m[2])
			}
		default:
			t.Errorf("line %d does not parse: %q", i+2, ln)
			continue
		}
		inBody = true
		for _, n := range names {
			if !declared[n] {
				t.Errorf("line %d: undeclared participant %s: %q", i+2, n, ln)
			}
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./scenarios/explain -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (rerun with -update and review the diff):\n%s", path, got)
	}
}

func diagram(t *testing.T, spec scenarios.Spec, max int) []byte {
	t.Helper()
	rec := Record(&spec)
	r, err := scenarios.Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteMermaid(&b, rec.Log(), MermaidTitle(r), max); err != nil {
		t.Fatal(err)
	}
	checkMermaid(t, b.String())
	checkViolationNotes(t, b.String())
	return b.Bytes()
}

// violationNote matches a violation note: its time and invariant.
var violationNote = regexp.MustCompile(`: (\[[^]]*\]) VIOLATED (\S+)`)

// checkViolationNotes: an invariant broken several times at one instant
// has one note, which counts them.
func checkViolationNotes(t *testing.T, text string) {
	t.Helper()
	seen := map[string]bool{}
	for _, ln := range strings.Split(text, "\n") {
		m := violationNote.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		if key := m[1] + " " + m[2]; seen[key] {
			t.Errorf("%s noted again: %q", key, ln)
		}
		seen[m[1]+" "+m[2]] = true
	}
}

// TestMermaidGolden: the diagrams of the shrunk zombie run (short, whole),
// of an ackloss run cut to the window around its failure and of a zombie
// run without idempotence that breaks two invariants many times at once.
// The zombie runs keep the synthetic input and pause.at of their
// recording (zombie reads an input topic by default since): the
// writer's shapes, many sends in flight broken at one instant, need it.
func TestMermaidGolden(t *testing.T) {
	zombie, _ := scenarios.Lookup("zombie")
	golden(t, "zombie-shrunk.mmd", diagram(t, scenarios.Spec{Scenario: zombie, Seed: 539, Sets: kv("app.mode", "at-least-once", "fault.count", "2", "app.input", "synthetic", "pause.at", "2.9s"),
		PlanText: "3.015s pause p1 1s\nend 2m6s\n"}, 0))
	ackloss, _ := scenarios.Lookup("ackloss")
	golden(t, "ackloss-window.mmd", diagram(t, scenarios.Spec{Scenario: ackloss, Seed: 3, Sets: kv("enable.idempotence", "false", "fault.count", "2")}, 40))
	// Seven duplicates and eight reorderings found at one instant: one
	// note each, with the count and the first one's detail.
	dups := diagram(t, scenarios.Spec{Scenario: zombie, Seed: 1, Sets: kv("enable.idempotence", "false", "fault.count", "6", "app.input", "synthetic", "pause.at", "2.9s")}, 0)
	golden(t, "zombie-dups.mmd", dups)
	for _, want := range []string{"] VIOLATED INV-DUP ×7, first a0.30 again at p0 offset 61 ", "] VIOLATED INV-ORDER ×8, first a0.42 appended"} {
		if !bytes.Contains(dups, []byte(want)) {
			t.Errorf("zombie-dups.mmd lacks %q", want)
		}
	}
}

// TestMermaidGrammar: diagrams of many runs, faults of every kind
// included, parse; and the checker rejects what Mermaid would misread.
func TestMermaidGrammar(t *testing.T) {
	for seed := range uint64(8) {
		for _, name := range []string{"ackloss", "zombie", "reorder"} {
			sc, _ := scenarios.Lookup(name)
			diagram(t, scenarios.Spec{Scenario: sc, Seed: seed, Sets: kv("fault.count", "6", "net.request_loss", "0.02")}, 0)
		}
	}
	for _, bad := range []string{"    p1->>b1: a;b", "    p1->>b1: a#b", "    Note over p1: x: y", "    p9->>b1: x"} {
		ok := true
		for _, re := range []*regexp.Regexp{mermaidGrammar.message, mermaidGrammar.note} {
			if m := re.FindStringSubmatch(bad); m != nil && m[1] != "p9" {
				ok = false
			}
		}
		if !ok {
			t.Errorf("grammar accepts %q", bad)
		}
	}
}

// kv returns pairs as -set values.
func kv(pairs ...string) []params.KV {
	out := make([]params.KV, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, params.KV{Key: pairs[i], Value: pairs[i+1]})
	}
	return out
}
