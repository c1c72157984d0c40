package htmlpage_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/htmlpage"
	"github.com/idemsim/idemsim/scenarios/params"
)

// update makes TestBrowser replace the README's screenshot of the zombie
// page (docs/img/html-zombie.png).
var update = flag.Bool("update", false, "replace docs/img/html-zombie.png with a screenshot of the zombie page")

// screenshot is the picture the README shows, relative to this package.
const screenshot = "../../docs/img/html-zombie.png"

// chromium returns the headless browser's path, or skips the test.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no Chromium on PATH: the browser tests need Debian's chromium package (apt-get install -y chromium; .ci/run installs it)"
	if os.Getenv("IDEMSIM_BROWSER") == "required" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// browser is a headless Chromium with one tab and the page's console
// errors collected.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t testing.TB, width, height int) *browser {
	t.Helper()
	path := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.DisableGPU,
		chromedp.NoSandbox, chromedp.WindowSize(width, height), chromedp.UserDataDir(t.TempDir()))
	// Chromium on a loaded machine now and then dies while it starts
	// (a crash report, no page yet): start it again, at most three times.
	var b *browser
	var err error
	for try := 0; try < 3; try++ {
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(actx)
		t.Cleanup(func() { cancel(); cancelA() })
		b = &browser{ctx: ctx}
		if err = b.listen(); err == nil {
			return b
		}
		t.Logf("Chromium did not start (try %d of 3): %v", try+1, firstLine(err.Error()))
	}
	t.Fatalf("cannot start Chromium (%s): %v", path, err)
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// listen starts the browser and collects the page's console errors.
func (b *browser) listen() error {
	return chromedp.Listen(b.ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == "error" || e.Type == "assert" {
				msg = "console." + string(e.Type)
				for _, a := range e.Args {
					msg += " " + string(a.Value) + a.Description
				}
			}
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == "error" {
				msg = "log: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			b.mu.Lock()
			b.errors = append(b.errors, msg)
			b.mu.Unlock()
		}
	})
}

func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// open loads a page from a file URL and waits until its script ran.
func (b *browser) open(t testing.TB, path string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b.ctx, chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`window.idemsimPage && window.idemsimPage.ready && window.idemsimPage.stats.frames > 0`)); err != nil {
		t.Fatalf("the page's script did not finish: %v (console: %v)", err, b.consoleErrors())
	}
}

