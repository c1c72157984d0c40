package check

import (
	"fmt"

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
			r.first = append(r.first, violation(InvOrder, o.At,
				fmt.Sprintf("%v appended at p%d offset %d after %v (%s)", rec.id, rec.part, e.first,
					model.RecordID{App: rec.id.App, N: c.after}, r.lv.tag(c.part, &e))))
		}
	}
}

func (r *order) reads() []model.ObsKind { return commitKinds } // it reads the commits

func (r *order) Finish() []Violation {
	v := r.first[:len(r.first):len(r.first)]
	if r.n > int64(len(r.first)) {
		v = append(v, violation(InvOrder, r.lv.end, fmt.Sprintf("... %d reordered records in all", r.n)))
	}
	return v
}
