package check

import (
	"fmt"
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// order is INV-ORDER: per application and partition, records become
// committed in the order the application sent them. A record's first copy
// committed after a record of the same application numbered higher is
// reordered; extra copies are INV-DUP's. It reports the first 8 as they
// happen, then the total.
type order struct {
	lv    *logView
	n     int64
	first []Violation
}

// maxOrder bounds the reordered records reported one by one.
const maxOrder = 8

func newOrder() invariant { return &order{} }

func (r *order) reset(_ Config, lv *logView) { r.lv, r.n, r.first = lv, 0, truncated(r.first) }

func (r *order) Name() string { return InvOrder }

func (r *order) Observe(o *model.Obs) {
	for _, c := range r.lv.commits {
		if !c.reordered {
			continue
		}
		r.n++
		if len(r.first) < maxOrder {
			e := r.lv.entry(c)
			rec := r.lv.rec(c.part, &e, int(c.rec))
			r.first = append(r.first, violation(InvOrder, o.At, r.detail(rec, &e, c)))
		}
	}
}

// detail is a reordered record's violation text, "a0:4 appended at p0
// offset 3 after a0:5 (p0 pid=none n=1 [a0:4])", made in one allocation.
func (r *order) detail(rec logRec, e *logEntry, c commit) string {
	var buf [160]byte
	b := rec.id.AppendID(buf[:0])
	b = append(b, " appended at p"...)
	b = strconv.AppendInt(b, int64(rec.part), 10)
	b = append(b, " offset "...)
	b = strconv.AppendInt(b, e.first, 10)
	b = append(b, " after "...)
	b = model.RecordID{App: rec.id.App, N: c.after}.AppendID(b)
	b = append(b, " ("...)
	b = r.lv.appendTag(b, c.part, e)
	return string(append(b, ')'))
}

func (r *order) reads() []model.ObsKind { return commitKinds } // it reads the commits

func (r *order) Finish() []Violation {
	v := r.first[:len(r.first):len(r.first)]
	if r.n > int64(len(r.first)) {
		v = append(v, violation(InvOrder, r.lv.end, fmt.Sprintf("... %d reordered records in all", r.n)))
	}
	return v
}
