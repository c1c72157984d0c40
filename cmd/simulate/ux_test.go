package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
)

// TestFlagErrorsOneLine: an error found while reading the flags prints
// one line and where the usage is, never the whole usage; -h still prints
// it. (On main these printed the 52-line usage.)
func TestFlagErrorsOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"-bogus"},
		{"-set", "records"},
		{"-bug", "NOPE"},
		{"-runs", "abc", "-scenario", "ackloss"},
		{"-describe"},
		{"merge", "-bogus"},
		{"selfcheck", "-bogus"},
	} {
		code, out, errOut := runCLI(args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "-h for usage") || strings.Contains(errOut, "usage: simulate") {
			t.Errorf("simulate %v: exit %d, stderr %q", args, code, errOut)
		}
	}
	code, _, errOut := runCLI("-h")
	if code != exitOK || !strings.Contains(errOut, "usage: simulate") || !strings.Contains(errOut, "-scenario-file") {
		t.Errorf("-h: exit %d, stderr %q", code, errOut)
	}
}

// TestVersion: -version prints the version; the report carries it.
func TestVersion(t *testing.T) {
	code, out, _ := runCLI("-version")
	if code != exitOK || out != "simulate "+scenarios.Version+"\n" {
		t.Errorf("-version: exit %d, %q", code, out)
	}
	_, out, _ = runCLI("-seed", "1", "-scenario", "ackloss")
	if !strings.HasPrefix(out, "idemsim "+scenarios.Version+": scenario ackloss") {
		t.Errorf("report header: %q", strings.SplitN(out, "\n", 2)[0])
	}
}

// TestNoSilentCancel: a single-run flag with -runs, and two flags of
// which one would cancel the other, are refused in one line with exit 2.
// (On main each of these ran, ignoring one of the flags.)
func TestNoSilentCancel(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "ackloss", "-runs", "3", "-plan"}, "-plan is not allowed with -runs"},
		{[]string{"-scenario", "ackloss", "-runs", "3", "-shrink"}, "-shrink is not allowed with -runs"},
		{[]string{"-scenario", "ackloss", "-runs", "3", "-diagram", "d.md"}, "-diagram is not allowed with -runs"},
		{[]string{"-scenario", "ackloss", "-runs", "3", "-timeline", "t.svg"}, "-timeline is not allowed with -runs"},
		{[]string{"-scenario", "ackloss", "-runs", "3", "-plan-out", "p.plan"}, "-plan-out is not allowed with -runs"},
		{[]string{"-scenario", "ackloss", "-seed", "1", "-idempotence=true", "-set", "enable.idempotence=false"}, "contradict each other"},
		{[]string{"-scenario", "ackloss", "-seed", "1", "-bug", "Z16", "-set", "broker.dedup=true"}, "-bug Z16 sets broker.dedup=false, and -set broker.dedup=true would turn it off"},
		{[]string{"-scenario", "ackloss", "-runs", "2", "-bug", "Z16", "-vary", "broker.dedup=true,false"}, "-bug Z16 sets broker.dedup=false, and -vary"},
		{[]string{"-scenario", "ackloss", "-seed", "4", "-idempotence=false", "-shrink", "-json"}, "-shrink is not allowed with -json"},
		{[]string{"-scenario", "ackloss", "-runs", "2", "-out", ""}, "-out '' is not allowed"},
		{[]string{"-scenario", "ackloss", "-runs", "2", "-keep-failing", ""}, "-keep-failing '' is not allowed"},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("simulate %q: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
	// Agreeing values are not a conflict.
	if code, _, errOut := runCLI("-scenario", "ackloss", "-seed", "1", "-bug", "Z16", "-set", "broker.dedup=false", "-idempotence=true", "-set", "enable.idempotence=true"); code == exitUsage {
		t.Errorf("agreeing flags refused: %s", errOut)
	}
}

