package check

import (
	"fmt"
	"slices"

	"github.com/idemsim/idemsim/model"
)

// InvEOS is exactly-once processing: for an application that commits its
// input position inside its transactions (app.mode=exactly-once), every
// input record below the final committed position appears exactly once in
// the committed output, and none at or above it (KIP-98 and KIP-447,
// KafkaProducer.sendOffsetsToTransaction: the output and the offsets
// commit in one transaction). An application whose transactions commit
// an offset per input partition (app.mode=exactly-once-v2 and
// exactly-once-groupid, whatever instance owned the partition) is judged
// per input partition: every record of the partition below its final
// committed offset exactly once, none at or above it.
const InvEOS = "INV-EOS"

// eos judges INV-EOS from the group coordinator's committed offsets and
// the committed view of the logs.
type eos struct {
	lv *logView
	// committed is each group's final committed position.
	committed map[string]int64
	apps      []int32
	// parts is each input partition's final committed offset, of the
	// per-partition commits ("input offsets committed").
	parts map[int32]int64
	cfg   Config
}

func newEOS() invariant { return &eos{} }

func (e *eos) reset(cfg Config, lv *logView) {
	e.lv, e.committed, e.apps, e.parts, e.cfg = lv, cleared(e.committed), truncated(e.apps), cleared(e.parts), cfg
}

func (e *eos) Name() string { return InvEOS }

func (e *eos) Observe(o *model.Obs) {
	switch {
	case o.Kind == model.ObsOffsets && o.Text == "offsets committed":
		e.committed[o.Group] = o.N
	case o.Kind == model.ObsOffsets && o.Text == "input offsets committed":
		if e.parts == nil {
			e.parts = make(map[int32]int64)
		}
		e.parts[o.Partition] = o.N
	case o.Kind == model.ObsAppSend && !slices.Contains(e.apps, o.App):
		e.apps = append(e.apps, o.App)
	}
}

func (e *eos) reads() []model.ObsKind { return []model.ObsKind{model.ObsOffsets, model.ObsAppSend} }

func (e *eos) Finish() []Violation {
	var v []Violation
	slices.Sort(e.apps)
	for _, app := range e.apps {
		v = append(v, e.finishParts(app)...)
		pos, ok := e.committed[model.GroupOf(app)]
		if !ok {
			continue
		}
		var missing, twice []model.RecordID
		for n := int64(0); n < pos; n++ {
			id := model.RecordID{App: app, N: n}
			switch c := e.lv.recs.copies(id); {
			case c == 0:
				missing = append(missing, id)
			case c > 1:
				twice = append(twice, id)
			}
		}
		var beyond []model.RecordID
		t := &e.lv.recs
		for i := range t.pages {
			if p := &t.pages[i]; p.app == app {
				for j := range p.slots {
					if id := p.id(j); id.N >= pos && p.slots[j].copies > 0 {
						beyond = append(beyond, id) // in message-number order
					}
				}
			}
		}
		for _, bad := range []struct {
			ids  []model.RecordID
			what string
		}{{missing, "is missing from the committed output"}, {twice, "appears more than once in the committed output"},
			{beyond, fmt.Sprintf("is in the committed output although the committed input position is %d", pos)}} {
			if len(bad.ids) > 0 {
				v = append(v, violation(InvEOS, e.lv.end, fmt.Sprintf("app %d: input record %v %s (%d records in all)", app, bad.ids[0], bad.what, len(bad.ids))))
			}
		}
	}
	return v
}

// finishParts judges app's input partitions that have a per-partition
// committed offset.
func (e *eos) finishParts(app int32) []Violation {
	var v []Violation
	m := int64(e.cfg.InputParts)
	for i := range int64(e.cfg.InputParts) {
		part := e.cfg.InputBase + app*e.cfg.InputParts + int32(i)
		c, ok := e.parts[part]
		if !ok {
			continue
		}
		skip := int64(0)
		if i == 0 {
			skip = e.cfg.InputSkip0
		}
		var missing, twice, beyond []model.RecordID
		for off := skip; off < c; off++ {
			id := model.RecordID{App: app, N: (off-skip)*m + i}
			switch n := e.lv.recs.copies(id); {
			case n == 0:
				missing = append(missing, id)
			case n > 1:
				twice = append(twice, id)
			}
		}
		t := &e.lv.recs
		for pi := range t.pages {
			if p := &t.pages[pi]; p.app == app {
				for j := range p.slots {
					if id := p.id(j); id.N%m == i && skip+id.N/m >= c && p.slots[j].copies > 0 {
						beyond = append(beyond, id)
					}
				}
			}
		}
		for _, bad := range []struct {
			ids  []model.RecordID
			what string
		}{{missing, "is missing from the committed output"}, {twice, "appears more than once in the committed output"},
			{beyond, fmt.Sprintf("is in the committed output although input partition %d's committed offset is %d", part, c)}} {
			if len(bad.ids) > 0 {
				v = append(v, violation(InvEOS, e.lv.end, fmt.Sprintf("app %d: input record %v %s (%d records in all)", app, bad.ids[0], bad.what, len(bad.ids))))
			}
		}
	}
	return v
}
