package plots

import (
	"image/color"
	"slices"
	"testing"
)

// TestGridTicks: ticks fall on the data's values, and values closer than
// a tenth of the axis to a labelled one are not labelled (no overprint).
func TestGridTicks(t *testing.T) {
	ticks := gridTicks{1000, 4800, 5750, 5800, 8600, 20000}.Ticks(1000, 20000)
	var vals []float64
	var labels []string
	for _, tk := range ticks {
		vals = append(vals, tk.Value)
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(vals, []float64{1000, 4800, 5750, 5800, 8600, 20000}) {
		t.Errorf("tick values %v", vals)
	}
	if !slices.Equal(labels, []string{"1000", "4800", "8600", "20000"}) {
		t.Errorf("labels %v", labels)
	}
}

// TestLogTicks: a log axis over one and a half decades has labels at 1,
// 2 and 5 of each decade, not just the powers of ten.
func TestLogTicks(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(3, 400) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(labels, []string{"5", "10", "20", "50", "100", "200"}) {
		t.Errorf("labels %v", labels)
	}
	labels = nil
	for _, tk := range (logTicks{}).Ticks(0.01, 1e5) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if len(labels) != 8 {
		t.Errorf("wide axis labels %v", labels)
	}
}

// TestPalette: the series colours are Okabe–Ito's.
func TestPalette(t *testing.T) {
	want := []color.RGBA{{0x00, 0x72, 0xB2, 0xFF}, {0xD5, 0x5E, 0x00, 0xFF}}
	for i, w := range want {
		if PaletteColor(i) != w {
			t.Errorf("colour %d = %v, want %v", i, PaletteColor(i), w)
		}
	}
}
