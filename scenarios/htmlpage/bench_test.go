package htmlpage_test

import (
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios/params"
)

// bigRecords makes ackloss seed 1 a run of just over 10,000 events
// (10,095: 2,830 records, about 22,000 trace lines).
const bigRecords = "2830"

// BenchmarkPage10k loads the page of a 10,000-event run in headless
// Chromium and reports, per iteration, the load time (navigation to the
// first frame drawn, load-ms), the page script's own time from its start
// to that frame (script-ms), the time of one pan of 200 px at the fitted
// view, every arrow in view (pan-ms: the redraw the pan causes, measured
// in the page), and of one pan zoomed in 10 times (pan10x-ms). docs/html.md states them with this command:
//
//	go test ./scenarios/htmlpage -run '^$' -bench Page10k -benchtime 5x
func BenchmarkPage10k(b *testing.B) {
	chromium(b)
	res, run := record(b, "ackloss", 1, params.KV{Key: "records", Value: bigRecords})
	if res.Events < 10_000 {
		b.Fatalf("the run has %d events, the benchmark wants at least 10,000: raise bigRecords", res.Events)
	}
	path := writePage(b, b.TempDir(), "big.html", res, run)
	br := newBrowser(b, 1400, 900)
	br.open(b, path) // the browser's first page: its start is not the page's
	var load time.Duration
	var script, pan, panZoomed float64
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		br.open(b, path)
		load += time.Since(start)
		script += eval[float64](b, br, `idemsimPage.loadMs`)
		pan += eval[float64](b, br, `idemsimPage.pan(200)`)
		panZoomed += eval[float64](b, br, `idemsimPage.zoom(10), idemsimPage.pan(200)`)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(load.Microseconds())/1000/n, "load-ms")
	b.ReportMetric(script/n, "script-ms")
	b.ReportMetric(pan/n, "pan-ms")
	b.ReportMetric(panZoomed/n, "pan10x-ms")
	b.ReportMetric(float64(res.Events), "events")
	b.ReportMetric(float64(len(run.Msgs)), "arrows")
	if errs := br.consoleErrors(); len(errs) > 0 {
		b.Fatalf("console errors: %v", errs)
	}
}
