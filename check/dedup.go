package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// dedup is INV-DEDUP, seen from the broker and from the application:
//
//   - a batch the broker answered as a duplicate must match the log entry
//     it was matched with, record by record (same ids, same payload
//     digests); otherwise the broker acknowledged new data without writing
//     it (bug-zoo Z11). These are reported as they happen, the first 24.
//   - at the end, a record acknowledged with an offset must be at that
//     offset, with its own id and payload digest. These follow, by
//     application and message number, the first 8.
type dedup struct {
	lv  *logView
	out capped
}

// maxAckedOffsets bounds the acknowledged-offset violations reported one
// by one.
const maxAckedOffsets = 8

func newDedup() invariant { return &dedup{} }

func (d *dedup) reset(_ Config, lv *logView) {
	d.lv = lv
	d.out.reset()
}

func (d *dedup) Name() string { return InvDedup }

func (d *dedup) Observe(o *model.Obs) {
	if o.Kind != model.ObsVerdict || !o.Result.Duplicate {
		return
	}
	b := &o.Batch
	var orig *model.LogEntry
	if o.OrigFound {
		orig = &o.Orig
	}
	same := orig != nil && len(orig.Batch.Records) == len(b.Records)
	for i := 0; same && i < len(b.Records); i++ {
		same = b.Records[i].ID == orig.Batch.Records[i].ID && b.Records[i].Digest == orig.Batch.Records[i].Digest
	}
	if same || !d.out.room() {
		return
	}
	detail := fmt.Sprintf("%s answered as a duplicate of ", batchTag(b))
	if orig == nil {
		detail += "nothing in the log"
	} else {
		detail += fmt.Sprintf("offset %d, which holds %s", orig.FirstOffset, batchTag(&orig.Batch))
	}
	d.out.add(violation(InvDedup, o.At, detail))
}

func (d *dedup) reads() []model.ObsKind { return []model.ObsKind{model.ObsVerdict} }

func (d *dedup) Finish() []Violation {
	return append(d.out.report(InvDedup, d.lv.end), d.ackedOffsets()...)
}

// ackedOffsets checks every acknowledged record with a known offset
// against the committed view's entry at that offset (a partition nothing
// was appended to holds nothing).
func (d *dedup) ackedOffsets() []Violation {
	var bad []ack
	t := &d.lv.recs
	for pi := range t.pages {
		p := &t.pages[pi]
		for j := range p.slots {
			if s := &p.slots[j]; s.flags&recAcked != 0 && s.offset >= 0 {
				if o := t.ackOf(p.id(j), s); !d.holds(&o) {
					bad = append(bad, o) // by application, then message number
				}
			}
		}
	}
	var v []Violation
	for i, o := range bad {
		if i == maxAckedOffsets {
			v = append(v, violation(InvDedup, o.at, fmt.Sprintf("... and %d more", len(bad)-maxAckedOffsets)))
			break
		}
		v = append(v, violation(InvDedup, o.at, fmt.Sprintf("%v acknowledged at p%d offset %d, which holds other data", o.id, o.part, o.offset)))
	}
	return v
}

// holds tells whether the log entry at acknowledgement o's offset holds
// o's record, with o's digest.
func (d *dedup) holds(o *ack) bool {
	if e, ok := d.lv.log(o.part).atOffset(o.offset); ok && e.marker == model.MarkerNone {
		r := d.lv.rec(o.part, &e, int(o.offset-e.first))
		return r.id == o.id && r.digest == o.digest
	}
	return false
}
