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
// commit in one transaction).
const InvEOS = "INV-EOS"

// eos judges INV-EOS from the group coordinator's committed offsets and
// the committed view of the logs.
type eos struct {
	lv *logView
	// committed is each group's final committed position.
	committed map[string]int64
	apps      []int32
}

func newEOS() invariant { return &eos{} }

func (e *eos) reset(_ Config, lv *logView) {
	e.lv, e.committed, e.apps = lv, cleared(e.committed), truncated(e.apps)
}

func (e *eos) Name() string { return InvEOS }

func (e *eos) Observe(o *model.Obs) {
	switch {
	case o.Kind == model.ObsOffsets && o.Text == "offsets committed":
		e.committed[o.Group] = o.N
	case o.Kind == model.ObsAppSend && !slices.Contains(e.apps, o.App):
		e.apps = append(e.apps, o.App)
	}
}

func (e *eos) reads() []model.ObsKind { return []model.ObsKind{model.ObsOffsets, model.ObsAppSend} }

func (e *eos) Finish() []Violation {
	var v []Violation
	slices.Sort(e.apps)
	for _, app := range e.apps {
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
