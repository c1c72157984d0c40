package world

import (
	"fmt"
	"strconv"
	"time"
)

// planLimit is the latest time a fault plan's action or end may name:
// the run's horizon (run.go) with the default plan end, that is the
// default end (fault.end, or the last send plus delivery.timeout.ms),
// then delivery.timeout.ms, two request.timeout.ms and a minute for the
// world to converge. Every run reaches it: a plan end of its own can only
// move the horizon later. An action beyond it would never happen in a run
// of the default end, and a plan end beyond it would hold the convergence
// check back past every record's outcome (the run reports LIVE-PROD at
// its time limit instead of converging).
func (w *World) planLimit(last time.Duration) time.Duration {
	return w.horizonFor(w.defaultPlanEnd(last), last)
}

// planLimitWhy explains planLimit for an error: which default end it
// starts from and what the convergence margin adds.
func (w *World) planLimitWhy(last time.Duration) string {
	base := "the last send " + last.String() + " plus delivery.timeout.ms " + w.pcfg.DeliveryTimeout.String()
	if e := w.cfg.Fault.End; e > last+w.pcfg.DeliveryTimeout {
		base = "fault.end " + e.String()
	}
	return base + ", then delivery.timeout.ms " + w.pcfg.DeliveryTimeout.String() +
		", two request.timeout.ms " + w.pcfg.RequestTimeout.String() + " and 1m0s to converge"
}

// checkPlanLimit refuses a plan whose action or end is later than
// planLimit, naming the first such line and the limit.
func (w *World) checkPlanLimit(last time.Duration) error {
	limit := w.planLimit(last)
	for i := range w.plan.Actions {
		if a := &w.plan.Actions[i]; a.At > limit {
			where := "action " + strconv.Itoa(i+1)
			if a.Line > 0 {
				where = "line " + strconv.Itoa(a.Line)
			}
			return fmt.Errorf("%s: time %v is after the run's time limit %v (allowed: up to %v: %s)", where, a.At, limit, limit, w.planLimitWhy(last))
		}
	}
	if p := &w.plan; p.End > limit {
		where := ""
		if p.EndLine > 0 {
			where = "line " + strconv.Itoa(p.EndLine) + ": "
		}
		return fmt.Errorf("%send %v is after the run's time limit %v (allowed: up to %v: %s)", where, p.End, limit, limit, w.planLimitWhy(last))
	}
	return nil
}
