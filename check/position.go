package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// InvPos is the consumer's position: a poll starts where the last one,
// or the last reset the consumer logged, left it, and never moves it
// back (SubscriptionState.position only moves forward in
// FetchCollector.fetchRecords; only a seek or a reset sets it
// elsewhere).
const InvPos = "INV-POS"

// pos follows each consumer's position per partition: a
// [model.ObsConsumerReset] sets it (any direction: it is logged), a
// [model.ObsPoll] must start at it and end at or after it, and a crash
// forgets it.
type pos struct {
	at  []posAt
	out capped
}

type posAt struct {
	node, part int32
	off        int64 // -1: none
}

func newPos() invariant { return &pos{} }

func (p *pos) reset(Config, *logView) { p.at = truncated(p.at); p.out.reset() }

func (p *pos) Name() string { return InvPos }

func (p *pos) reads() []model.ObsKind {
	return posKinds
}

func (p *pos) slot(node, part int32) *posAt {
	for i := range p.at {
		if p.at[i].node == node && p.at[i].part == part {
			return &p.at[i]
		}
	}
	p.at = append(p.at, posAt{node: node, part: part, off: -1})
	return &p.at[len(p.at)-1]
}

func (p *pos) Observe(o *model.Obs) {
	switch o.Kind {
	case model.ObsCrash:
		for i := range p.at {
			if p.at[i].node == o.Node {
				p.at[i].off = -1
			}
		}
	case model.ObsConsumerReset:
		p.slot(o.Node, o.Partition).off = o.N
	case model.ObsPoll:
		s := p.slot(o.Node, o.Partition)
		from, to := o.Result.FirstOffset, o.Result.LastOffset
		switch {
		case s.off < 0 || from != s.off:
			if p.out.room() {
				p.out.add(violation(InvPos, o.At, fmt.Sprintf("p%d: a poll of node %d starts at %d, but its position was %d and no reset was logged", o.Partition, o.Node, from, s.off)))
			}
		case to < from:
			if p.out.room() {
				p.out.add(violation(InvPos, o.At, fmt.Sprintf("p%d: a poll of node %d moved the position back from %d to %d", o.Partition, o.Node, from, to)))
			}
		}
		s.off = to
	}
}

func (p *pos) Finish() []Violation { return p.out.report(InvPos, 0) }
