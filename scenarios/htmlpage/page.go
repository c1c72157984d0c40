package htmlpage

import (
	_ "embed"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/scenarios"
)

// The page's styles and script: ordinary files written by hand, embedded
// at build time (docs/html.md says why no library).
var (
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/page.js
	pageJS string
)

// Meta is what a run's page says about the run above its diagram.
type Meta struct {
	// Scenario and Seed name the run; Version is the simulator's,
	// Versions the Kafka versions it modelled ("kafka=4.1
	// transaction.version=2").
	Scenario string
	Seed     uint64
	Version  string
	Versions string
	// Idempotence is the run's enable.idempotence.
	Idempotence bool
	// Summary is what happened, one item a line (the report's "what
	// happened").
	Summary []string
	// Invariants are the invariants the run judged, in report order.
	Invariants []string
	// Reproduce is the command that runs it again.
	Reproduce string
	// TraceHash is the run's trace hash.
	TraceHash string
	// Cut is the number of violations of each invariant the result left
	// out of its list (scenarios.Result.CutBy).
	Cut map[string]int64
}

// MetaOf fills a Meta from a run's result and its summary lines.
func MetaOf(res *scenarios.Result, summary []string) Meta {
	return Meta{Scenario: res.Scenario, Seed: res.Seed, Version: scenarios.Version, Versions: res.Versions,
		Idempotence: res.Idempotence, Summary: summary, Invariants: scenarios.Invariants(),
		Reproduce: res.Reproduce, TraceHash: res.TraceHash, Cut: res.CutBy}
}

// Write writes the run's page to w: one self-contained HTML file (no
// network access, no external script or font). The same run and meta
// give the same bytes.
func Write(w io.Writer, r *Run, m Meta) error {
	var b strings.Builder
	title := "idemsim run: scenario " + m.Scenario + " seed " + strconv.FormatUint(m.Seed, 10)
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + html.EscapeString(title) + "</title>\n<style>\n")
	b.WriteString(pageCSS)
	b.WriteString("</style>\n</head>\n<body>\n<header id=\"head\">\n")
	b.WriteString("<h1>" + html.EscapeString(title) + "</h1>\n<p class=\"versions\">")
	mode := "on"
	if !m.Idempotence {
		mode = "off"
	}
	b.WriteString(html.EscapeString("idemsim " + m.Version + " · idempotence " + mode + " · " + m.Versions + " · trace hash " + m.TraceHash))
	b.WriteString("</p>\n")
	if len(m.Summary) > 0 {
		b.WriteString("<details open><summary>What happened</summary>\n<ul class=\"story\">\n")
		for _, s := range m.Summary {
			b.WriteString("<li>" + html.EscapeString(s) + "</li>\n")
		}
		b.WriteString("</ul>\n</details>\n")
	}
	writeVerdicts(&b, r, m)
	if m.Reproduce != "" {
		b.WriteString("<p class=\"repro\">reproduce: <code id=\"repro\">" + html.EscapeString(m.Reproduce) + "</code> <button id=\"copy\" type=\"button\">copy</button> <span id=\"copied\"></span></p>\n")
	}
	if r.Aggregated != "" {
		b.WriteString("<p class=\"note\" id=\"aggregated\">" + html.EscapeString(r.Aggregated) + "</p>\n")
	}
	b.WriteString(pageBody)
	b.WriteString("<script type=\"application/json\" id=\"data\">")
	b.Write(appendData(nil, r, &m))
	b.WriteString("</script>\n<script>\n")
	b.WriteString(pageJS)
	b.WriteString("</script>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeVerdicts writes the verdict table: every invariant the run
// judged, ok or violated with its count and first detail.
func writeVerdicts(b *strings.Builder, r *Run, m Meta) {
	count := map[string]int{}
	first := map[string]string{}
	for _, v := range r.Violations {
		if count[v.Invariant] == 0 {
			first[v.Invariant] = v.Detail
		}
		count[v.Invariant]++
	}
	invs := m.Invariants
	for _, v := range r.Violations { // an invariant the list does not name
		if !contains(invs, v.Invariant) {
			invs = append(invs, v.Invariant)
		}
	}
	var ok []string
	b.WriteString("<details open><summary>Verdicts</summary>\n<table class=\"verdicts\">\n")
	for _, inv := range invs {
		n := count[inv]
		if n == 0 {
			ok = append(ok, inv)
			continue
		}
		listed := strconv.Itoa(n)
		if c := m.Cut[inv]; c > 0 {
			listed = strconv.FormatInt(int64(n)+c, 10) + ", " + strconv.FormatInt(c, 10) + " not listed"
		}
		b.WriteString("<tr class=\"bad\"><td>" + html.EscapeString(inv) + "</td><td>VIOLATED (" + listed + ")</td><td>first: " + html.EscapeString(first[inv]) + "</td></tr>\n")
	}
	if len(ok) > 0 {
		b.WriteString("<tr><td colspan=\"3\">ok: " + html.EscapeString(strings.Join(ok, ", ")) + "</td></tr>\n")
	}
	b.WriteString("</table>\n</details>\n")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// pageBody is the page's frame below the header: the toolbar and
// filters, the diagram, the details box and the trace panel. The script
// fills them from the data.
const pageBody = `</header>
<div id="toolbar">
<button type="button" id="fit" title="fit the whole run to the window">fit</button>
<button type="button" id="zoomin" title="zoom in (wheel)">+</button>
<button type="button" id="zoomout" title="zoom out (wheel)">−</button>
<button type="button" id="fitpath" title="fit the chosen record's path to the window">fit path</button>
<label>record <input id="record" list="recordlist" size="9" placeholder="a0:20"></label><datalist id="recordlist"></datalist>
<label><input type="checkbox" id="dim"> dim others</label>
<label><input type="checkbox" id="calls" checked> app calls</label>
<details class="filter"><summary>nodes</summary><div id="lanefilter"></div></details>
<details class="filter"><summary>message kinds</summary><div id="kindfilter"></div></details>
<span id="status"></span>
</div>
<div id="main">
<div id="diagram"><canvas id="canvas"></canvas><div id="tip" hidden></div></div>
<aside id="side">
<div id="details"><p class="hint">Hover or click an arrow, mark or band for its trace line and fields; click a trace line to find it in the diagram.</p></div>
<div id="trace" tabindex="0"></div>
</aside>
</div>
<div id="legend"></div>
`
