package sweep

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches a Markdown link or image target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// brokenLinks returns the targets of the links and images in a Markdown
// file that are not files next to it (URLs are not followed).
func brokenLinks(t *testing.T, path string) (broken []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
		if strings.Contains(m[1], "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), m[1])); err != nil {
			broken = append(broken, m[1])
		}
	}
	return broken
}

// TestReport: every -out directory gets a report.md with a title, what
// was run, the crossing, every chart with a caption in words, the summary
// table with intervals, failing seeds with reproduce commands, the
// command, the version and the trace-hash digest; every image and link
// it names exists (a Markdown link check).
func TestReport(t *testing.T) {
	sc := txntimeout(t)
	cfg := Config{Scenario: sc, Base: 1, Runs: 6, FailingK: 2, Crossing: "violations", Parallel: 2,
		Axes: []Axis{axisOf(t, sc, "pause.ms=1000:20000:auto7")}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Summarize()
	dir := t.TempDir()
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ReportFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := string(b)
	for _, want := range []string{
		"# txntimeout: a sweep over pause.ms\n",
		"This sweep ran the scenario `txntimeout`",
		"4 on an even grid, then 3 added",
		"**Parameters.** The scenario's parameters are stress values",
		"**What the scenario expects:** with idempotence off, nothing to show: transactions need idempotence; with idempotence on, the producer is fenced",
		"transaction.timeout.ms=5000 (Kafka: 60000)",
		"With idempotence on, the fraction of runs with any violation rises through 50% at **pause.ms ≈ ",
		"![txntimeout: runs with LIVE-PROD (records unresolved, a spurious fatal or an unsettled run) against pause.ms](live_prod.png)",
		"![txntimeout: runs with any violation (secondary: all anomaly classes together) against pause.ms](violations.png)",
		"*Fraction of runs with any violation against pause.ms, 6 runs per point and mode, 95% intervals. idempotence off: 0 at every point (pause.ms=1000 none (≤ ",
		"; idempotence on: rises from 0 at pause.ms=1000 to 1 at 20000, most of it between",
		"Not drawn, because the metric is zero or undefined at every point (no run had it): duplicate_rate, out_of_order, lost_acked_rate, fencing_rate, zombie_writes.",
		"| pause.ms | idempotence | runs | any violation (95%) | LIVE-PROD |",
		"idempotence on, LIVE-PROD: seeds 1, 2\ngo run ./cmd/simulate -seed 1 -scenario txntimeout -set pause.ms=",
		"-vary pause.ms=1000:20000:auto7 -crossing violations -out txntimeout-sweep -force\n",
		"- simulator version: idemsim ",
		"- trace-hash digest: `" + s.TraceDigest + "`",
	} {
		if !strings.Contains(r, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if broken := brokenLinks(t, path); len(broken) > 0 {
		t.Errorf("report.md links to missing files %v", broken)
	}
	if n := strings.Count(r, "!["); n != len(s.Charts()) {
		t.Errorf("%d images, want one per chart (%d)", n, len(s.Charts()))
	}
	// The check catches a chart that is not there.
	if err := os.Remove(filepath.Join(dir, "violations.png")); err != nil {
		t.Fatal(err)
	}
	if broken := brokenLinks(t, path); len(broken) != 1 || broken[0] != "violations.png" {
		t.Errorf("link check found %v, want [violations.png]", broken)
	}
}
