package check

import (
	"fmt"
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// dup is INV-DUP: each application record appears at most once among the
// committed records of the logs. It judges the final committed view, and
// reports each extra copy in log order (partition, then offset): the first
// 8, then how many more.
type dup struct{ lv *logView }

// maxDup bounds the extra copies reported one by one.
const maxDup = 8

func newDup() invariant { return &dup{} }

func (d *dup) reset(_ Config, lv *logView) { d.lv = lv }

func (d *dup) Name() string { return InvDup }

func (d *dup) Observe(*model.Obs) {}

func (d *dup) reads() []model.ObsKind { return nil } // it judges the log view at the end

// Finish walks the committed entries of every log ([committed]) in log
// order; the first copy of a record committed more than once is its
// original, the others are reported.
func (d *dup) Finish() []Violation {
	if d.lv.extra == 0 {
		// No record was committed twice (the log view counts extra
		// copies as it commits): there is nothing to find.
		return nil
	}
	var v []Violation
	var seen map[model.RecordID]bool // records committed more than once, met so far
	nd := 0
	views := d.lv.rcViews()
	for pi := range d.lv.logs {
		log := &d.lv.logs[pi]
		cur := logCursor{s: log}
		for i := range log.len() {
			e := cur.at(i)
			if !committed(log, &views[pi], i, &e) {
				continue
			}
			for j := range int(e.nrec) {
				id := d.lv.recID(&e, j)
				if d.lv.recs.copies(id) <= 1 {
					continue
				}
				if seen[id] {
					if nd < maxDup {
						v = append(v, violation(InvDup, e.at,
							d.detail(id, pi, e.first+int64(j), &e)))
					}
					nd++
				} else {
					if seen == nil {
						seen = map[model.RecordID]bool{}
					}
					seen[id] = true
				}
			}
		}
	}
	if nd > maxDup {
		v = append(v, violation(InvDup, d.lv.end, fmt.Sprintf("... and %d more duplicate copies", nd-maxDup)))
	}
	return v
}

// committed tells whether a read_committed consumer sees entry i of log
// (whose view is v) once its transaction ended, whatever the LSO:
// non-transactional data, and transactional data whose producer's next
// marker on the partition is a COMMIT. Markers themselves are not data.
// e is entry i.
func committed(log *logStore, v *rcView, i int, e *logEntry) bool {
	switch {
	case e.marker != model.MarkerNone:
		return false
	case !e.transactional():
		return true
	}
	d := v.decider[i]
	return d >= 0 && log.at(int(d)).marker == model.MarkerCommit
}

// detail is a duplicate copy's violation text, "a0:1 again at p0 offset
// 6 (p0 pid=none n=1 [a0:1])", made in one allocation.
func (d *dup) detail(id model.RecordID, p int, off int64, e *logEntry) string {
	var buf [160]byte
	b := id.AppendID(buf[:0])
	b = append(b, " again at p"...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, " offset "...)
	b = strconv.AppendInt(b, off, 10)
	b = append(b, " ("...)
	b = d.lv.appendTag(b, int32(p), e)
	return string(append(b, ')'))
}
