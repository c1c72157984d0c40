package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/idemsim/idemsim/internal/history"
	"github.com/idemsim/idemsim/internal/sweep"
	"github.com/idemsim/idemsim/scenarios"
)

// historyFlag is -history (docs/history.md): FILE (.jsonl or .edn) for a
// single run, DIR in a sweep.
type historyFlag struct{ path *string }

func addHistoryFlag(fs *flag.FlagSet) historyFlag {
	return historyFlag{fs.String("history", "", "write the run's client-visible history to `FILE` (.jsonl or .edn, docs/history.md); in a sweep, a DIR with one .jsonl file per kept failing seed")}
}

func (h historyFlag) on() bool { return *h.path != "" }

// checkFile validates -history FILE for a single run, before it runs; it
// returns a usage message or "".
func (h historyFlag) checkFile(shrink bool) string {
	if !h.on() {
		return ""
	}
	if shrink {
		return "-history is not allowed with -shrink (run the shrunk plan's reproduce command with -history)"
	}
	if _, err := history.FormatOf(*h.path); err != nil {
		return "-history " + err.Error()
	}
	if dir := filepath.Dir(*h.path); !isDir(dir) {
		return fmt.Sprintf("-history: cannot write %s: directory %s does not exist", *h.path, dir)
	}
	return ""
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// writeRun writes a single run's history.
func (h historyFlag) writeRun(hs *history.History, stderr io.Writer) int {
	if !h.on() || hs == nil {
		return exitOK
	}
	if err := history.WriteFile(*h.path, hs); err != nil {
		return usageErr(stderr, fmt.Sprintf("-history: cannot write %s: %v", *h.path, unwrapPath(err)))
	}
	return exitOK
}

// prepareDir makes a sweep's -history directory; it returns a usage
// message or "".
func (h historyFlag) prepareDir() string {
	if !h.on() {
		return ""
	}
	if fi, err := os.Stat(*h.path); err == nil && !fi.IsDir() {
		return fmt.Sprintf("-history %s: in a sweep -history names a directory, and this is a file", *h.path)
	}
	if _, err := history.FormatOf(*h.path); err == nil {
		return fmt.Sprintf("-history %s: in a sweep -history names a directory (one .jsonl file per kept failing seed), not a file", *h.path)
	}
	// Only the last element is made, as for -out: a mistyped parent is
	// refused, not created.
	if err := os.Mkdir(*h.path, 0o755); err != nil && !os.IsExist(err) {
		if parent := filepath.Dir(filepath.Clean(*h.path)); os.IsNotExist(err) {
			return fmt.Sprintf("-history %s: its parent directory %s does not exist (allowed: a new directory in an existing one; create %s first)", *h.path, parent, parent)
		}
		return fmt.Sprintf("-history: cannot make %s: %v", *h.path, unwrapPath(err))
	}
	return ""
}

// HistoryName is the file a sweep writes for one kept failing run:
// "point0-off-seed4.jsonl".
func HistoryName(k sweep.Kept) string {
	return fmt.Sprintf("point%d-%s-seed%d%s", k.Point, sweep.ModeName(k.On), k.Seed, history.JSONL.Ext())
}

// writeSweep runs every failing seed the sweep's summary keeps again, with
// its history, and writes one file each into the -history directory.
func (h historyFlag) writeSweep(cfg *sweep.Config, st *sweep.State, stderr io.Writer) int {
	if !h.on() {
		return exitOK
	}
	kept := st.Kept()
	for _, k := range kept {
		spec := cfg.Spec(k.Seed, k.Point, k.On)
		rec := history.Record(&spec)
		if _, err := scenarios.Run(spec); err != nil {
			return usageErr(stderr, fmt.Sprintf("-history: seed %d: %v", k.Seed, err))
		}
		path := filepath.Join(*h.path, HistoryName(k))
		if err := history.WriteFile(path, rec.History()); err != nil {
			return usageErr(stderr, fmt.Sprintf("-history: cannot write %s: %v", path, unwrapPath(err)))
		}
	}
	fmt.Fprintf(stderr, "simulate: %d histories of failing seeds in %s\n", len(kept), *h.path)
	return exitOK
}