// TestJSONTrace: -json -trace puts the timeline into the JSON as the
// field "trace" (on main -trace was dropped with -json).
func TestJSONTrace(t *testing.T) {
	_, out, _ := runCLI("-seed", "4", "-scenario", "ackloss", "-json", "-trace")
	var r struct {
		TraceHash string   `json:"trace_hash"`
		Trace     []string `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Trace) < 10 || !strings.Contains(r.Trace[0], "run scenario=ackloss") {
		t.Fatalf("err %v, trace %d lines: %.200q", err, len(r.Trace), r.Trace)
	}
	_, plain, _ := runCLI("-seed", "4", "-scenario", "ackloss", "-json")
	if strings.Contains(plain, `"trace"`) {
		t.Errorf("-json without -trace has a trace field")
	}
}

// TestSweepPlanFile: -plan-file applies to every seed of a sweep (on
// main it was ignored): a plan that drops the first response gives every
// run of ackloss with idempotence off a duplicate.
func TestSweepPlanFile(t *testing.T) {
	dir := t.TempDir()
	plan := dir + "/p.plan"
	os.WriteFile(plan, []byte("0s drop response 1 p1>b1\n"), 0o644)
	code, out, errOut := runCLI("-scenario", "ackloss", "-runs", "5", "-idempotence=false", "-set", "net.response_loss=0", "-plan-file", plan, "-json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		PlanFile string `json:"plan_file"`
		Points   []struct {
			Modes map[string]struct {
				Violations map[string]struct{ Runs int } `json:"violations"`
			} `json:"modes"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Points[0].Modes["off"].Violations["INV-DUP"].Runs; got != 5 || s.PlanFile != plan {
		t.Errorf("INV-DUP in %d of 5 runs, plan_file %q", got, s.PlanFile)
	}
	code, _, errOut = runCLI("-scenario", "ackloss", "-runs", "5", "-plan-file", dir+"/missing.plan")
	if code != exitUsage || !strings.Contains(errOut, "-plan-file: cannot read") {
		t.Errorf("missing plan file: exit %d, %q", code, errOut)
	}
}

// TestRandomSeedBelow2p53: a drawn seed stays below 2^53, so jq reads it
// exactly (on main all 64 bits were drawn).
func TestRandomSeedBelow2p53(t *testing.T) {
	defer func(r io.Reader) { seedSource = r }(seedSource)
	seedSource = bytes.NewReader(bytes.Repeat([]byte{0xff}, 8))
	_, out, _ := runCLI("-scenario", "ackloss", "-json")
	var r struct {
		Seed float64 `json:"seed"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Seed != 1<<53-1 {
		t.Errorf("seed %v, want 2^53-1", r.Seed)
	}
}

// TestViolationsCutAndEpochBumps: a cut violation list is a count
// (violations_cut), not a fake violation; the coordinator's epoch bumps
// are counted apart from the client's (on main: a "... and 1 more
// duplicate copies" violation, and epoch_bumps 0 for the zombie).
func TestViolationsCutAndEpochBumps(t *testing.T) {
	var r struct {
		Violations []struct {
			Detail string `json:"detail"`
		} `json:"violations"`
		Cut         *int64 `json:"violations_cut"`
		ClientBumps *int64 `json:"client_epoch_bumps"`
		CoordBumps  *int64 `json:"coordinator_epoch_bumps"`
	}
	_, out, _ := runCLI("-seed", "42", "-scenario", "inflight6", "-idempotence=false", "-json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Violations {
		if strings.HasPrefix(v.Detail, "... and") {
			t.Errorf("fake violation %q", v.Detail)
		}
	}
	if r.Cut == nil || *r.Cut != 1 {
		t.Errorf("violations_cut %v, want 1", r.Cut)
	}
	_, out, _ = runCLI("-seed", "42", "-scenario", "zombie", "-json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.ClientBumps == nil || r.CoordBumps == nil || *r.CoordBumps < 1 {
		t.Errorf("zombie seed 42: client bumps %v, coordinator bumps %v", r.ClientBumps, r.CoordBumps)
	}
}

// TestDeliveryTimeoutRefused: an explicit delivery.timeout.ms below
// linger.ms + request.timeout.ms is refused, as Kafka refuses it (on main
// it was raised with a note while the parameter list showed 100).
func TestDeliveryTimeoutRefused(t *testing.T) {
	code, _, errOut := runCLI("-seed", "1", "-scenario", "ackloss", "-set", "delivery.timeout.ms=100")
	if code != exitUsage || !strings.Contains(errOut, "delivery.timeout.ms=100 should be equal to or larger than linger.ms + request.timeout.ms = 1005") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	// linger.ms is 5 at the default kafka.version, 4.1 (KIP-1030).
	if code, _, errOut := runCLI("-seed", "1", "-scenario", "ackloss", "-set", "delivery.timeout.ms=1005"); code == exitUsage {
		t.Errorf("delivery.timeout.ms=1005 refused: %q", errOut)
	}
}

// TestGeneratedFaultsApply: a generated plan wastes no fault: no "pause
// ignored", "crashed already" or "restart ignored" in the timeline, with
// 8 faults or 10,000 (on main seed 42's fault.count=8 plan had all three).
func TestGeneratedFaultsApply(t *testing.T) {
	for _, n := range []string{"8", "10000"} {
		_, out, _ := runCLI("-seed", "42", "-scenario", "ackloss", "-set", "fault.count="+n, "-trace")
		for _, bad := range []string{"ignored", "crashed already"} {
			if c := strings.Count(out, bad); c > 0 {
				t.Errorf("fault.count=%s: %d lines with %q", n, c, bad)
			}
		}
	}
}

// TestSweepNamesBugsAndVersion: a sweep's table names its -bug IDs (on
// main it did not), its reproduce lines keep them, and summary.json
// carries the version.
func TestSweepNamesBugsAndVersion(t *testing.T) {
	_, out, _ := runCLI("-scenario", "ackloss", "-runs", "4", "-bug", "Z16", "-set", "net.response_loss=0.3")
	if !strings.Contains(out, "historical defect -bug Z16: ") || !strings.Contains(out, "-bug Z16 -set net.response_loss=0.3") {
		t.Errorf("table:\n%s", out)
	}
	_, js, _ := runCLI("-scenario", "ackloss", "-runs", "2", "-json")
	if !strings.Contains(js, `"simulator_version": "`+scenarios.Version+`"`) {
		t.Errorf("summary.json lacks the version")
	}
}
