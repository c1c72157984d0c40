package plots_test

import (
	"bytes"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/plots"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares testdata/name (written by the example) with
// testdata/<base>_golden<ext> byte for byte, as gonum's cmpimg does for SVG.
func checkGolden(t *testing.T, name string) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Ext(name)
	golden := filepath.Join("testdata", strings.TrimSuffix(name, ext)+"_golden"+ext)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./plots -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (if intended, run go test ./plots -update)", name, golden)
	}
}

func TestChart(t *testing.T) {
	ExampleChart()
	checkGolden(t, "rates.svg")
}

func TestCDF(t *testing.T) {
	ExampleNewCDF()
	checkGolden(t, "cdf.svg")
}

func TestPNGAndErrors(t *testing.T) {
	c := &plots.Chart{Title: "t", XLabel: "x (ms)", YLabel: "y", Footnote: "f",
		Series: []plots.Series{{Label: "a", X: []float64{1, 2, 3}, Y: []float64{1, 0.5, 2}}}}
	var a, b bytes.Buffer
	if err := c.WriteTo(&a, "png"); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteTo(&b, "png"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings of one chart differ")
	}
	img, err := png.Decode(&a)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() < 1200 {
		t.Errorf("png width %d, want at least 1200 px", img.Bounds().Dx())
	}
	if plots.FootnoteSize < 9 {
		t.Errorf("footnote font %v pt, want at least 9", plots.FootnoteSize)
	}
	if err := c.WriteTo(&b, "gif"); err == nil || !strings.Contains(err.Error(), "allowed: png, svg") {
		t.Errorf("gif: err = %v", err)
	}
}

// TestGapsAndEmpty: NaN points, a series with no finite points and a
// chart with no series still draw.
func TestGapsAndEmpty(t *testing.T) {
	nan := 0.0
	nan /= nan
	for _, c := range []*plots.Chart{
		{Title: "nan", Series: []plots.Series{{Label: "a", X: []float64{1, 2}, Y: []float64{nan, 1}, Lo: []float64{nan, 0}, Hi: []float64{nan, 2}}}},
		{Title: "allnan", Series: []plots.Series{{Label: "a", X: []float64{1}, Y: []float64{nan}}}},
		{Title: "none"},
		plots.NewCDF("cdf", "ms", "", plots.Series{Label: "a", X: []float64{0, 1}, Y: []float64{0.5, 1}}),
	} {
		var b bytes.Buffer
		if err := c.WriteTo(&b, "svg"); err != nil {
			t.Errorf("%s: %v", c.Title, err)
		}
	}
}

// TestData is the text golden of a chart's data series.
func TestData(t *testing.T) {
	c := &plots.Chart{Title: "t", XLabel: "x", YLabel: "y", Footnote: "a\nb",
		Series: []plots.Series{{Label: "s", X: []float64{0.1, 0.2}, Y: []float64{1.0 / 3, 2}, Lo: []float64{0, 1}, Hi: []float64{1, 3}}}}
	want := "title: t\nx: x\ny: y\nfootnote: a | b\nseries \"s\"\n  0.1 0.33333333 [0, 1]\n  0.2 2 [1, 3]\n"
	if got := c.Data(); got != want {
		t.Errorf("Data() =\n%s\nwant\n%s", got, want)
	}
}
