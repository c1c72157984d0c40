package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// InvRead is the read_committed consumer's isolation: no poll returns a
// record of an aborted transaction, of a transaction still open, or at or
// above the partition's last stable offset (Kafka's FetchIsolation
// TXN_COMMITTED with the consumer's CompletedFetch filter).
const InvRead = "INV-READ"

// read judges every poll of a read_committed consumer ([model.ObsPoll]
// with Flag) when it happens, against the appends and markers seen so
// far: a returned entry must end below the LSO the stream shows (the
// oldest open transaction's first offset; the real LSO, bounded by the
// high watermark too, is never above it), and a transactional one must
// belong to a transaction a COMMIT marker closed.
type read struct {
	lv  *logView
	out capped
}

func newRead() invariant { return &read{} }

func (r *read) reset(_ Config, lv *logView) { r.lv = lv; r.out.reset() }

func (r *read) Name() string { return InvRead }

func (r *read) reads() []model.ObsKind {
	return readKinds
}

func (r *read) Observe(o *model.Obs) {
	if o.Kind != model.ObsPoll || !o.Flag {
		return
	}
	lso, pid, open := r.lv.otx.lso(o.Partition)
	for i := range o.Log {
		e := &o.Log[i]
		switch {
		case open && e.LastOffset >= lso:
			if r.out.room() {
				r.out.add(violation(InvRead, o.At, fmt.Sprintf("p%d: a read_committed poll returned offsets %d..%d, at or above the last stable offset %d (the open transaction of pid %d)",
					o.Partition, e.FirstOffset, e.LastOffset, lso, pid)))
			}
		case e.Batch.Transactional && e.Batch.PID >= 0:
			m, ok := r.lv.otx.closer(o.Partition, e.Batch.PID, e.LastOffset)
			if ok && m.commit {
				continue
			}
			what := "of a transaction no marker has closed"
			if ok {
				what = fmt.Sprintf("of a transaction aborted by the marker at %d", m.off)
			}
			if r.out.room() {
				r.out.add(violation(InvRead, o.At, fmt.Sprintf("p%d: a read_committed poll returned offsets %d..%d of pid %d, %s",
					o.Partition, e.FirstOffset, e.LastOffset, e.Batch.PID, what)))
			}
		}
	}
}

func (r *read) Finish() []Violation { return r.out.report(InvRead, 0) }
