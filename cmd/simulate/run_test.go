package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestExitCodesAndMessages(t *testing.T) {
	for _, c := range []struct {
		args    []string
		code    int
		stdout  string // substring
		stderrs string // substring of the one-line error
	}{
		{[]string{"-seed", "42", "-scenario", "ackloss"}, 0, "INV-DUP     ok", ""},
		{[]string{"-seed", "4", "-scenario", "ackloss", "-idempotence=false"}, 1, "reproduce: go run ./cmd/simulate -seed 4 -scenario ackloss -idempotence=false", ""},
		{[]string{"-list"}, 0, "ackloss", ""},
		{[]string{"-describe", "ackloss"}, 0, "expect with idempotence off", ""},
		{[]string{"-seed", "42"}, 2, "", "simulate: -scenario is required (known: ackloss"},
		{[]string{"-seed", "42", "-scenario", "nope"}, 2, "", `simulate: -scenario: unknown scenario "nope" (known: ackloss`},
		{[]string{"-seed", "-3", "-scenario", "ackloss"}, 2, "", `simulate: -seed "-3" is not allowed (allowed: an integer 0..18446744073709551615)`},
		{[]string{"-seed", "1", "-scenario", "ackloss", "-set", "net.response_loss=1.5"}, 2, "", "simulate: net.response_loss=1.5 is out of range (allowed: 0..1)"},
		{[]string{"-seed", "1", "-scenario", "ackloss", "-set", "bogus=1"}, 2, "", `simulate: unknown parameter "bogus"`},
		{[]string{"-seed", "1", "-scenario", "ackloss", "-set", "acks"}, 2, "", `invalid value "acks" for flag -set: want key=value`},
		{[]string{"-seed", "1", "-scenario", "ackloss", "-idempotence=true", "-set", "acks=1"}, 2, "", "simulate: enable.idempotence=true conflicts with acks=1"},
		{[]string{"-seed", "1", "-scenario", "ackloss", "extra"}, 2, "", `simulate: unexpected argument "extra"`},
		{[]string{"-nosuchflag"}, 2, "", "flag provided but not defined: -nosuchflag"},
		{[]string{"-h"}, 0, "", "usage: simulate -seed N -scenario NAME [flags]"},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != c.code {
			t.Errorf("simulate %v: exit %d, want %d\nstderr: %s", c.args, code, c.code, errOut)
			continue
		}
		if !strings.Contains(out, c.stdout) {
			t.Errorf("simulate %v: stdout lacks %q:\n%s", c.args, c.stdout, out)
		}
		if !strings.Contains(errOut, c.stderrs) {
			t.Errorf("simulate %v: stderr %q lacks %q", c.args, errOut, c.stderrs)
		}
		if c.code == 2 && strings.Contains(errOut, "goroutine") {
			t.Errorf("simulate %v: stack trace on stderr", c.args)
		}
	}
}

