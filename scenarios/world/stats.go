package world

import "github.com/idemsim/idemsim/scenarios/world/internal/tally"

// NetStats counts what happened to messages on the network.
type NetStats = tally.NetStats

// stats reads the observation stream and keeps the run's counters
// (scenarios/world/internal/tally/run.go).
type stats = tally.Run

// newStats returns the counters of w's run, in old's memory when old is
// not nil (a finished run's: runner.go). The errors map is new: the
// previous run's [Result] owns its own.
func newStats(w *World, old *stats) *stats {
	s := old
	if s == nil {
		s = &stats{}
	}
	errs := map[string]int64(nil)
	if w.resultMem != nil && w.resultMem.Errors != nil {
		// A recycled result's map (Runner.Recycle): the new result's.
		errs = w.resultMem.Errors
		clear(errs)
	} else {
		errs = make(map[string]int64)
	}
	*s = stats{Errors: errs, App: zeroed(s.App, len(w.nodes)), Newest: zeroed(s.Newest, len(w.apps)), Server: zeroed(s.Server, len(w.nodes)),
		Latencies: s.Latencies[:0], Grouped: w.groupApp}
	for i := range w.nodes {
		s.App[i] = -1
		s.Server[i] = w.nodes[i].kind != kindProducer
		if in := w.nodes[i].inst; in != nil {
			s.App[i] = in.app.id
		}
	}
	for i := range s.Newest {
		s.Newest[i] = -1
	}
	return s
}
