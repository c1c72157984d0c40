package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows a bar with rate and ETA on stderr when it is a terminal,
// and nothing otherwise.
type progress struct {
	w    io.Writer // nil: silent
	bar  *progressbar.ProgressBar
	desc string // the bar's label; "" is "sweep"
}

func newProgress(stderr io.Writer) *progress {
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &progress{w: stderr}
	}
	return &progress{}
}

func (p *progress) update(done, total int64) {
	if p.w == nil {
		return
	}
	if p.bar == nil {
		desc := p.desc
		if desc == "" {
			desc = "sweep"
		}
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionSetItsString("runs"),
			progressbar.OptionShowIts(),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	_ = p.bar.Set64(done)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Exit()
	}
}
