package check

import (
	"fmt"
	"time"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// LiveRead is a read_committed consumer's progress: it does not wait
// longer than a bound (consumer.stuck.ms) at a last stable offset that
// does not move while records it cannot read lie behind it.
const LiveRead = "LIVE-READ"

// liveRead follows each read_committed consumer's fetches per partition
// ([model.ObsConsumerFetch]): the consumer is stuck while its position
// is the LSO and the high watermark is above it; the wait starts at the
// first such fetch and lasts while the LSO stays the same. A wait longer
// than the bound (at its end, or at the run's end) is reported once,
// with the open transaction that holds the LSO (from the appends and
// markers the stream shows).
type liveRead struct {
	bound time.Duration
	names []string
	lv    *logView
	waits []stuckWait
	out   []Violation
}

type stuckWait struct {
	node, part int32
	lso, hw    int64
	since, at  sim.Time
	stuck      bool
	reported   bool
	pid        model.ProducerID
	held       bool
}

func newLiveRead() invariant { return &liveRead{} }

func (l *liveRead) reset(cfg Config, lv *logView) {
	l.bound, l.names, l.lv = cfg.ConsumerStuck, cfg.Names, lv
	if l.bound <= 0 {
		l.bound = 10 * time.Second
	}
	l.waits, l.out = truncated(l.waits), truncated(l.out)
}

func (l *liveRead) Name() string { return LiveRead }

func (l *liveRead) reads() []model.ObsKind {
	return liveReadKinds
}

func (l *liveRead) wait(node, part int32) *stuckWait {
	for i := range l.waits {
		if l.waits[i].node == node && l.waits[i].part == part {
			return &l.waits[i]
		}
	}
	l.waits = append(l.waits, stuckWait{node: node, part: part})
	return &l.waits[len(l.waits)-1]
}

func (l *liveRead) Observe(o *model.Obs) {
	if o.Kind != model.ObsConsumerFetch || !o.Flag {
		return
	}
	w := l.wait(o.Node, o.Partition)
	lso, hw := o.Result.FirstOffset, o.Result.LastOffset
	stuck := o.N == lso && lso < hw
	if !stuck || !w.stuck || lso != w.lso {
		l.judge(w, o.At)
		*w = stuckWait{node: w.node, part: w.part, stuck: stuck, lso: lso, since: o.At}
	}
	w.hw, w.at = hw, o.At
	if stuck {
		if off, pid, ok := l.lv.otx.lso(o.Partition); ok && off == lso {
			w.pid, w.held = pid, true
		}
	}
}

// judge reports w's wait if it lasted longer than the bound until end.
func (l *liveRead) judge(w *stuckWait, end sim.Time) {
	if !w.stuck || w.reported || end.Sub(w.since) <= l.bound {
		return
	}
	w.reported = true
	who := "no open transaction the stream shows (the high watermark, or a transaction whose marker is not yet replicated)"
	if w.held {
		who = fmt.Sprintf("the open transaction of pid %d, whose first record is at %d", w.pid, w.lso)
	}
	name := fmt.Sprintf("node %d", w.node)
	if int(w.node) < len(l.names) {
		name = l.names[w.node]
	}
	l.out = append(l.out, violation(LiveRead, w.since, fmt.Sprintf("%s waited %v (bound %v) at p%d offset %d, the last stable offset, with the high watermark at %d: held by %s",
		name, end.Sub(w.since), l.bound, w.part, w.lso, w.hw, who)))
}

func (l *liveRead) Finish() []Violation {
	for i := range l.waits {
		l.judge(&l.waits[i], l.lv.end)
	}
	return l.out
}
