package htmlpage_test

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/htmlpage"
	"github.com/idemsim/idemsim/scenarios/params"
)

// record runs a scenario with the page's reader and its trace kept.
func record(t testing.TB, name string, seed uint64, sets ...params.KV) (*scenarios.Result, *htmlpage.Run) {
	t.Helper()
	sc, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	spec := scenarios.Spec{Scenario: sc, Seed: seed, Sets: sets, KeepTrace: true}
	rec := htmlpage.Record(&spec)
	res, err := scenarios.Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	run := rec.Run()
	if run == nil {
		t.Fatal("the recorder holds no run after the run ended")
	}
	return res, run
}

func page(t testing.TB, res *scenarios.Result, run *htmlpage.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := htmlpage.Write(&b, run, htmlpage.MetaOf(res, []string{"a summary line"})); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zombieViolation is a zombie run that breaks INV-DUP (README's shrink
// example): its page highlights the duplicated record's path.
var zombieViolation = []params.KV{{Key: "app.mode", Value: "at-least-once"}, {Key: "fault.count", Value: "2"}}

// TestDeterministic: the same run gives the same bytes, run after run.
func TestDeterministic(t *testing.T) {
	res1, run1 := record(t, "zombie", 42)
	res2, run2 := record(t, "zombie", 42)
	a, b := page(t, res1, run1), page(t, res2, run2)
	if !bytes.Equal(a, b) {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Fatalf("two runs of zombie seed 42 give pages that differ at byte %d of %d/%d", i, len(a), len(b))
	}
	res3, run3 := record(t, "zombie", 43)
	if bytes.Equal(a, page(t, res3, run3)) {
		t.Fatal("seeds 42 and 43 give the same page")
	}
}

// TestSelfContained: nothing on the page reaches the network.
func TestSelfContained(t *testing.T) {
	res, run := record(t, "zombie", 42)
	p := string(page(t, res, run))
	for _, bad := range []string{"<script src", "<link", "@import", "url(", "http://", "https://", "@font-face"} {
		if strings.Contains(p, bad) {
			t.Errorf("the page holds %q: it must not load anything", bad)
		}
	}
	if n := strings.Count(p, "</script>"); n != 2 {
		t.Errorf("the page has %d script elements, want 2 (the data and the script): the data may have closed its element", n)
	}
}

// sendLine matches a trace line of a message put on the wire or dropped
// at its send.
var sendLine = regexp.MustCompile(`^t=\S+ \S+ send `)

// TestOneArrowPerMessage: the page's trace is the run's, and it has one
// message per send line, each naming that line.
func TestOneArrowPerMessage(t *testing.T) {
	for _, c := range []struct {
		name string
		seed uint64
		sets []params.KV
	}{{"zombie", 42, nil}, {"zombie", 539, zombieViolation}, {"ackloss", 4, []params.KV{{Key: "enable.idempotence", Value: "false"}}}} {
		res, run := record(t, c.name, c.seed, c.sets...)
		if !slices.Equal(run.Lines, res.Trace) {
			t.Fatalf("%s seed %d: the page's trace (%d lines) is not the run's (%d lines)", c.name, c.seed, len(run.Lines), len(res.Trace))
		}
		var sends []int32
		for i, l := range res.Trace {
			if sendLine.MatchString(l) {
				sends = append(sends, int32(i))
			}
		}
		if len(sends) != len(run.Msgs) {
			t.Fatalf("%s seed %d: %d send lines, %d messages", c.name, c.seed, len(sends), len(run.Msgs))
		}
		for i, m := range run.Msgs {
			if m.Line != sends[i] {
				t.Fatalf("%s seed %d: message %d names line %d, want %d", c.name, c.seed, i, m.Line, sends[i])
			}
			if m.Flags&htmlpage.MsgLost == 0 && (m.ArriveLine < 0 || !strings.Contains(res.Trace[m.ArriveLine], " recv ")) {
				t.Fatalf("%s seed %d: message %d (%s) arrived, but its arrival line %d is not a recv line", c.name, c.seed, i, m.Text, m.ArriveLine)
			}
			if m.Arrive < m.Sent {
				t.Fatalf("%s seed %d: message %d arrives before it is sent", c.name, c.seed, i)
			}
		}
	}
}

// TestFaultBands: zombie seed 42's pause is a band on p1's lane that
// ends when p1 resumes.
func TestFaultBands(t *testing.T) {
	_, run := record(t, "zombie", 42)
	found := false
	for _, b := range run.Bands {
		if run.Lanes[b.Lane].Name == "p1" && strings.HasPrefix(b.Text, "pause p1") {
			found = true
			if b.Until <= b.From {
				t.Errorf("the pause band ends at %v, before it starts at %v", b.Until, b.From)
			}
		}
	}
	if !found {
		t.Fatalf("no pause band on p1; bands: %+v", run.Bands)
	}
	epochs := 0
	for _, m := range run.Marks {
		if m.Class == htmlpage.MarkEpoch && run.Lanes[m.Lane].Kind == "coordinator" {
			epochs++
		}
	}
	if epochs == 0 {
		t.Error("no epoch bump marked on the coordinator's lane")
	}
}

// TestViolationPath: the violated record's path holds its send, the
// produce requests and responses that carried it, its appends and its
// acknowledgement, and the violation is marked.
func TestViolationPath(t *testing.T) {
	res, run := record(t, "zombie", 539, zombieViolation...)
	if !res.HasViolations() {
		t.Fatal("the run no longer violates an invariant: pick another")
	}
	var path []htmlpage.Ref
	for _, r := range run.Records {
		if r.ID.String() == "a0:20" {
			path = r.Items
		}
	}
	if !strings.HasPrefix(res.Violations[0].Detail, "a0:20 ") {
		t.Fatalf("the first violation is %q, the test expects record a0:20's", res.Violations[0].Detail)
	}
	got := map[string]int{}
	for _, r := range path {
		i := int(r >> 2)
		switch r & 3 {
		case htmlpage.RefCall:
			got["call "+strings.Fields(run.Calls[i].Text)[0]]++
		case htmlpage.RefMsg:
			got["msg "+run.Kinds[run.Msgs[i].Kind]]++
		case htmlpage.RefMark:
			got["mark"+string(rune('0'+run.Marks[i].Class))]++
		}
	}
	for _, want := range []string{"call send", "call ack", "msg Produce", "msg ProduceResp", "mark" + string(rune('0'+htmlpage.MarkAppend))} {
		if got[want] == 0 {
			t.Errorf("a0:20's path has no %q: %v", want, got)
		}
	}
	if got["mark"+string(rune('0'+htmlpage.MarkAppend))] < 2 {
		t.Errorf("a0:20 was appended twice (the duplicate), its path has %d appends", got["mark3"])
	}
	marked := 0
	for _, m := range run.Marks {
		if m.Class == htmlpage.MarkViolation {
			marked++
		}
	}
	if marked != len(res.Violations) {
		t.Errorf("%d violation marks, %d violations", marked, len(res.Violations))
	}
}

// TestAggregate: a run above the limit has its calls collapsed, and its
// record paths point to the collapsed calls.
func TestAggregate(t *testing.T) {
	_, run := record(t, "zombie", 42)
	calls, items := len(run.Calls), run.Items()
	htmlpage.Aggregate(run, items)
	if run.Aggregated != "" || len(run.Calls) != calls {
		t.Fatal("a run within the limit was aggregated")
	}
	htmlpage.Aggregate(run, items-1)
	if run.Aggregated == "" || len(run.Calls) >= calls {
		t.Fatalf("a run above the limit kept its %d calls (now %d), note %q", calls, len(run.Calls), run.Aggregated)
	}
	for _, r := range run.Records {
		sends := 0
		for _, it := range r.Items {
			if it&3 == htmlpage.RefCall {
				if int(it>>2) >= len(run.Calls) {
					t.Fatalf("record %s points to call %d of %d", r.ID, it>>2, len(run.Calls))
				}
				if c := run.Calls[it>>2]; c.Class == htmlpage.CallSend {
					sends++
					if !strings.Contains(c.Text, r.ID.String()) && !strings.Contains(c.Text, "..") {
						t.Fatalf("record %s points to the call %q", r.ID, c.Text)
					}
				}
			}
		}
		if sends == 0 {
			t.Fatalf("record %s lost its send", r.ID)
		}
	}
}

// TestIndex: the index renders a report's Markdown (headings, tables,
// code, images, inline marks) escaped, and links each run page.
func TestIndex(t *testing.T) {
	md := "# sweep <x>\n\nA *plain* paragraph with `a<b` and **bold**\nwrapped.\n\n| a | b |\n| --- | --- |\n| 1 | `2` |\n\n![chart](inv_dup.png)\n\n```sh\nsimulate -seed 1 <in\n```\n\n- one\n- two\n"
	var b bytes.Buffer
	if err := htmlpage.WriteIndex(&b, htmlpage.Index{Title: "t", Report: md, RunsTitle: "Failing seeds",
		Runs: []htmlpage.IndexRun{{Label: "seed 4", Href: "point0-off-seed4.html", Verdict: "INV-DUP"}}}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"<h2>sweep &lt;x&gt;</h2>",
		"<p>A <em>plain</em> paragraph with <code>a&lt;b</code> and <strong>bold</strong> wrapped.</p>",
		"<tr><th>a</th><th>b</th></tr>", "<tr><td>1</td><td><code>2</code></td></tr>",
		`<img src="inv_dup.png" alt="chart">`,
		"<pre><code>simulate -seed 1 &lt;in\n</code></pre>",
		"<li>one</li>", `<a href="point0-off-seed4.html">`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the index does not hold %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "---") {
		t.Error("the table's separator row was rendered")
	}
}
