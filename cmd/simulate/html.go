package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/htmlpage"
)

// htmlFlag is -html FILE (docs/html.md): one self-contained page of a
// single run. Sweeps and explorations write their pages into -out.
type htmlFlag struct{ path *string }

func addHTMLFlag(fs *flag.FlagSet) htmlFlag {
	return htmlFlag{fs.String("html", "", "write the run as one self-contained HTML page to `FILE`.html: swim lanes of every node, the violation's record path, the trace beside it (docs/html.md); sweeps and -explore write pages into -out instead")}
}

func (h htmlFlag) on() bool { return *h.path != "" }

// check validates -html FILE for a single run, before it runs; it
// returns a usage message or "".
func (h htmlFlag) check(shrink bool) string {
	if !h.on() {
		return ""
	}
	if shrink {
		return "-html is not allowed with -shrink (run the shrunk plan's reproduce command with -html)"
	}
	if ext := strings.ToLower(filepath.Ext(*h.path)); ext != ".html" && ext != ".htm" {
		return fmt.Sprintf("-html %s: extension %q is not allowed (allowed: .html, .htm)", *h.path, ext)
	}
	if fi, err := os.Stat(*h.path); err == nil && fi.IsDir() {
		return fmt.Sprintf("-html: cannot write %s: it is a directory", *h.path)
	}
	if dir := filepath.Dir(*h.path); !isDir(dir) {
		return fmt.Sprintf("-html: cannot write %s: directory %s does not exist", *h.path, dir)
	}
	return ""
}

// write writes a single run's page.
func (h htmlFlag) write(res *scenarios.Result, run *htmlpage.Run, stderr io.Writer) int {
	if !h.on() || run == nil {
		return exitOK
	}
	if err := writePage(*h.path, res, run); err != nil {
		return usageErr(stderr, fmt.Sprintf("-html: cannot write %s: %v", *h.path, unwrapPath(err)))
	}
	return exitOK
}

// writePage writes a run's page to path: into a temporary file beside
// it, renamed into place once complete, so a failure leaves no partial
// page.
func writePage(path string, res *scenarios.Result, run *htmlpage.Run) error {
	htmlpage.Aggregate(run, htmlpage.MaxItems)
	var b bytes.Buffer
	if err := htmlpage.Write(&b, run, htmlpage.MetaOf(res, storyLines(res))); err != nil {
		return err
	}
	return writeFileAtomic(path, b.Bytes())
}

// writeFileAtomic writes data to path through a temporary file in the
// same directory.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// storyLines returns the report's "what happened", one item a line.
func storyLines(res *scenarios.Result) []string {
	var b bytes.Buffer
	writeStory(&b, res)
	var out []string
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "  - "):
			out = append(out, strings.TrimPrefix(l, "  - "))
		case strings.HasPrefix(l, "    ") && len(out) > 0:
			out[len(out)-1] += " " + strings.TrimSpace(l)
		}
	}
	return out
}
