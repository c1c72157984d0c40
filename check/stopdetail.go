package check

// StopDetail says, for a run's stop reason ("drained", "time-limit",
// "event-limit", "state-limit", "stopped"), which of the simulator's
// budgets stopped the run and how to move it: "" for a run that drained
// or was stopped on request. LIVE-PROD reports a run stopped by a budget
// with it, and the report prints it beside the stop reason: a budget is
// the simulator's, and reaching one is no stall in Kafka by itself.
func StopDetail(stop string) string {
	switch stop {
	case "event-limit":
		return "the simulator's event budget ran out before the run finished (-max-events, 50000000 events by default: raise it to let the run go on)"
	case "time-limit":
		return "the run reached the simulator's time horizon with events still scheduled (the later of the fault plan's end and the last send plus delivery.timeout.ms, then delivery.timeout.ms, twice request.timeout.ms and a minute more: longer timeouts move it)"
	case "state-limit":
		return "the simulator's state budget ran out (1000000 units of pending events, messages on the wire, plan actions and log entries held at once; Spec.MaxState, no flag): the run's state grew without bound"
	}
	return ""
}
