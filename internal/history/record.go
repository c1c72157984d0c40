package history

import (
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Recorder keeps a run's client-visible history: [Record] adds it to a
// spec, and once the run ended [Recorder.History] is the history.
type Recorder struct {
	h *historian
}

// Record asks spec's run for its history (docs/history.md): it adds a
// reader to spec.Readers and returns the recorder that will hold the
// history. The reader changes nothing in the run. A recorder serves one
// run at a time; a spec run again records each run afresh.
func Record(spec *scenarios.Spec) *Recorder {
	r := &Recorder{}
	spec.Readers = append(spec.Readers, r.reader)
	return r
}

func (r *Recorder) reader(l *world.Layout) world.Reader {
	r.h = newHistorian(l)
	return r.h
}

// History returns the last run's history, or nil before a run ended (or
// for a nil recorder: a run without a history).
func (r *Recorder) History() *History {
	if r == nil || r.h == nil {
		return nil
	}
	return r.h.history()
}
