package faults

import (
	"fmt"
	"math"
	"time"
)

// Timing is what a run's fault phase and time limit depend on: its
// workload and producer configuration (docs/plans.md). All fields are
// durations from the start of the run, >= 0.
type Timing struct {
	// LastSend is when the applications send their last record: the
	// latest over them of records × send.interval.ms.
	LastSend time.Duration
	// FaultEnd is fault.end, 0 when not set.
	FaultEnd time.Duration
	// DeliveryTimeout and RequestTimeout are the producer's
	// delivery.timeout.ms and request.timeout.ms.
	DeliveryTimeout, RequestTimeout time.Duration
}

// DefaultEnd is the end of a plan that sets none: fault.end, or when 0
// the last send plus delivery.timeout.ms, long enough for faults to reach
// every record.
func (t Timing) DefaultEnd() time.Duration {
	if t.FaultEnd > 0 {
		return t.FaultEnd
	}
	return t.LastSend + t.DeliveryTimeout
}

// Horizon is the latest time a run whose plan ends at end may reach: the
// later of end and the last send plus delivery.timeout.ms, then
// delivery.timeout.ms again, two request.timeout.ms and a minute (the
// convergence deadline, LIVE-PROD), at most MaxInt64/4 ns. A healthy run
// drains long before.
func (t Timing) Horizon(end time.Duration) time.Duration {
	h := max(end, t.LastSend+t.DeliveryTimeout) + t.DeliveryTimeout + 2*t.RequestTimeout + time.Minute
	if h <= 0 || h > time.Duration(math.MaxInt64/4) {
		h = time.Duration(math.MaxInt64 / 4)
	}
	return h
}

// Limit is the run's time limit, the latest time a plan's action or end
// may name: the horizon with the default end. Every run reaches it (an
// end of the plan's own only moves the horizon later); an action after
// it would not happen in a run of the default end, and a later end would
// hold the convergence check back past every record's outcome.
func (t Timing) Limit() time.Duration { return t.Horizon(t.DefaultEnd()) }

// why says what makes up the limit, for an error.
func (t Timing) why() string {
	base := "the last send " + t.LastSend.String() + " plus delivery.timeout.ms " + t.DeliveryTimeout.String()
	if t.FaultEnd > t.LastSend+t.DeliveryTimeout {
		base = "fault.end " + t.FaultEnd.String()
	}
	return base + ", then delivery.timeout.ms " + t.DeliveryTimeout.String() +
		", two request.timeout.ms " + t.RequestTimeout.String() + " and 1m0s to converge"
}

// CheckLimit refuses a plan whose action or end comes after the run's
// time limit ([Timing.Limit]), naming the first such line, the limit and
// what makes it up: "line N: time ... is after the run's time limit ...
// (allowed: up to ...: ...)".
func (p *Plan) CheckLimit(t Timing) error {
	limit := t.Limit()
	for i := range p.Actions {
		if a := &p.Actions[i]; a.At > limit {
			return a.errorf(i, "time %v is after the run's time limit %v (allowed: up to %v: %s)", a.At, limit, limit, t.why())
		}
	}
	if p.End > limit {
		where := ""
		if p.EndLine > 0 {
			where = fmt.Sprintf("line %d: ", p.EndLine)
		}
		return fmt.Errorf("%send %v is after the run's time limit %v (allowed: up to %v: %s)", where, p.End, limit, limit, t.why())
	}
	return nil
}
