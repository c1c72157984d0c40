package validate

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestTimingDocumented: every scenario whose real side's timing moves its
// counts (Support.Timing) is a "reached by" entry of docs/validate.md's
// "Timing of the real side" table, and the table names no scenario that
// does not say so, so the report's note and the document agree.
func TestTimingDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "validate.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	i := strings.Index(md, "### Timing of the real side")
	if i < 0 {
		t.Fatal(`docs/validate.md has no "Timing of the real side" section`)
	}
	sec := md[i+1:]
	if j := strings.Index(sec, "\n### "); j >= 0 {
		sec = sec[:j]
	}
	var rows []string
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| real side") && !strings.HasPrefix(l, "| ---") {
			cells := strings.Split(l, " | ")
			rows = append(rows, cells[len(cells)-1])
		}
	}
	if len(rows) == 0 {
		t.Fatal("the timing table has no rows")
	}
	reached := strings.Join(rows, "\n")
	var names []string
	for name := range supported {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		in := strings.Contains(reached, "`"+name+"`")
		if has := supported[name].Timing != ""; has != in {
			t.Errorf("scenario %s: Support.Timing set %v, in the timing table's \"reached by\" %v", name, has, in)
		}
	}
}
