package scenarios

import (
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

func TestParseScenarioFile(t *testing.T) {
	good := `# a study
name: slow-acks
base: ackloss
summary: acks lost on a slow link
params:
  net.response_loss: 0.1
  net.latency.base: 20ms
  records: 50
plan: |
  3s pause p1 2s
`
	fs, err := ParseScenarioFile("my.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if fs.Scenario.Name != "slow-acks" || fs.Scenario.Summary != "acks lost on a slow link" {
		t.Fatalf("scenario %q %q", fs.Scenario.Name, fs.Scenario.Summary)
	}
	want := []params.KV{{Key: "net.response_loss", Value: "0.1"}, {Key: "net.latency.base", Value: "20ms"}, {Key: "records", Value: "50"}}
	if len(fs.Sets) != 3 || fs.Sets[0] != want[0] || fs.Sets[1] != want[1] || fs.Sets[2] != want[2] {
		t.Fatalf("sets %v, want %v", fs.Sets, want)
	}
	if fs.Plan != "3s pause p1 2s\n" || fs.PlanLine != 10 {
		t.Fatalf("plan %q at line %d, want line 10", fs.Plan, fs.PlanLine)
	}
	// The file's parameters run.
	r, err := Run(Spec{Scenario: fs.Scenario, Seed: 1, Sets: fs.Sets})
	if err != nil || r.Sent != 50 || r.Scenario != "slow-acks" {
		t.Fatalf("run: %v sent=%d scenario=%q", err, r.Sent, r.Scenario)
	}
}

// TestScenarioFileFormat: "format: 1" and a file without the key read
// alike (README: a missing format is format 1).
func TestScenarioFileFormat(t *testing.T) {
	for _, src := range []string{"format: 1\nname: x\nbase: ackloss\n", "name: x\nbase: ackloss\nformat: \"1\"\n", "name: x\nbase: ackloss\n"} {
		fs, err := ParseScenarioFile("f.yaml", []byte(src))
		if err != nil || fs.Scenario.Name != "x" {
			t.Errorf("%q: %v", src, err)
		}
	}
}

func TestParseScenarioFileErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: x\nbase: ackloss\nparams:\n  net.response_loss: 2\n", "f.yaml:4: net.response_loss=2 is out of range (allowed: 0..1)"},
		{"name: x\nbase: ackloss\nparams:\n  records: lots\n", `f.yaml:4: records="lots" is not an integer`},
		{"name: x\nbase: ackloss\nparams:\n  nosuch: 1\n", `f.yaml:4: unknown parameter "nosuch"`},
		{"name: x\nbase: ackloss\ncolour: red\n", `f.yaml:3: unknown key "colour" (allowed: format, name, base, summary, params, plan)`},
		{"format: 2\nname: x\nbase: ackloss\n", `f.yaml:1: unknown scenario file format "2": this simulator reads format 1 (format: 1)`},
		{"name: x\nbase: ackloss\nformat: 1.0\n", `f.yaml:3: unknown scenario file format "1.0"`},
		{"name: x\nbase: ackloss\nformat: [1]\n", `f.yaml:3: format must be a single value`},
		{"name: x\nbase: nope\n", `f.yaml:2: base: unknown scenario "nope"`},
		{"base: ackloss\n", `f.yaml:1: missing key "name"`},
		{"name: x\nname: y\nbase: ackloss\n", `f.yaml:2: key "name" repeats line 1`},
		{"name: x\nbase: ackloss\nparams: [1, 2]\n", "f.yaml:3: params must be a mapping"},
		{"name: x\nbase: ackloss\nparams:\n  records: [1]\n", "f.yaml:4: records must be a single value"},
		{"name: 'a b'\nbase: ackloss\n", `f.yaml:1: name "a b" is not allowed`},
		{"name: x\n  base: : :\n", "f.yaml:2: not valid YAML"},
		{"", "f.yaml:1: empty scenario file"},
		{"- 1\n", "f.yaml:1: the file must be a mapping"},
	} {
		_, err := ParseScenarioFile("f.yaml", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want prefix %q", c.src, err, c.want)
		}
	}
}

// FuzzScenarioFile: the parser never panics, every error names a file
// line, and whatever parses runs with its values accepted.
func FuzzScenarioFile(f *testing.F) {
	f.Add("name: x\nbase: ackloss\nparams:\n  records: 5\n")
	f.Add("name: x\nbase: ackloss\nplan: |\n  1s pause p1 1s\n")
	f.Add("name: x\nbase: ackloss\nparams:\n  net.mode: datagram\n  net.duplicate: 0.5\n")
	f.Add(":\n- [")
	f.Add("format: 1\nname: x\nbase: ackloss\n")
	f.Add("format: 9\nname: x\nbase: ackloss\n")
	f.Fuzz(func(t *testing.T, src string) {
		fs, err := ParseScenarioFile("f.yaml", []byte(src))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		if _, err := Resolve(Spec{Scenario: fs.Scenario, FileSets: fs.Sets}); err != nil && !strings.Contains(err.Error(), "idempotence") && !strings.Contains(err.Error(), "net.") && !strings.Contains(err.Error(), "transactional") {
			t.Fatalf("parsed values rejected by Resolve: %v", err)
		}
	})
}
