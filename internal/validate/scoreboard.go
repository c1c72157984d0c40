package validate

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/idemsim/idemsim/scenarios"
)

// The scoreboard (simulate validate -all): every catalogue scenario ×
// idempotence mode × real client, each either run with -runs auto within
// an even share of a time budget, or refused with its reason
// (docs/validate.md; the committed one is docs/validation.md).

// Clients are the real clients a scoreboard has a column for.
var Clients = []string{ClientFranzGo, ClientLibrdkafka, ClientSarama}

// NoLibrdkafka is a librdkafka cell's reason in a build without it.
const NoLibrdkafka = "built without librdkafka tag (go build -tags librdkafka ./cmd/simulate; needs cgo)"

// Cell is one scenario × mode × client of the scoreboard.
type Cell struct {
	Scenario string `json:"scenario"`
	Mode     string `json:"mode"` // "off" or "on"
	Client   string `json:"client"`
	// Refused says why the cell cannot run; empty when it can.
	Refused string `json:"refused,omitempty"`
	// NotRun says why a cell that can run did not, or failed.
	NotRun string `json:"not_run,omitempty"`
	// Result is the cell's validate report (one mode), when it ran.
	Result *Result `json:"result,omitempty"`
}

// Key names the cell: "ackloss off franz-go".
func (c Cell) Key() string { return c.Scenario + " " + c.Mode + " " + c.Client }

// Verdict is the cell's verdict: agree, disagree or inconclusive when it
// ran, "refused" or "not run" otherwise.
func (c Cell) Verdict() string {
	switch {
	case c.Refused != "":
		return "refused"
	case c.Result == nil || len(c.Result.Modes) == 0:
		return "not run"
	}
	return c.Result.Modes[0].Verdict
}

// AllConfig is a scoreboard invocation.
type AllConfig struct {
	// Budget bounds the whole scoreboard's wall time; each runnable
	// cell gets an even share of what is left when it starts.
	Budget time.Duration
	Margin Margin
	Base   uint64
	// SimRuns are the simulated runs per cell; MaxRuns the most real
	// runs per cell.
	SimRuns, MaxRuns int
	Parallel         int
	// Only, if set, limits the cells to these scenarios (-all -only).
	Only []string
	// Start, if set, is told when a cell starts (k of n runnable).
	Start func(c Cell, k, n int)
	// realRunner replaces RunReal (tests).
	realRunner func(context.Context, RealSpec) (Counts, error)
}

// Scoreboard is the result of simulate validate -all.
type Scoreboard struct {
	Budget string `json:"budget"`
	Margin string `json:"margin"`
	// Command is the command line that made it, as the user typed it.
	Command string `json:"command"`
	Cells   []Cell `json:"cells"`
	WallMs  int64  `json:"wall_ms"`
	Client  string `json:"client"`
	Broker  string `json:"broker"`
}

// cellConfig is the validate configuration of one cell.
func (a *AllConfig) cellConfig(sc *scenarios.Scenario, on bool, client string) Config {
	return Config{Scenario: sc, Modes: []bool{on}, Client: client, Runs: a.MaxRuns, SimRuns: a.SimRuns, Base: a.Base,
		Margin: a.Margin, Auto: true, Budget: time.Hour, Parallel: a.Parallel, realRunner: a.realRunner}
}

