package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate"}, "-scenario is required"},
		{[]string{"validate", "-scenario", "txntimeout", "-runs", "2"}, "does not support validate"},
		{[]string{"validate", "-scenario", "inflight6", "-idempotence=true", "-runs", "2"}, "cannot be validated with idempotence on"},
		{[]string{"validate", "-scenario", "ackloss", "-margin", "x"}, "-margin"},
		{[]string{"validate", "-scenario", "ackloss", "-set", "net.mode=datagram"}, "datagram"},
		{[]string{"validate", "-scenario", "ackloss", "-bootstrap", "nohost"}, "host:port"},
	} {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), exitUsage, tc.want)
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
		if strings.HasPrefix(line, "txntimeout") && strings.Contains(line, "validate") {
			t.Errorf("txntimeout is marked: %s", line)
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
