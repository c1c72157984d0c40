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
//     it (what -bug Z11 shows). These are reported as they happen, the
//     first 24.
//   - at the end, a record acknowledged with an offset that is in the
//     committed view must be at that offset, with its own id and payload
//     digest. These follow, by application and message number, the first
//     8. An acknowledged record that is not in the view at all (a
//     truncation took it) is INV-LOSS's alone: one anomaly, one name.
type dedup struct {
	lv  *logView
	out capped
	// hint is ackedOffsets' scratch: per partition, the log run the
	// last acknowledgement checked was in.
	hint []int
}

// maxAckedOffsets bounds the acknowledged-offset violations reported one
// by one.
const maxAckedOffsets = 8

func newDedup() invariant { return &dedup{} }

func (d *dedup) reset(_ Config, lv *logView) {
	d.lv = lv
	d.out.reset()
	d.hint = truncated(d.hint)
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
	hint := d.hint[:0]
	for pi := range t.pages {
		p := &t.pages[pi]
		for j := range p.slots {
			if s := &p.slots[j]; s.flags&recAcked != 0 && s.offset >= 0 {
				if id := p.id(j); t.inLog(id, s) && !d.holds(id, s, &hint) {
					bad = append(bad, t.ackOf(id, s)) // by application, then message number
				}
			}
		}
	}
	d.hint = hint
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

// holds tells whether the log entry at the offset record id's
// acknowledgement s names holds id, with the acknowledged digest. hint
// keeps, per partition, the run the previous lookup found: an
// application's acknowledgements come in message-number order, mostly
// at increasing offsets, so the next is usually in that run or the next
// (logStore.atOffsetNear).
func (d *dedup) holds(id model.RecordID, s *recSlot, hint *[]int) bool {
	log := d.lv.log(s.part)
	if log == nil {
		return false
	}
	for int(s.part) >= len(*hint) {
		*hint = append(*hint, 0)
	}
	// The run holding the offset, and in it entry k and its record j,
	// read from the run without making the entry.
	ri := log.runNear(s.offset, &(*hint)[s.part])
	if ri < 0 {
		return false
	}
	var tmp logRun
	r, k32 := log.subAt(&log.runs[ri], s.offset, &tmp)
	if r.e.marker != model.MarkerNone {
		return false
	}
	k := int64(k32)
	j := s.offset - (r.e.first + k*(int64(r.e.span)+1))
	if r.e.flags&entryListed == 0 {
		// A range of records, each with its standard digest: an
		// acknowledgement with another digest (recOddDigest) differs.
		return r.e.app == id.App && r.e.n0+(k*int64(r.e.nrec)*int64(r.dn))+j*int64(r.e.dn) == id.N && s.flags&recOddDigest == 0
	}
	// A listed entry is a run of its own (k is 0).
	rec := &d.lv.listed[r.e.n0+j]
	digest := model.Digest(id, 0)
	if s.flags&recOddDigest != 0 {
		digest = d.lv.recs.digests[id]
	}
	return rec.id == id && rec.digest == digest
}