// Cells lists every catalogue scenario × mode × client, in catalogue
// order, each refused with its reason or runnable.
func (a *AllConfig) Cells() []Cell {
	var out []Cell
	for _, sc := range scenarios.All() {
		if len(a.Only) > 0 && !slices.Contains(a.Only, sc.Name) {
			continue
		}
		for _, on := range []bool{false, true} {
			for _, client := range Clients {
				c := Cell{Scenario: sc.Name, Mode: modeName(on), Client: client}
				sup, ok := Supports(sc.Name)
				switch {
				case client == ClientLibrdkafka && !HasLibrdkafka():
					c.Refused = NoLibrdkafka
				case !ok:
					c.Refused = Unsupported[sc.Name]
					if c.Refused == "" {
						c.Refused = "not in validate's list"
					}
				case on && !sup.On || !on && !sup.Off:
					c.Refused = "idempotence " + c.Mode + " cannot be validated: " + sup.Note
				default:
					cfg := a.cellConfig(sc, on, client)
					if err := cfg.Check(); err != nil {
						c.Refused = err.Error()
					}
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// RunAll runs the scoreboard: every runnable cell with -runs auto, in
// catalogue order, within the budget. A cell the budget does not reach
// says so; a cell whose real run fails says why, and the others go on.
// Only an interruption (ctx) stops it early, with what was done so far.
func RunAll(ctx context.Context, a AllConfig) (*Scoreboard, error) {
	if a.Budget <= 0 {
		return nil, fmt.Errorf("-budget %v is not allowed (allowed: a positive Go duration such as 5m)", a.Budget)
	}
	start := time.Now()
	end := start.Add(a.Budget)
	sb := &Scoreboard{Budget: a.Budget.String(), Margin: a.Margin.String(), Cells: a.Cells(),
		Client: "franz-go kgo " + moduleVersion("github.com/twmb/franz-go"),
		Broker: "kfake " + moduleVersion("github.com/twmb/franz-go/pkg/kfake") + " (in process, loopback)"}
	if HasLibrdkafka() {
		sb.Client += "; librdkafka " + librdkafkaVersion()
	}
	sb.Client += "; IBM/sarama " + moduleVersion("github.com/IBM/sarama")
	var runnable []int
	for i, c := range sb.Cells {
		if c.Refused == "" {
			runnable = append(runnable, i)
		}
	}
	for k, i := range runnable {
		if err := ctx.Err(); err != nil {
			sb.WallMs = time.Since(start).Milliseconds()
			return sb, err
		}
		c := &sb.Cells[i]
		left := time.Until(end)
		if left <= 0 {
			c.NotRun = "the budget ran out before this cell"
			continue
		}
		if a.Start != nil {
			a.Start(*c, k+1, len(runnable))
		}
		sc, err := scenarios.Lookup(c.Scenario)
		if err != nil {
			return sb, err
		}
		cfg := a.cellConfig(sc, c.Mode == "on", c.Client)
		cfg.Budget = left / time.Duration(len(runnable)-k)
		res, err := Validate(ctx, cfg)
		switch {
		case err != nil && ctx.Err() != nil:
			sb.WallMs = time.Since(start).Milliseconds()
			return sb, err
		case err != nil:
			c.NotRun = "failed: " + err.Error()
		default:
			res.Runs = nil // the scoreboard keeps the verdicts, not every run
			c.Result = res
		}
	}
	sb.WallMs = time.Since(start).Milliseconds()
	return sb, nil
}

// cellRates is a ran cell's counters that are not 0 on both sides, with
// both rates, their intervals and the margin.
func cellRates(m ModeResult) string {
	var parts []string
	zero := 0
	for _, c := range m.Comparisons {
		if (c.Sim.Value == nil || *c.Sim.Value == 0) && (c.Real.Value == nil || *c.Real.Value == 0) {
			zero++
			continue
		}
		s := fmt.Sprintf("%s: %s · %s, margin %s: %s", c.Counter, interval(c.Sim), interval(c.Real), c.MarginText, c.Verdict)
		switch {
		case c.Excluded != "" && c.ExcludedBy == "client":
			s += " (client difference, not in the verdict)"
		case c.Excluded != "":
			s += " (kfake deviation, not in the verdict)"
		}
		parts = append(parts, s)
	}
	if zero > 0 {
		parts = append(parts, fmt.Sprintf("%d more counters 0 on both sides", zero))
	}
	return strings.Join(parts, "<br>")
}

// cellWhy is the last column: why the runs stopped, or why the cell was
// refused or not run.
func cellWhy(c Cell) string {
	switch {
	case c.Refused != "":
		return "refused: " + c.Refused
	case c.Result == nil || len(c.Result.Modes) == 0:
		return c.NotRun
	}
	m := c.Result.Modes[0]
	s := m.StopText
	if m.Verdict == Inconclusive && m.RunsNeeded != nil {
		s += fmt.Sprintf("; about %d real runs would decide it", *m.RunsNeeded)
	}
	return s
}

// mdCell escapes a table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// ScoreboardTitle starts every scoreboard file.
const ScoreboardTitle = "# Validation scoreboard"

// WriteMarkdown writes the scoreboard as docs/validation.md: a header
// with the command, budget, margin and versions, then one row per cell.
func (sb *Scoreboard) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString(ScoreboardTitle + "\n\n")
	fmt.Fprintf(&b, "Generated by `%s` (a budget of %s wall time for every cell together; it took %.0f s). ", sb.Command, sb.Budget, float64(sb.WallMs)/1000)
	b.WriteString("Do not edit: rerun the command. docs/validate.md says what each verdict, margin and reason means.\n\n")
	fmt.Fprintf(&b, "- simulated: idemsim with the client's policy (`client.policy=franz-go` or `librdkafka`; for sarama, which has none, the Java client's at `client.version=3.6` and one request in flight)\n")
	fmt.Fprintf(&b, "- real: %s against %s, every connection through validate's fault-injecting proxy on loopback\n", sb.Client, sb.Broker)
	fmt.Fprintf(&b, "- margin: %s\n", sb.Margin)
	b.WriteString("- every runnable cell runs `-runs auto` (looks at 30, 120, 480, ... real runs, look j at α = 0.05/2^j) within an even share of the budget left when it starts\n")
	b.WriteString("- rates: simulated · real, each with its 95% interval; per record sent (lost_acked: per record acknowledged); counters 0 on both sides are counted, not listed\n\n")
	rows := make([]string, 0, len(sb.Cells))
	for _, c := range sb.Cells {
		rows = append(rows, c.markdownRow())
	}
	writeTable(&b, rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownRow is the cell's row of the scoreboard's table.
func (c Cell) markdownRow() string {
	rates, runs := "", ""
	if c.Result != nil && len(c.Result.Modes) > 0 {
		m := c.Result.Modes[0]
		rates = cellRates(m)
		runs = fmt.Sprintf("%d / %d", m.RealRuns, m.SimRuns)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |", c.Scenario, c.Mode, c.Client, c.Verdict(), mdCell(rates), runs, mdCell(cellWhy(c)))
}

// tableHead starts the scoreboard's table.
const tableHead = "| scenario | mode | client | verdict | rates: simulated · real (95%), margin | real / simulated runs | why it stopped, or why not run |\n|---|---|---|---|---|---|---|\n"

// rowKey matches a table row's scenario, mode, client and verdict.
var rowKey = regexp.MustCompile(`^\| (\S+) \| (off|on) \| (\S+) \| ([a-z ]+) \|`)

// writeTable writes the count of the rows' verdicts, the table and the
// statement.
func writeTable(b *strings.Builder, rows []string) {
	counts := map[string]int{}
	for _, r := range rows {
		if m := rowKey.FindStringSubmatch(r); m != nil {
			counts[m[4]]++
		}
	}
	fmt.Fprintf(b, "%d cells: %d agree, %d disagree, %d inconclusive, %d not run, %d refused.\n\n",
		len(rows), counts[Agree], counts[Disagree], counts[Inconclusive], counts["not run"], counts["refused"])
	b.WriteString(tableHead)
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	b.WriteString("\n" + Statement + "\n")
}

// MergeMarkdown writes the scoreboard file old with the rows of sb's
// cells in place of old's rows for the same cells, and old's other rows
// kept as they were, in catalogue order (a row of a scenario no longer
// in the catalogue goes). A line under old's header names sb's command,
// the scenarios whose rows it wrote, its budget and its time, so that
// the file says which rows came from which run. sb must have run with
// AllConfig.Only.
func (sb *Scoreboard) MergeMarkdown(old string, only []string, w io.Writer) error {
	if !strings.HasPrefix(old, ScoreboardTitle) {
		return fmt.Errorf("it is not a scoreboard (it does not start with %q)", ScoreboardTitle)
	}
	head, rest, ok := strings.Cut(old, tableHead)
	if !ok {
		return fmt.Errorf("it has no scoreboard table")
	}
	// The header ends with the counts line, which is written again.
	if i := strings.LastIndex(strings.TrimRight(head, "\n"), "\n"); i >= 0 && strings.Contains(head[i:], " cells: ") {
		head = head[:i+1]
	}
	rows := map[string]string{}
	for _, l := range strings.Split(rest, "\n") {
		if m := rowKey.FindStringSubmatch(l); m != nil {
			rows[m[1]+" "+m[2]+" "+m[3]] = l
		}
	}
	kept := false
	for _, c := range sb.Cells {
		if _, had := rows[c.Key()]; had && c.Refused == NoLibrdkafka {
			// A build without librdkafka keeps the row a build with it
			// wrote.
			kept = true
			continue
		}
		rows[c.Key()] = c.markdownRow()
	}
	var ordered []string
	for _, sc := range scenarios.All() {
		for _, mode := range []string{"off", "on"} {
			for _, client := range Clients {
				if r, ok := rows[sc.Name+" "+mode+" "+client]; ok {
					ordered = append(ordered, r)
				}
			}
		}
	}
	var b strings.Builder
	// The note goes after the paragraph that names the first command.
	what := "`" + strings.Join(only, "`, `") + "`"
	if kept {
		what += " (but librdkafka's, which this build lacks)"
	}
	note := fmt.Sprintf("Rows of %s regenerated by `%s` (a budget of %s; it took %.0f s); the others are as the command above wrote them.\n\n",
		what, sb.Command, sb.Budget, float64(sb.WallMs)/1000)
	head = dropSuperseded(head, only)
	if i := strings.Index(head, "\n- simulated:"); i >= 0 {
		b.WriteString(head[:i+1] + note + head[i+1:])
	} else {
		b.WriteString(head + note)
	}
	writeTable(&b, ordered)
	_, err := io.WriteString(w, b.String())
	return err
}

// regenNote matches a merge's note, "Rows of `a`, `b` regenerated by
// ...", and names its scenarios.
var regenNote = regexp.MustCompile("^Rows of ((?:`[^`]+`(?:, )?)+)(?: \\(but librdkafka's, which this build lacks\\))? regenerated by ")

// dropSuperseded removes from the scoreboard's header the notes of
// earlier merges whose scenarios are all among only: their rows are all
// rewritten now, and the new note says by which command. A note that
// names a scenario not rerun stays.
func dropSuperseded(head string, only []string) string {
	paras := strings.SplitAfter(head, "\n\n")
	var out strings.Builder
	for _, p := range paras {
		m := regenNote.FindStringSubmatch(p)
		if m != nil {
			all := true
			for _, n := range strings.Split(m[1], ", ") {
				if !slices.Contains(only, strings.Trim(n, "`")) {
					all = false
				}
			}
			if all {
				continue
			}
		}
		out.WriteString(p)
	}
	return out.String()
}

// WriteText writes the scoreboard for a terminal: one line per cell.
func (sb *Scoreboard) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "idemsim validate -all: budget %s (took %.0f s), margin %s\n", sb.Budget, float64(sb.WallMs)/1000, sb.Margin)
	for _, c := range sb.Cells {
		runs := ""
		if c.Result != nil && len(c.Result.Modes) > 0 {
			runs = fmt.Sprintf(" (%d real runs)", c.Result.Modes[0].RealRuns)
		}
		fmt.Fprintf(&b, "  %-36s %-12s%s  %s\n", c.Key(), c.Verdict(), runs, cellWhy(c))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
