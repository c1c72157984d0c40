package htmlpage

import (
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Recorder keeps what a run's page draws: [Record] adds it to a spec,
// and once the run ended [Recorder.Run] is the result.
type Recorder struct {
	r *reader
}

// Record asks spec's run for its page data: it adds a reader to
// spec.Readers and returns the recorder that will hold it. A recorder
// serves one run at a time; a spec run again records afresh.
func Record(spec *scenarios.Spec) *Recorder {
	rec := &Recorder{}
	spec.Readers = append(spec.Readers, rec.reader)
	return rec
}

func (rec *Recorder) reader(l *world.Layout) world.Reader {
	rec.r = newReader(l)
	return rec.r
}

// Run returns the last run's page data, or nil before a run ended (or
// for a nil recorder).
func (rec *Recorder) Run() *Run {
	if rec == nil || rec.r == nil || !rec.r.ended {
		return nil
	}
	return rec.r.run
}