func eval[T any](t testing.TB, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// writePage runs a scenario and writes its page into dir.
func writePage(t testing.TB, dir, name string, res *scenarios.Result, run *htmlpage.Run) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := htmlpage.Write(f, run, htmlpage.MetaOf(res, []string{"summary"})); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBrowser loads pages in headless Chromium from file URLs and checks
// that they load without a console error, draw one arrow per message of
// the trace, highlight the violation's record path, and keep the trace
// and the diagram in step both ways. With -update it replaces the
// README's screenshot of the zombie page.
func TestBrowser(t *testing.T) {
	chromium(t)
	dir := t.TempDir()
	b := newBrowser(t, 1400, 900)

	t.Run("zombie", func(t *testing.T) {
		res, run := record(t, "zombie", 42)
		b.open(t, writePage(t, dir, "zombie.html", res, run))
		checkArrows(t, b, res)
		if !*update {
			return
		}
		// The README's picture is the page its command writes, summary
		// and all: run that command.
		readme := filepath.Join(dir, "readme.html")
		cmd := exec.Command("go", "run", "../../cmd/simulate", "-seed", "42", "-scenario", "zombie", "-html", readme)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		b.open(t, readme)
		buf, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(screenshot, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", screenshot)
	})

	t.Run("violation", func(t *testing.T) {
		res, run := record(t, "zombie", 539, zombieViolation...)
		b.open(t, writePage(t, dir, "violation.html", res, run))
		checkArrows(t, b, res)
		checkViolation(t, b)
		checkTraceClick(t, b, res)
		checkDiagramClick(t, b)
		checkFitPath(t, b)
	})

	t.Run("replicated", func(t *testing.T) {
		res, run := record(t, "acks1", 1, params.KV{Key: "enable.idempotence", Value: "false"})
		b.open(t, writePage(t, dir, "acks1.html", res, run))
		checkArrows(t, b, res)
		if got := eval[int](t, b, `idemsimPage.data.lanes.filter(function (l) { return l[1] === "controller"; }).length`); got != 1 {
			t.Errorf("the replicated run's page has %d controller lanes, want 1", got)
		}
	})

	t.Run("aggregated", func(t *testing.T) {
		res, run := record(t, "zombie", 42)
		htmlpage.Aggregate(run, run.Items()-1)
		b.open(t, writePage(t, dir, "aggregated.html", res, run))
		checkArrows(t, b, res)
		if got := eval[string](t, b, `(document.getElementById("aggregated") || {}).textContent || ""`); got != run.Aggregated || got == "" {
			t.Errorf("the aggregated page's note is %q, want %q", got, run.Aggregated)
		}
		// Every app-send line still leads to a call: the collapsed one.
		unmapped := eval[int](t, b, `idemsimPage.data.lines.filter(function (l, i) { return / app-send /.test(l) && idemsimPage.lineItem[i] < 0; }).length`)
		if unmapped != 0 {
			t.Errorf("%d app-send lines of the aggregated page select nothing", unmapped)
		}
	})

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages wrote %d console errors: %s", len(errs), strings.Join(errs, "; "))
	}
}

// checkArrows: at the fitted view the page draws one arrow per send line
// of the run's trace, and lists every trace line.
func checkArrows(t *testing.T, b *browser, res *scenarios.Result) {
	t.Helper()
	sends := 0
	for _, l := range res.Trace {
		if sendLine.MatchString(l) {
			sends++
		}
	}
	if got := eval[int](t, b, `idemsimPage.stats.arrows`); got != sends {
		t.Errorf("the page draws %d arrows, the trace has %d messages", got, sends)
	}
	if got := eval[int](t, b, `idemsimPage.data.lines.length`); got != len(res.Trace) {
		t.Errorf("the page holds %d trace lines, the run has %d", got, len(res.Trace))
	}
	if got := eval[int](t, b, `document.querySelectorAll("#trace .ln").length`); got == 0 {
		t.Error("the trace panel shows no line")
	}
}

// checkViolation: the page opens with the violation's record chosen, its
// path drawn in the path colour (a pixel on one of its produce arrows
// reads red), and the violated invariant in the header.
func checkViolation(t *testing.T, b *browser) {
	t.Helper()
	if got := eval[string](t, b, `idemsimPage.state.record`); got != "a0:20" {
		t.Errorf("the page opens with record %q chosen, want the violation's a0:20", got)
	}
	if got := eval[int](t, b, `idemsimPage.stats.highlighted`); got < 4 {
		t.Errorf("the page highlights %d items of the violation's path, want its send, produce, response and appends", got)
	}
	if got := eval[string](t, b, `document.querySelector("table.verdicts tr.bad td").textContent`); got != "INV-DUP" {
		t.Errorf("the header's first violated verdict is %q, want INV-DUP", got)
	}
	// The colour of the canvas under the middle of the path's first
	// produce request: [r, g, b].
	rgb := eval[[]int](t, b, `(function () {
		var P = idemsimPage, D = P.data, path = D.records.find(function (r) { return r[0] === "a0:20"; })[1];
		var id = -1;
		for (var i = 0; i < path.length; i++) {
			var r = path[i];
			if ((r & 3) === 0 && D.kinds[D.msgs[r >> 2][4]] === "Produce") { id = r >> 2; break; }
		}
		var p = P.itemPoint(id), c = document.getElementById("canvas"), dpr = c.width / c.clientWidth;
		var d = c.getContext("2d").getImageData(Math.round(p[0] * dpr), Math.round(p[1] * dpr), 1, 1).data;
		return [d[0], d[1], d[2]];
	})()`)
	if len(rgb) != 3 || rgb[0] < 180 || rgb[1] > 90 || rgb[2] > 110 {
		t.Errorf("the pixel under the path's produce arrow is rgb%v, want the path's red", rgb)
	}
}

// checkTraceClick: a click on a message's trace line selects its arrow.
func checkTraceClick(t *testing.T, b *browser, res *scenarios.Result) {
	t.Helper()
	line := -1
	for i, l := range res.Trace {
		if sendLine.MatchString(l) && strings.Contains(l, " send Produce#") {
			line = i // the last produce request
		}
	}
	if line < 0 {
		t.Fatal("the run sends no produce request")
	}
	want := eval[int](t, b, fmt.Sprintf(`idemsimPage.msgOfLine(%d)`, line))
	eval[chromedp.Void](t, b, fmt.Sprintf(`idemsimPage.scrollTraceTo(%d)`, line))
	// Let the scroll's redraw of the panel pass before the click.
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](`new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); })`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	sel := chromedp.CSS(fmt.Sprintf(`#trace .ln[data-line="%d"]`, line))
	if err := chromedp.Do(b.ctx, chromedp.Click(sel)); err != nil {
		t.Fatal(err)
	}
	if got := eval[int](t, b, `idemsimPage.state.selected`); got != want || want < 0 {
		t.Errorf("a click on trace line %d (%s) selects item %d, want its arrow %d", line, res.Trace[line], got, want)
	}
	if got := eval[string](t, b, `document.querySelector("#details").textContent`); !strings.Contains(got, res.Trace[line]) {
		t.Errorf("the details after the click do not show the trace line %q: %s", res.Trace[line], got)
	}
}

// checkDiagramClick: a click on an arrow in the diagram selects it and
// marks its trace line.
func checkDiagramClick(t *testing.T, b *browser) {
	t.Helper()
	eval[chromedp.Void](t, b, `document.getElementById("fit").click()`)
	// the late message: a long arrow with nothing else at its middle.
	id := eval[int](t, b, `idemsimPage.data.msgs.findIndex(function (m) { return m[7] & 2; })`)
	if id < 0 {
		t.Fatal("the violation run has no late message to click")
	}
	xy := eval[[]float64](t, b, fmt.Sprintf(`(function () { var p = idemsimPage.itemPoint(%d), r = document.getElementById("canvas").getBoundingClientRect(); return [p[0] + r.left, p[1] + r.top]; })()`, id))
	if err := chromedp.Do(b.ctx, chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		t.Fatal(err)
	}
	if got := eval[int](t, b, `idemsimPage.state.selected`); got != id {
		t.Fatalf("a click on the late arrow selects item %d, want %d", got, id)
	}
	line := eval[int](t, b, fmt.Sprintf(`idemsimPage.data.msgs[%d][5]`, id))
	if got := eval[string](t, b, `(function () { var s = document.querySelector("#trace .ln.sel"); return s ? s.dataset.line : "none"; })()`); got != fmt.Sprint(line) {
		t.Errorf("after a click on the late arrow the trace marks line %s, want its send line %d", got, line)
	}
}

// checkFitPath: "fit path" zooms in on the chosen record's path, every
// item of it in view, and "fit" comes back to the whole run.
func checkFitPath(t *testing.T, b *browser) {
	t.Helper()
	fitted := eval[float64](t, b, `idemsimPage.state.scale`)
	eval[chromedp.Void](t, b, `document.getElementById("fitpath").click(), idemsimPage.renderNow()`)
	if got := eval[float64](t, b, `idemsimPage.state.scale`); got <= fitted {
		t.Errorf("fit path left the scale at %g px/ns (fitted: %g): it did not zoom in on a0:20's path", got, fitted)
	}
	inView := eval[bool](t, b, `(function () {
		var P = idemsimPage, D = P.data, w = document.getElementById("canvas").clientWidth;
		var path = D.records.find(function (r) { return r[0] === "a0:20"; })[1];
		return path.every(function (r) { if ((r & 3) !== 0) return true; var m = D.msgs[r >> 2], p = P.itemPoint(r >> 2); return p[0] >= 0 && p[0] <= w; });
	})()`)
	if !inView {
		t.Error("after fit path, an arrow of a0:20's path is out of view")
	}
	eval[chromedp.Void](t, b, `document.getElementById("fit").click(), idemsimPage.renderNow()`)
	if got := eval[float64](t, b, `idemsimPage.state.scale`); got != fitted {
		t.Errorf("fit after fit path gives scale %g, want the fitted %g", got, fitted)
	}
}
