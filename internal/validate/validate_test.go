package validate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios"
)

// fixedPlan loses exact messages on the producer's link to the broker:
// two responses (the batches were appended, so without idempotence their
// retries land twice), one request (nothing appended; the retry lands
// once) and one batch answered NOT_ENOUGH_REPLICAS (retried, lands once).
const fixedPlan = `0s drop response 3 p1>b1
0s drop response 8 p1>b1
0s drop request 12 p1>b1
0s reject 15 p1>b1 NOT_ENOUGH_REPLICAS
`

// TestFixedPlanBothSides runs a small validate (30 records, 2 runs per
// side and mode) with a fixed plan and no random loss, so its counts are
// exact on both sides, whatever the timing: with one request in flight
// and one record per batch, the n-th request is the same on both sides.
func TestFixedPlanBothSides(t *testing.T) {
	sc, err := scenarios.Lookup("ackloss")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: sc, Runs: 2, SimRuns: 2, Base: 1, Margin: Margin{Value: 0.05}, PlanText: fixedPlan,
		Modes: []bool{false, true}, Parallel: 2,
		Sets: []scenarios.KV{{Key: "records", Value: "30"}, {Key: "net.response_loss", Value: "0"},
			{Key: "max.in.flight.requests.per.connection", Value: "1"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	res, err := Validate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("validate took %v", time.Since(start))
	want := map[string]Counts{
		"off": {Sent: 30, Acked: 30, Appended: 32, Duplicates: 2},
		"on":  {Sent: 30, Acked: 30, Appended: 30},
	}
	for _, r := range res.Runs {
		w := want[r.Mode]
		got := r.Counts
		if got.Sent != w.Sent || got.Acked != w.Acked || got.Failed != 0 || got.Pending != 0 || got.Appended != w.Appended ||
			got.Duplicates != w.Duplicates || got.Reordered != 0 || got.LostAcked != 0 || got.Fenced != 0 {
			t.Errorf("%s side, idempotence %s, run %d: %+v, want %+v", r.Side, r.Mode, r.Run, got, w)
		}
		if r.Mode == "off" && got.Errors["NOT_ENOUGH_REPLICAS"] != 1 {
			t.Errorf("%s side, idempotence off, run %d: errors %v, want NOT_ENOUGH_REPLICAS once", r.Side, r.Run, got.Errors)
		}
		if r.Side == "real" && (!strings.HasPrefix(r.TraceHash, "none:") || !strings.HasPrefix(r.Reproduce, "none:")) {
			t.Errorf("real run %d: trace hash %q, reproduce %q: want them to say why there is none", r.Run, r.TraceHash, r.Reproduce)
		}
	}
	if len(res.Runs) != 8 {
		t.Errorf("%d runs, want 8", len(res.Runs))
	}
	for _, m := range res.Modes {
		for _, c := range m.Comparisons {
			if c.Counter == "duplicates" && (c.Sim.Num != c.Real.Num || c.Verdict != Inconclusive) {
				t.Errorf("idempotence %s: duplicates %d (sim) and %d (real), verdict %s; want equal counts, inconclusive with 2 runs", m.Mode, c.Sim.Num, c.Real.Num, c.Verdict)
			}
		}
	}
	dir := t.TempDir()
	if err := res.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{RunsFile, SummaryFile, ReportFile, ChartName + "_off.svg", ChartName + "_on.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	if !bytes.Contains(md, []byte("not byte-identical")) || !bytes.Contains(md, []byte("margin")) {
		t.Errorf("report.md does not state the real side is statistical and the margin:\n%s", md)
	}
}
