package explain

import (
	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Recorder keeps a run's event log: [Record] adds it to a spec, and once
// the run ended [Recorder.Log] is the log.
type Recorder struct {
	x *explainLog
}

// Record asks spec's run for its event log: it adds a reader to
// spec.Readers and returns the recorder that will hold the log. A
// recorder serves one run at a time; a spec run again (a sweep's seeds)
// records each run afresh.
func Record(spec *scenarios.Spec) *Recorder {
	r := &Recorder{}
	spec.Readers = append(spec.Readers, r.reader)
	return r
}

func (r *Recorder) reader(l *world.Layout) world.Reader {
	r.x = newExplainLog(l)
	return r.x
}

// Log returns the last run's event log, or nil before a run ended (or
// for a nil recorder: a run that was not recorded).
func (r *Recorder) Log() *Log {
	if r == nil || r.x == nil || !r.x.ended {
		return nil
	}
	return r.x.log
}
