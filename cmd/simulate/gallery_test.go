package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var gallery = flag.Bool("gallery", false, "regenerate the charts in docs/img from the commands in galleryCharts")

// galleryCharts are the charts the docs show, in docs/img, each with the
// sweep that draws it: the command the doc prints beside the chart, run
// with the -out the doc names. go test ./cmd/simulate -run TestGallery
// -gallery regenerates them all (docs/img/README.md says so).
var galleryCharts = []struct {
	// file is the name in docs/img, without extension; chart the sweep's
	// chart of that name, or "" for a single run's chart written to the
	// file its last argument names (-latency-chart FILE.png; the .svg is
	// drawn by the same command with FILE.svg).
	file, chart string
	// doc is the doc that shows the chart and prints the command.
	doc  string
	args []string
}{
	{"replication-lost-acked", "lost_acked_rate", "docs/replication.md",
		[]string{"-scenario", "unclean", "-runs", "200", "-idempotence=false", "-vary", "acks=0,1,all", "-vary", "min.insync.replicas=1,2", "-out", "unclean-sweep"}},
	{"acks1-timing", "lost_acked_rate", "docs/replication.md",
		[]string{"-scenario", "acks1", "-idempotence=false", "-runs", "100", "-set", "records=40", "-vary", "fault.at.ms=140:240:5", "-vary", "send.interval.ms=5,10,20,40", "-out", "acks1-timing"}},
	{"rolling-latency", "", "docs/operations.md",
		[]string{"-scenario", "rolling", "-seed", "1", "-latency-chart", "rolling-latency.png"}},
	{"lsolag-live-read", "live_read", "docs/consumers.md",
		[]string{"-scenario", "lsolag", "-idempotence=true", "-runs", "20", "-set", "pause.ms=30000", "-vary", "transaction.timeout.ms=2000:20000:1000", "-out", "lsolag-sweep"}},
	{"rebalance-duplicates", "duplicate_rate", "docs/consumers.md",
		[]string{"-scenario", "rebalance", "-idempotence=true", "-runs", "100", "-vary", "commit.interval.ms=250,1000,2500,5000", "-out", "rebalance-sweep"}},
	{"unstable-stall", "offset_fetch_stall", "docs/consumers.md",
		[]string{"-scenario", "unstable", "-idempotence=true", "-runs", "50", "-vary", "transaction.timeout.ms=10000,20000,40000,60000", "-out", "unstable-sweep"}},
}

// TestGallery: every chart in docs/img is what its command draws today,
// byte for byte (SVG and PNG), and the doc that shows it prints the
// command. A change that moves a chart fails here until the gallery is
// regenerated with -gallery.
func TestGallery(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, g := range galleryCharts {
		doc, err := os.ReadFile(filepath.Join(root, g.doc))
		if err != nil {
			t.Fatal(err)
		}
		oneLine := strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "\\\n", " ")), " ")
		if !strings.Contains(oneLine, "go run ./cmd/simulate "+strings.Join(g.args, " ")) {
			t.Errorf("%s does not print the command of img/%s: go run ./cmd/simulate %s", g.doc, g.file, strings.Join(g.args, " "))
		}
		if !strings.Contains(string(doc), "img/"+g.file+".png") {
			t.Errorf("%s does not show img/%s.png", g.doc, g.file)
		}
		if code, _, e := runCLI(g.args...); code != exitOK {
			t.Fatalf("img/%s: exit %d: %s", g.file, code, e)
		}
		out := g.args[len(g.args)-1]
		for _, ext := range []string{".svg", ".png"} {
			src := filepath.Join(out, g.chart+ext)
			if g.chart == "" {
				src = strings.TrimSuffix(out, filepath.Ext(out)) + ext
				args := append(slices.Clone(g.args[:len(g.args)-1]), src)
				if code, _, e := runCLI(args...); code != exitOK {
					t.Fatalf("img/%s: exit %d: %s", g.file, code, e)
				}
			}
			got, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, "docs", "img", g.file+ext)
			if *gallery {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if want, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
				t.Errorf("docs/img/%s%s is not what its command draws today (go test ./cmd/simulate -run TestGallery -gallery regenerates it)", g.file, ext)
			}
		}
		os.RemoveAll(out)
	}
}
