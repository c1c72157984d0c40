package check

import (
	"fmt"
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// seq is INV-SEQ: per (producer id, partition) the appended batches'
// sequence ranges follow each other (wrapping in the sequence space); the
// first batch of a producer id, or of a higher epoch, starts at sequence
// 0; and the epoch never goes down in the log. Only batches with a
// producer id are judged.
type seq struct {
	space model.SeqSpace
	lv    *logView
	// last is, per (pid, partition), the epoch and last sequence of the
	// newest appended batch of the highest epoch seen.
	last pairList[seqState]
	out  capped
}

type seqState struct {
	epoch   int16
	lastSeq int32
}

func newSeq() invariant { return &seq{} }

func (s *seq) reset(cfg Config, lv *logView) {
	s.space, s.lv, s.last = cfg.Seq, lv, truncated(s.last)
	s.out.reset()
}

func (s *seq) Name() string { return InvSeq }

func (s *seq) Observe(o *model.Obs) {
	if s.lv.replicated {
		// A replicated run's log is its final leader's (an append a
		// failover truncated is not in it): judge that, entry by entry.
		if o.Kind == model.ObsFinalLog {
			for i := range o.Log {
				if e := &o.Log[i]; e.Marker == model.MarkerNone {
					s.judge(&model.Obs{Kind: model.ObsVerdict, At: o.At, Batch: e.Batch, Result: model.AppendResult{FirstOffset: e.FirstOffset, LastOffset: e.LastOffset}})
				}
			}
		}
		return
	}
	s.judge(o)
}

func (s *seq) reads() []model.ObsKind { return []model.ObsKind{model.ObsVerdict, model.ObsFinalLog} }

// judge judges one observed append.
func (s *seq) judge(o *model.Obs) {
	if !appended(o) || !o.Batch.Idempotent() {
		return
	}
	b, off := &o.Batch, o.Result.FirstOffset
	e := s.last.of(int64(b.PID), b.Partition)
	st, seen := &e.v, e.seen
	switch {
	case !seen || b.Epoch > st.epoch:
		if b.FirstSeq != 0 && s.out.room() {
			what := "first batch of the pid on the partition"
			if seen {
				what = "first batch of epoch " + strconv.FormatInt(int64(b.Epoch), 10)
			}
			s.out.add(violation(InvSeq, o.At, fmt.Sprintf("%s at offset %d does not start at sequence 0 (%s)", batchTag(b), off, what)))
		}
	case b.Epoch < st.epoch:
		if s.out.room() {
			s.out.add(violation(InvSeq, o.At, fmt.Sprintf("%s at offset %d: epoch went down from %d", batchTag(b), off, st.epoch)))
		}
	default:
		if !s.space.Next(st.lastSeq, b.FirstSeq) && s.out.room() {
			s.out.add(violation(InvSeq, o.At, fmt.Sprintf("%s at offset %d does not follow sequence %d", batchTag(b), off, st.lastSeq)))
		}
	}
	if !seen || b.Epoch >= st.epoch {
		st.epoch, st.lastSeq, e.seen = b.Epoch, b.LastSeq, true
	}
}

func (s *seq) Finish() []Violation { return s.out.report(InvSeq, s.lv.end) }
