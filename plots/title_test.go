package plots

import (
	"strings"
	"testing"
)

// TestLongTitleWraps: a title longer than a chart's width breaks into
// lines that fit, keeping every word.
func TestLongTitleWraps(t *testing.T) {
	long := "txnlate: runs with INV-TXN (an aborted, lost or torn transaction as read_committed sees it) against client.policy"
	w := wrapTitle(long, MaxTitleLine)
	for _, l := range strings.Split(w, "\n") {
		if len(l) > MaxTitleLine {
			t.Errorf("line %q is longer than %d", l, MaxTitleLine)
		}
	}
	if strings.Join(strings.Fields(w), " ") != long || !strings.Contains(w, "\n") {
		t.Errorf("wrapped %q", w)
	}
}
