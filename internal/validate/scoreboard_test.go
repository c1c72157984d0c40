package validate

import (
	"context"
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
			if _, ok := Supports(c.Scenario); ok && !strings.Contains(c.Refused, "cannot be validated") {
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
	for _, want := range []string{"refused: " + NoLibrdkafka, "budget of 3s", "refused: " + Unsupported["txntimeout"]} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("scoreboard lacks %q:\n%s", want, md.String())
		}
	}
}
