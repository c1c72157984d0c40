package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// dup is INV-DUP: each application record appears at most once among the
// committed records of the logs. It judges the final committed view, and
// reports each extra copy in log order (partition, then offset): the first
// 8, then how many more.
type dup struct{ lv *logView }

// maxDup bounds the extra copies reported one by one.
const maxDup = 8

func newDup(_ Config, lv *logView) Invariant { return &dup{lv: lv} }

func (d *dup) Name() string { return InvDup }

func (d *dup) Observe(*model.Obs) {}

func (d *dup) Finish() []Violation {
	var v []Violation
	seen := make(map[model.RecordID]bool)
	nd := 0
	for pi, log := range d.lv.logs {
		committed := committedEntries(log)
		for i := range log {
			e := &log[i]
			if !committed[i] {
				continue
			}
			for j, r := range e.Batch.Records {
				if d.lv.copies[r.ID] > 1 && seen[r.ID] {
					if nd < maxDup {
						v = append(v, violation(InvDup, e.AppendedAt,
							fmt.Sprintf("%v again at p%d offset %d (%s)", r.ID, pi, e.FirstOffset+int64(j), batchTag(&e.Batch))))
					}
					nd++
				}
				seen[r.ID] = true
			}
		}
	}
	if nd > maxDup {
		v = append(v, violation(InvDup, d.lv.end, fmt.Sprintf("... and %d more duplicate copies", nd-maxDup)))
	}
	return v
}
