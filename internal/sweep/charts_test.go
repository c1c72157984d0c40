package sweep

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if got := strings.Join(names, " "); got != "duplicate_rate out_of_order fencing_rate zombie_writes latency_cdf" {
		t.Errorf("charts %s", got)
	}
}
