package scenarios

import (
	"time"

	"github.com/idemsim/idemsim/scenarios/params"
)

// fault.at.ms is when a catalogue scenario's scripted fault happens (the
// leader's crash, the cut, the producer's first crash), in ms from the
// start of the run, before the jitter the scenario adds to it; a sweep
// varies it (-vary fault.at.ms=...) to ask how the outcome depends on the
// fault's timing. Its default is the scenario's own time, so that a run
// at the default draws exactly what it drew before the parameter existed:
// a fixed base time (coordfailover, isolated, unclean), or -1, the time
// the scenario draws from the seed (acks1, failover, restart, epochx,
// statelost). A scenario that draws its time still draws it when the
// parameter is set, and then ignores it, so that every later draw (the
// jitter, fault.count's noise) stays aligned: the noise has the same
// faults at the same times, though one may hit another process, since
// the generator keeps clear of the processes the scripted plan has down
// (faults.GenOptions.Around). docs/parameters.md lists the scenarios'
// timing parameters.

// faultAtMax is fault.at.ms's upper bound: an hour, as the scenarios' other
// times (leader.down.ms, pause.ms).
const faultAtMax = 3_600_000

// faultAtFixed is the fault.at.ms parameter of a scenario whose fault has
// a fixed base time, def ms (0..1h).
func faultAtFixed(def, doc string) params.Param {
	return params.Param{Key: "fault.at.ms", Kind: params.Int, Default: def, Unit: "ms", Doc: doc, Min: 0, Max: faultAtMax}
}

// faultAtAuto is the fault.at.ms parameter of a scenario that draws its
// fault's time from the seed: -1 (the default) keeps the drawn time,
// 0..1h sets it.
func faultAtAuto(doc string) params.Param {
	return params.Param{Key: "fault.at.ms", Kind: params.Int, Default: "-1", Unit: "ms", Doc: doc, Min: -1, Max: faultAtMax}
}

// faultAt returns the fault's base time: fault.at.ms when it is set
// (0 or more), else drawn, the time the scenario drew.
func faultAt(v *params.Values, drawn time.Duration) time.Duration {
	if at := v.Config().Extra.FaultAt; at >= 0 {
		return at
	}
	return drawn
}
