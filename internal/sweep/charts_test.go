package sweep

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios/params"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/sweep -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (if intended, run go test ./internal/sweep -update)", path)
	}
}

// TestChartsGolden draws a small ackloss sweep's charts: the data series
// of every chart are compared as text, and the duplicate-rate and latency
// charts as SVG, byte for byte. A change to the simulator that alters runs
// changes them too: check the new charts and regenerate with -update.
func TestChartsGolden(t *testing.T) {
	cfg := Config{Scenario: ackloss(t), Base: 1, Runs: 20, Parallel: 2, FailingK: 1,
		Axes: []Axis{axis(t, "net.response_loss=0:0.2:0.1")}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Summarize()
	var data strings.Builder
	charts := s.Charts()
	for _, c := range charts {
		data.WriteString("== " + c.Name + "\n" + c.Chart.Data())
	}
	golden(t, "charts_golden.txt", []byte(data.String()))
	for _, c := range charts {
		if c.Name != "duplicate_rate" && c.Name != "latency_cdf" {
			continue
		}
		var b bytes.Buffer
		if err := c.Chart.WriteTo(&b, "svg"); err != nil {
			t.Fatal(err)
		}
		golden(t, c.Name+"_golden.svg", b.Bytes())
	}
	sum, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "summary_golden.json", sum)
}

// TestZombieCharts: the fencing-rate and zombie-writes charts appear once
// any zombie produced (here with zombie counts added to ackloss runs by
// hand, until a zombie scenario exists), and a rate with no denominator
// leaves a gap rather than failing.
func TestZombieCharts(t *testing.T) {
	cfg := Config{Scenario: ackloss(t), Base: 1, Runs: 4, Parallel: 1,
		Axes: []Axis{axis(t, "net.response_loss=0,0.1")}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for p := range st.Acc {
		for m, a := range st.Acc[p] {
			if p == 0 {
				continue // no zombie attempts: fencing rate 0/0
			}
			for i := range 4 {
				a.Fencing.add(int64(i*m), 3)
				a.ZombieWrites.add(int64(3 - i*m))
			}
		}
	}
	var names []string
	for _, c := range st.Summarize().Charts() {
		names = append(names, c.Name)
		var b bytes.Buffer
		if err := c.Chart.WriteTo(&b, "svg"); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if c.Name == "fencing_rate" && !strings.Contains(c.Chart.Data(), "  0 NaN [NaN, NaN]") {
			t.Errorf("fencing rate at 0/0 is not a gap:\n%s", c.Chart.Data())
		}
	}
	if got := strings.Join(names, " "); got != "inv_dup inv_order violations duplicate_rate fencing_rate zombie_writes latency_cdf" {
		t.Errorf("charts %s", got)
	}
}

// TestZeroChartsSkipped: a chart whose metric is zero at every point is
// left out and the summary names it; axis labels do not repeat a unit
// the key already carries; ticks fall on the grid; the footnote's
// regenerate command has -out and continues its lines with " \".
func TestZeroChartsSkipped(t *testing.T) {
	sc := txntimeout(t)
	cfg := Config{Scenario: sc, Base: 1, Runs: 3, Modes: []bool{true}, Axes: []Axis{axisOf(t, sc, "pause.ms=1000,8000")}}
	st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := st.Summarize()
	var names []string
	for _, c := range s.Charts() {
		names = append(names, c.Name)
		if c.Name == "violations" {
			if c.Chart.XLabel != "pause.ms" || !slices.Equal(c.Chart.XTicks, []float64{1000, 8000}) {
				t.Errorf("x label %q, ticks %v", c.Chart.XLabel, c.Chart.XTicks)
			}
		}
	}
	if got := strings.Join(names, " "); got != "live_prod violations latency_cdf" {
		t.Errorf("charts %s", got)
	}
	if !slices.Equal(s.ChartsSkipped, []string{"duplicate_rate", "out_of_order", "lost_acked_rate", "fencing_rate", "zombie_writes"}) {
		t.Errorf("skipped %v", s.ChartsSkipped)
	}
	foot := s.Footnote()
	if !strings.Contains(foot, " -out txntimeout-sweep") {
		t.Errorf("footnote lacks -out:\n%s", foot)
	}
	lines := strings.Split(foot, "\n")[1:]
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasSuffix(l, " \\") {
			t.Errorf("footnote line %q does not continue", l)
		}
	}
	// As a shell joins it, the footnote's command is the regenerate
	// command (which TestDesignDocReport runs).
	long := s
	long.Sets = append(long.Sets, params.KV{Key: "records", Value: "40"}, params.KV{Key: "transaction.records", Value: "10"})
	cmd := strings.Join(strings.Split(long.Footnote(), "\n")[1:], "\n")
	if !strings.Contains(cmd, " \\\n    -") {
		t.Errorf("long footnote is not wrapped:\n%s", cmd)
	}
	if joined := strings.ReplaceAll(cmd, " \\\n    ", " "); joined != long.Regenerate() {
		t.Errorf("footnote joins to\n%s\nwant\n%s", joined, long.Regenerate())
	}
}
