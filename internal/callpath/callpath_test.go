package callpath

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// rootFlag measures another checkout of the simulator instead of this
// one (its ceiling is not checked): go test ./internal/callpath -run
// TestRoundTripTransitions -v -args -callpath.root DIR
var rootFlag = flag.String("callpath.root", "", "measure the module at this root instead of this checkout")

// long runs the measurement, which builds the world's packages
// instrumented: go test ./... leaves it out and .ci/run runs it.
var long = flag.Bool("long", false, "build the world instrumented and count the round trip's file transitions")

// The most file-to-file transitions the produce round trip may make
// (RoundTrip: ackloss seed 1, two records, idempotence on, no response
// loss, one replica): the changes of file along the calls and returns
// from the entry of World.appSend to the statement that makes the
// record's ObsOutcome, counted over the world's files. The first
// record's round trip includes the InitProducerId exchange; the second's
// (steady) does not. The max... ceilings count every step, the
// ...Core... ones leave out the steps inside World.fire (the trace
// writer, the checkers and the counters reading each observation). All
// are the counts measured on this code: a change that lengthens the path
// fails here, one that shortens it lowers them.
const (
	maxTransitions           = 991
	maxCoreTransitions       = 517
	maxSteadyTransitions     = 649
	maxSteadyCoreTransitions = 339
)

// TestRoundTripTransitions measures the round trip's path and logs it:
// the count, the files by entries, the segments and every step.
func TestRoundTripTransitions(t *testing.T) {
	if !*long && *rootFlag == "" {
		t.Skip("-long: builds the world's packages instrumented (.ci/run runs it)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := *rootFlag
	if root == "" {
		root = moduleRoot(t)
	}
	m, err := Measure(root, t.TempDir(), RoundTrip)
	if err != nil {
		t.Fatal(err)
	}
	r := &m.Result
	t.Logf("%s: %d events, sent %d, acked %d, appended %d, requests %d, responses %d, lost %d+%d, dropped %d, errors %v",
		root, r.Events, r.Sent, r.Acked, r.Appended, r.Net.RequestsSent, r.Net.ResponsesSent, r.Net.RequestsLost, r.Net.ResponsesLost, r.Net.Dropped, r.Errors)
	t.Logf("%d events recorded, %d outcome marks", len(m.Events), m.Marks)
	if m.Steady == nil {
		t.Fatalf("%d outcome marks: no second record to measure the steady round trip on", m.Marks)
	}
	t.Logf("the first record's round trip without the readers (steps inside %v cut): %s", RoundTrip.Readers, m.Core)
	t.Logf("the first record's round trip, every step: %s", m.Path)
	t.Logf("the second record's (steady) round trip without the readers: %s", m.SteadyCore)
	t.Logf("the second record's (steady) round trip, every step: %s", m.Steady)
	// The run must be the round trips and nothing else: two records
	// sent, acknowledged and appended, no message lost or dropped, no
	// error answered (nothing retried), idempotence on.
	if r.Sent != 2 || r.Acked != 2 || r.Appended != 2 || r.Failed != 0 {
		t.Errorf("sent %d, acked %d, appended %d, failed %d: want two records sent, acknowledged and appended", r.Sent, r.Acked, r.Appended, r.Failed)
	}
	if r.Net.RequestsLost+r.Net.ResponsesLost+r.Net.Dropped != 0 || len(r.Errors) != 0 {
		t.Errorf("lost %d requests and %d responses, dropped %d, errors %v: want none", r.Net.RequestsLost, r.Net.ResponsesLost, r.Net.Dropped, r.Errors)
	}
	for key, want := range map[string]string{"enable.idempotence": "true", "replication.factor": "1", "net.request_loss": "0", "net.response_loss": "0", "broker.transient_error": "0"} {
		if got := r.Param(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if m.Marks != 2 {
		t.Errorf("%d outcome marks in the run, want 2 (two records, an outcome each)", m.Marks)
	}
	if *rootFlag != "" {
		return
	}
	for _, c := range []struct {
		name    string
		p       *Path
		ceiling int
	}{{"maxTransitions", m.Path, maxTransitions}, {"maxCoreTransitions", m.Core, maxCoreTransitions},
		{"maxSteadyTransitions", m.Steady, maxSteadyTransitions}, {"maxSteadyCoreTransitions", m.SteadyCore, maxSteadyCoreTransitions}} {
		switch n := c.p.Transitions; {
		case n > c.ceiling:
			t.Errorf("%s: the round trip makes %d file transitions, more than the ceiling %d", c.name, n, c.ceiling)
		case n < c.ceiling:
			t.Logf("%s: the round trip makes %d file transitions, fewer than the ceiling %d: lower it", c.name, n, c.ceiling)
		}
	}
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("go.mod not found")
		}
		dir = up
	}
}