// TestImplicitConflictDisablesIdempotence: acks=1 with idempotence left at
// its default quietly turns it off, as Kafka does, and the report says so.
func TestImplicitConflictDisablesIdempotence(t *testing.T) {
	code, out, _ := runCLI("-seed", "1", "-scenario", "ackloss", "-set", "acks=1", "-json")
	if code == 2 {
		t.Fatalf("exit 2 for an implicit conflict")
	}
	var r struct {
		Idempotence bool     `json:"idempotence"`
		Notes       []string `json:"config_notes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Idempotence || len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "idempotence disabled implicitly: acks=1") {
		t.Fatalf("idempotence=%v notes=%v, want off with a note", r.Idempotence, r.Notes)
	}
}

func TestJSONFieldsAndDeterminism(t *testing.T) {
	_, a, _ := runCLI("-seed", "4", "-scenario", "ackloss", "-idempotence=false", "-json")
	_, b, _ := runCLI("-seed", "4", "-scenario", "ackloss", "-idempotence=false", "-json")
	if a != b {
		t.Fatal("two identical runs printed different JSON")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(a), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "seed", "idempotence", "trace_hash", "events", "sim_time_ns", "sent", "acked",
		"appended", "duplicates", "reordered", "lost_acked", "fenced", "zombie_writes", "errors", "violations", "bugs", "reproduce"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if m["duplicates"].(float64) < 1 {
		t.Errorf("seed 4 without idempotence: duplicates = %v, want >= 1", m["duplicates"])
	}
	vs := m["violations"].([]any)
	if len(vs) == 0 || vs[0].(map[string]any)["invariant"] != "INV-DUP" {
		t.Errorf("violations = %v, want INV-DUP first", vs)
	}
}

func TestTraceFlagPrintsTimeline(t *testing.T) {
	_, out, _ := runCLI("-seed", "4", "-scenario", "ackloss", "-idempotence=false", "-trace")
	if !strings.Contains(out, "timeline:") || !strings.Contains(out, "b1 append p0 pid=none n=1 [a0:8] off=13..13") {
		t.Fatalf("timeline missing or changed:\n%s", out)
	}
}

func TestScenarioFileFlag(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/study.yaml"
	if err := os.WriteFile(path, []byte("name: study\nbase: ackloss\nparams:\n  records: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("-scenario-file", path, "-seed", "3", "-json")
	if code == 2 || !strings.Contains(out, `"sent": 7`) || !strings.Contains(out, `"scenario": "study"`) {
		t.Fatalf("exit %d, stderr %q, out:\n%s", code, errOut, out)
	}
	if err := os.WriteFile(path, []byte("name: study\nbase: ackloss\nparams:\n  records: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI("-scenario-file", path, "-seed", "3")
	if code != 2 || !strings.Contains(errOut, "study.yaml:4: records=-1 is out of range (allowed: 1..1000000)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI("-scenario-file", dir+"/missing.yaml", "-seed", "3")
	if code != 2 || !strings.Contains(errOut, "simulate: -scenario-file: open") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestScenarioFilePlanErrorsNameFileLines(t *testing.T) {
	path := t.TempDir() + "/s.yaml"
	src := "name: study\nbase: ackloss\nparams:\n  records: 7\nplan: |\n  1s pause p1 2s\n  2s bogus b1\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI("-scenario-file", path, "-seed", "1")
	if code != 2 || !strings.Contains(errOut, "s.yaml:7: plan: unknown action \"bogus\"") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	good := strings.Replace(src, "  2s bogus b1\n", "  1.5s crash b1\n  2.5s restart b1 clean\n", 1)
	os.WriteFile(path, []byte(good), 0o644)
	code, out, errOut := runCLI("-scenario-file", path, "-seed", "1", "-trace")
	if code != 0 || !strings.Contains(out, "fault crash b1") {
		t.Fatalf("exit %d, stderr %q, out:\n%s", code, errOut, out)
	}
}

// TestDescribeSources: -describe prints every parameter's value and the
// level it came from, honouring -bug, -idempotence and -set.
func TestDescribeSources(t *testing.T) {
	code, out, errOut := runCLI("-describe", "seqreuse", "-bug", "Z11", "-set", "records=5", "-idempotence=true")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, re := range []string{
		`\(levels, weakest first: default, profile, scenario, preset, file, -bug, -set; see docs/parameters.md\)`,
		`\n  acks +all +default +\(all\|-1\|0\|1\): acks\n`,
		`\n  batch.size +1 records +scenario +\(1\.\.100000; default 16\): `,
		`\n  producer.bug.metaflap_reset +true +-bug Z11 +\(true\|false; default false\): `,
		`\n  records +5 records +-set +\(1\.\.1000000; default 40\): `,
		`\n  enable.idempotence +true +-set +`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("-describe output lacks %s", re)
		}
	}
	if code, _, errOut := runCLI("-describe", "ackloss", "-set", "records=0"); code != 2 || !strings.Contains(errOut, "simulate: records=0 is out of range") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestBugFlag: -bug IDs are reported as a list (text and JSON) and
// reproduced with -bug.
func TestBugFlag(t *testing.T) {
	code, out, _ := runCLI("-seed", "1", "-scenario", "seqreuse", "-bug", "Z11", "-json")
	var r struct {
		Bugs      []string         `json:"bugs"`
		Params    []map[string]any `json:"params"`
		Reproduce string           `json:"reproduce"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if code != 1 || len(r.Bugs) != 1 || r.Bugs[0] != "Z11" || r.Reproduce != "go run ./cmd/simulate -seed 1 -scenario seqreuse -bug Z11" {
		t.Errorf("exit %d, bugs %v, reproduce %q", code, r.Bugs, r.Reproduce)
	}
	for _, p := range r.Params {
		if p["key"] == "-bug" {
			t.Errorf("params hold -bug: %v", p)
		}
	}
	_, out, _ = runCLI("-seed", "1", "-scenario", "seqreuse", "-bug", "Z11")
	if !strings.Contains(out, "\nhistorical defects (-bug):\n  Z11     a metadata flap") || !strings.Contains(out, "reproduce: go run ./cmd/simulate -seed 1 -scenario seqreuse -bug Z11\n") {
		t.Errorf("report:\n%s", out)
	}
}

// TestPrecedenceOnTheCommandLine: the scenario file is weaker than -bug,
// which is weaker than -idempotence and -set.
func TestPrecedenceOnTheCommandLine(t *testing.T) {
	path := t.TempDir() + "/s.yaml"
	src := "name: study\nbase: seqreuse\nparams:\n  records: 30\n  producer.bug.metaflap_reset: false\n  enable.idempotence: false\n  linger.ms: 2\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runCLI("-scenario-file", path, "-seed", "1", "-bug", "Z11", "-idempotence=true", "-set", "records=25", "-json")
	var r struct {
		Idempotence bool        `json:"idempotence"`
		Params      []params.KV `json:"params"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	got := map[string]string{}
	for _, kv := range r.Params {
		got[kv.Key] = kv.Value
	}
	if !r.Idempotence || got["records"] != "25" || got["producer.bug.metaflap_reset"] != "true" || got["linger.ms"] != "2" {
		t.Errorf("idempotence %v, records %s, metaflap_reset %s, linger.ms %s", r.Idempotence, got["records"], got["producer.bug.metaflap_reset"], got["linger.ms"])
	}
}
