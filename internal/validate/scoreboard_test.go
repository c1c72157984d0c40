package validate

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios"
)

// scoreboardRows parses a scoreboard's table: the first three columns
// (scenario, mode, client) and the verdict of every row.
func scoreboardRows(t *testing.T, md string) map[string]string {
	t.Helper()
	row := regexp.MustCompile(`^\| (\S+) \| (off|on) \| (\S+) \| ([a-z ]+) \|`)
	rows := map[string]string{}
	for _, l := range strings.Split(md, "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		k := m[1] + " " + m[2] + " " + m[3]
		if _, dup := rows[k]; dup {
			t.Errorf("two rows for %s", k)
		}
		rows[k] = m[4]
	}
	return rows
}

// checkCoverage checks that rows hold every catalogue scenario × mode ×
// client once, and nothing else.
func checkCoverage(t *testing.T, where string, rows map[string]string) {
	t.Helper()
	want := 0
	for _, name := range scenarios.Names() {
		for _, mode := range []string{"off", "on"} {
			for _, client := range Clients {
				want++
				k := name + " " + mode + " " + client
				v, ok := rows[k]
				switch {
				case !ok:
					t.Errorf("%s: no row for %s", where, k)
				case v != Agree && v != Disagree && v != Inconclusive && v != "refused" && v != "not run":
					t.Errorf("%s: %s: verdict %q", where, k, v)
				}
			}
		}
	}
	if len(rows) != want {
		t.Errorf("%s: %d rows, want %d (catalogue × modes × clients)", where, len(rows), want)
	}
}

// TestScoreboard runs -all with a stand-in real side (no real client) and
// a small budget: every catalogue scenario × mode × client has a row;
// refused cells give their reason, the librdkafka ones in a build
// without it the build tag; the runnable ones ran or say the budget did
// not reach them.
func TestScoreboard(t *testing.T) {
	var calls atomic.Int64
	a := AllConfig{Budget: 3 * time.Second, Margin: DefaultMargin, Base: 1, SimRuns: 4, MaxRuns: 12, Parallel: 2,
		realRunner: returning(Counts{Sent: 20, Acked: 20, Appended: 20}, &calls)}
	sb, err := RunAll(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	sb.Command = "simulate validate -all -budget 3s"
	var md strings.Builder
	if err := sb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	checkCoverage(t, "scoreboard", scoreboardRows(t, md.String()))
	ran := 0
	for _, c := range sb.Cells {
		switch {
		case c.Client == ClientLibrdkafka && !HasLibrdkafka():
			if c.Refused != NoLibrdkafka {
				t.Errorf("%s: refused %q, want %q", c.Key(), c.Refused, NoLibrdkafka)
			}
		case c.Refused != "":
			if _, ok := Supports(c.Scenario); ok && !strings.Contains(c.Refused, "cannot be validated") && !strings.Contains(c.Refused, " only: ") {
				t.Errorf("%s: a supported scenario refused for %q", c.Key(), c.Refused)
			}
		case c.Result != nil:
			ran++
			if m := c.Result.Modes[0]; m.Stopped == "" || m.RealRuns > a.MaxRuns {
				t.Errorf("%s: stopped %q after %d runs", c.Key(), m.Stopped, m.RealRuns)
			}
		case c.NotRun == "":
			t.Errorf("%s: runnable, neither run nor said why not", c.Key())
		}
	}
	if ran == 0 || calls.Load() == 0 {
		t.Errorf("no cell ran (%d real calls)", calls.Load())
	}
	wants := []string{"budget of 3s", "refused: " + Unsupported["statelost"]}
	if !HasLibrdkafka() {
		// A -tags librdkafka build runs the librdkafka cells.
		wants = append(wants, "refused: "+NoLibrdkafka)
	}
	for _, want := range wants {
		if !strings.Contains(md.String(), want) {
			t.Errorf("scoreboard lacks %q:\n%s", want, md.String())
		}
	}
}

// TestScoreboardMerge: -all -only runs one scenario's cells and replaces
// their rows in a scoreboard, keeping every other row as it was (and a
// librdkafka row, in a build without it), with a line that names the
// command; the counts line counts the merged rows.
func TestScoreboardMerge(t *testing.T) {
	var calls atomic.Int64
	full := &Scoreboard{Budget: "1h", Margin: DefaultMargin.String(), Command: "simulate validate -all -budget 1h -o x.md", Cells: (&AllConfig{}).Cells()}
	for i := range full.Cells {
		if full.Cells[i].Refused == "" {
			full.Cells[i].NotRun = "old row"
		} else if full.Cells[i].Client == ClientLibrdkafka {
			full.Cells[i].Refused, full.Cells[i].NotRun = "", "old librdkafka row"
		}
	}
	var old strings.Builder
	if err := full.WriteMarkdown(&old); err != nil {
		t.Fatal(err)
	}
	a := AllConfig{Budget: 2 * time.Second, Margin: DefaultMargin, Base: 1, SimRuns: 4, MaxRuns: 12, Parallel: 2, Only: []string{"ackloss"},
		realRunner: returning(Counts{Sent: 20, Acked: 20, Appended: 20}, &calls)}
	sb, err := RunAll(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sb.Cells {
		if c.Scenario != "ackloss" {
			t.Fatalf("-only ackloss ran %s", c.Key())
		}
	}
	sb.Command = "simulate validate -all -only ackloss -budget 2s -o x.md"
	var md strings.Builder
	if err := sb.MergeMarkdown(old.String(), a.Only, &md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	checkCoverage(t, "merged scoreboard", scoreboardRows(t, out))
	if !strings.Contains(out, "Rows of `ackloss`") || !strings.Contains(out, sb.Command) || !strings.Contains(out, full.Command) {
		t.Errorf("the merged scoreboard does not name both commands:\n%s", out[:600])
	}
	for _, l := range strings.Split(out, "\n") {
		m := rowKey.FindStringSubmatch(l)
		switch {
		case m == nil:
		case m[1] == "ackloss" && m[3] == ClientLibrdkafka && !HasLibrdkafka():
			if !strings.Contains(l, "old librdkafka row") {
				t.Errorf("a build without librdkafka replaced its row: %s", l)
			}
		case m[1] == "ackloss":
			if strings.Contains(l, "old row") {
				t.Errorf("ackloss's row was not replaced: %s", l)
			}
		case strings.Contains(l, "| not run |") && !strings.Contains(l, "old "):
			t.Errorf("another scenario's row changed: %s", l)
		}
	}
	n := len(scoreboardRows(t, out))
	if want := fmt.Sprintf("%d cells: ", n); !strings.Contains(out, want) {
		t.Errorf("the counts line does not count the %d merged rows", n)
	}
	if strings.Count(out, " cells: ") != 1 {
		t.Errorf("%d counts lines, want 1", strings.Count(out, " cells: "))
	}
	// Merging the same scenarios again replaces the earlier merge's note
	// instead of adding a second one.
	var again strings.Builder
	if err := sb.MergeMarkdown(out, a.Only, &again); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(again.String(), "Rows of `ackloss`"); n != 1 {
		t.Errorf("merging ackloss twice left %d notes naming it, want 1", n)
	}
	if !strings.Contains(again.String(), full.Command) {
		t.Error("merging again dropped the first command's paragraph")
	}
	if err := sb.MergeMarkdown("# something else\n", a.Only, &md); err == nil {
		t.Error("merging into a file that is not a scoreboard succeeded")
	}
}
