package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/internal/validate"
	"github.com/idemsim/idemsim/scenarios"
)

func TestValidateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate"}, "-scenario is required"},
		{[]string{"validate", "-scenario", "statelost", "-runs", "2"}, "does not support validate"},
		{[]string{"validate", "-scenario", "inflight6", "-idempotence=true", "-runs", "2"}, "cannot be validated with idempotence on"},
		{[]string{"validate", "-scenario", "ackloss", "-margin", "x"}, "-margin"},
		{[]string{"validate", "-scenario", "ackloss", "-set", "net.mode=datagram"}, "datagram"},
		{[]string{"validate", "-scenario", "ackloss", "-bootstrap", "nohost"}, "host:port"},
		{[]string{"validate", "-scenario", "ackloss", "-margin", "-5%"}, "-margin \"-5%\" is not allowed"},
		{[]string{"validate", "-scenario", "ackloss", "-margin-floor", "x"}, "-margin-floor"},
		{[]string{"validate", "-scenario", "ackloss", "-runs", "many"}, "-runs \"many\" is not allowed (allowed: 1..100000, or auto)"},
		{[]string{"validate", "-scenario", "ackloss", "-runs", "0"}, "-runs \"0\" is not allowed"},
		{[]string{"validate", "-scenario", "ackloss", "-runs", "auto", "-budget", "5"}, "-budget \"5\" is not allowed"},
		{[]string{"validate", "-scenario", "ackloss", "-budget", "-1m"}, "-budget \"-1m\" is not allowed"},
		{[]string{"validate", "-all", "-scenario", "ackloss"}, "-scenario is not allowed with -all"},
		{[]string{"validate", "-all", "-out", "x"}, "-out is not allowed with -all"},
		{[]string{"validate", "-scenario", "ackloss", "-o", "x.md"}, "-o is the scoreboard's file and needs -all"},
		{[]string{"validate", "-all", "-o", "no/such/dir/validation.md"}, "does not exist"},
		{[]string{"validate", "-scenario", "ackloss", "-only", "ackloss"}, "-only needs -all and -o"},
		{[]string{"validate", "-all", "-only", "ackloss"}, "-only needs -o FILE"},
		{[]string{"validate", "-all", "-only", "ackloss", "-o", "no/such/validation.md"}, "is not a scoreboard"},
		{[]string{"validate", "-all", "-only", "ackloss", "-o", "validate.go"}, "is not a scoreboard"},
		{[]string{"validate", "-all", "-only", "ackloss,nosuch", "-o", "../../docs/validation.md"}, `"nosuch" is not a catalogue scenario`},
		{[]string{"validate", "-all", "-only", "ackloss,ackloss", "-o", "../../docs/validation.md"}, "ackloss is named twice"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line with %q", tc.args, code, errb.String(), exitUsage, tc.want)
		}
	}
}

func TestListMarksValidate(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-list"}, &out, &errb); code != exitOK {
		t.Fatal(errb.String())
	}
	for _, want := range []string{"ackloss ", "[validate]", "[validate: idempotence off]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-list lacks %q:\n%s", want, out.String())
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "statelost") && strings.Contains(line, "validate") {
			t.Errorf("statelost is marked: %s", line)
		}
	}
}

// TestValidateCLI runs a tiny validate with a fixed plan through the
// command line and checks its files.
func TestValidateCLI(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.txt")
	if err := os.WriteFile(plan, []byte("0s drop response 3 p1>b1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := run([]string{"validate", "-scenario", "ackloss", "-idempotence=false", "-runs", "2", "-sim-runs", "2",
		"-set", "net.response_loss=0", "-set", "max.in.flight.requests.per.connection=1", "-set", "request.timeout.ms=100000",
		"-plan-file", plan, "-out", out}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"duplicates (sent)", "0.0500", "inconclusive", "not byte-identical", "client.policy=franz-go"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout.String())
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(csv), "\nreal,off,"); n != 2 || !strings.Contains(string(csv), "none: real time") {
		t.Errorf("runs.csv: %d real rows, want 2 saying why there is no trace hash:\n%s", n, csv)
	}
}

// TestValidateAuto: -runs auto with a small budget prints a report that
// says why the runs stopped, whichever came first.
func TestValidateAuto(t *testing.T) {
	t.Parallel() // waits out its budget; no working directory or package variable changed
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.txt")
	if err := os.WriteFile(plan, []byte("0s drop response 3 p1>b1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"validate", "-scenario", "ackloss", "-idempotence=false", "-runs", "auto", "-budget", "2s", "-sim-runs", "200",
		"-set", "net.response_loss=0", "-set", "max.in.flight.requests.per.connection=1", "-set", "request.timeout.ms=100000",
		"-plan-file", plan}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "-runs auto") || !strings.Contains(out, "budget 2s") || !strings.Contains(out, "real runs to decide") ||
		!strings.Contains(out, "(20% of 0.0500)") {
		t.Errorf("report does not say why the runs stopped, the budget, the runs to decide and the relative margin:\n%s", out)
	}
}

// TestValidateAll: -all with a small budget writes a scoreboard file
// with a row for every catalogue scenario × mode × client, and writes
// nothing when the file's directory does not exist.
func TestValidateAll(t *testing.T) {
	t.Parallel() // waits out its budget; no working directory or package variable changed
	dir := t.TempDir()
	f := filepath.Join(dir, "validation.md")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"validate", "-all", "-budget", "2s", "-sim-runs", "20", "-o", f}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	md, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, name := range scenarios.Names() {
		for _, mode := range []string{"off", "on"} {
			for _, client := range validate.Clients {
				if strings.Contains(string(md), "| "+name+" | "+mode+" | "+client+" | ") {
					rows++
				} else {
					t.Errorf("no row for %s %s %s", name, mode, client)
				}
			}
		}
	}
	if rows == 0 || !strings.Contains(string(md), "budget of 2s") || !strings.Contains(stdout.String(), "budget 2s") {
		t.Errorf("scoreboard:\n%s\nstdout:\n%s", md, stdout.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("-o left %d files in its directory, want only the scoreboard", len(entries))
	}
}
