package check

import (
	"fmt"

	"github.com/idemsim/idemsim/model"
)

// state is INV-STATE: after a broker restart (and, in a replicated run,
// after every truncation and on every replica at the end: Flag), each
// partition's producer state equals what replaying its log yields. The world compares them and
// observes the difference (ObsStateCheck); an empty one is agreement.
type state struct {
	lv  *logView
	out capped
}

func newState() invariant { return &state{} }

func (s *state) reset(_ Config, lv *logView) {
	s.lv = lv
	s.out.reset()
}

func (s *state) Name() string { return InvState }

func (s *state) Observe(o *model.Obs) {
	if o.Kind != model.ObsStateCheck || o.Text == "" || !s.out.room() {
		return
	}
	when := "after restart"
	if o.Flag {
		when = "at the end of the run"
	}
	s.out.add(violation(InvState, o.At, fmt.Sprintf("p%d %s: %s", o.Partition, when, o.Text)))
}

func (s *state) reads() []model.ObsKind { return []model.ObsKind{model.ObsStateCheck} }

func (s *state) Finish() []Violation { return s.out.report(InvState, s.lv.end) }
