package check

import (
	"testing"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

var liveNames = []string{"p0", "p1", "p2", "p3", "p4", "b1", "c1"}

// TestLiveProdPending: records still unresolved at the end.
func TestLiveProdPending(t *testing.T) {
	r := newRun(Config{Names: liveNames})
	counts, vs := r.end(12_500_000_000, 3, "drained", 0)
	wantViolations(t, vs, []Violation{{LiveProd, "3 records still unresolved at the end of the run", 12_500_000_000}})
	if counts.Pending != 3 {
		t.Errorf("pending %d, want 3", counts.Pending)
	}
}

// TestLiveProdSpuriousFatal: an instance that ends fatal is a zombie (no
// violation) when a later instance of its application became active,
// else a spurious fatal; instances are judged in node-id order with their
// latest fatal error, and a restarted instance starts afresh.
func TestLiveProdSpuriousFatal(t *testing.T) {
	r := newRun(Config{Names: liveNames})
	r.start(0, 0, 0)
	r.start(0, 1, 0)
	r.start(0, 2, 1)
	r.start(0, 3, 1)
	r.start(0, 4, 2)
	r.active(1, 0, 0)
	r.active(1, 2, 1)
	r.active(1, 4, 2)
	r.fatal(2, 0, model.ErrProducerFenced) // p0: fenced by p1 below
	r.active(3, 1, 0)
	r.fatal(2, 3, model.ErrInvalidProducerEpoch) // p3: the latest of its application, never active
	r.fatal(3, 2, model.ErrInvalidProducerEpoch)
	r.fatal(4, 2, model.ErrProducerFenced) // p2: later p3 started but never became active
	r.note(4, 1, model.NoteEpochBump, model.ErrOutOfOrderSequenceNumber)
	r.fatal(5, 4, model.ErrProducerFenced) // p4: crashes, restarts afresh
	r.crash(6, 4)
	r.restart(7, 4)
	r.active(8, 1, 2) // p1 is application 0's: does not fence application 2's p4 nor 1's p2
	_, vs := r.end(9, 0, "drained", 0)
	wantViolations(t, vs, []Violation{
		{LiveProd, "spurious fatal: instance p2 stopped with PRODUCER_FENCED while no newer instance of its application existed", 9},
		{LiveProd, "spurious fatal: instance p3 stopped with INVALID_PRODUCER_EPOCH while no newer instance of its application existed", 9},
	})
}

// TestLiveProdCrashedFatal: an instance that went fatal and stays crashed
// to the end still ended fatal.
func TestLiveProdCrashedFatal(t *testing.T) {
	r := newRun(Config{Names: liveNames})
	r.start(0, 1, 0)
	r.active(1, 1, 0)
	r.fatal(2, 1, model.ErrProducerFenced)
	r.crash(3, 1)
	_, vs := r.end(9, 0, "drained", 0)
	wantViolations(t, vs, []Violation{
		{LiveProd, "spurious fatal: instance p1 stopped with PRODUCER_FENCED while no newer instance of its application existed", 9},
	})
}

// TestLiveProdSettle: a run stopped by one of the simulator's budgets is
// reported with the budget, by name and how to move it (not as a stall);
// a drained one is not reported. The three kinds come in the order
// pending, fatal, budget.
func TestLiveProdSettle(t *testing.T) {
	end, plan := sim.Time(300_000_000_000), sim.Time(60_500_000_000)
	for _, tc := range []struct {
		stop string
		want []Violation
	}{
		{"drained", nil},
		{"event-limit", []Violation{{LiveProd, "run stopped at 300.000000000s (event-limit): the simulator's event budget ran out before the run finished (-max-events, 50000000 events by default: raise it to let the run go on); the fault plan ended at 60.500000000s", int64(end)}}},
		{"time-limit", []Violation{{LiveProd, "run stopped at 300.000000000s (time-limit): the run reached the simulator's time horizon with events still scheduled (the later of the fault plan's end and the last send plus delivery.timeout.ms, then delivery.timeout.ms, twice request.timeout.ms and a minute more: longer timeouts move it); the fault plan ended at 60.500000000s", int64(end)}}},
		{"state-limit", []Violation{{LiveProd, "run stopped at 300.000000000s (state-limit): the simulator's state budget ran out (1000000 units of pending events, messages on the wire, plan actions and log entries held at once; Spec.MaxState, no flag): the run's state grew without bound; the fault plan ended at 60.500000000s", int64(end)}}},
		{"stopped", nil},
	} {
		r := newRun(Config{Names: liveNames})
		_, vs := r.end(end, 0, tc.stop, plan)
		wantViolations(t, vs, tc.want)
	}

	r := newRun(Config{Names: liveNames})
	r.start(0, 0, 0)
	r.fatal(1, 0, model.ErrProducerFenced)
	_, vs := r.end(end, 2, "time-limit", plan)
	wantViolations(t, vs, []Violation{
		{LiveProd, "2 records still unresolved at the end of the run", int64(end)},
		{LiveProd, "spurious fatal: instance p0 stopped with PRODUCER_FENCED while no newer instance of its application existed", int64(end)},
		{LiveProd, "run stopped at 300.000000000s (time-limit): " + StopDetail("time-limit") + "; the fault plan ended at 60.500000000s", int64(end)},
	})
}

// TestLiveProdNothingDelivered: records sent and none acknowledged or
// failed (every one abandoned) is a LIVE-PROD violation, not a pass (on
// main such a run passed); one acknowledged record, or records reported
// failed, is an outcome.
func TestLiveProdNothingDelivered(t *testing.T) {
	r := newRun(Config{Names: liveNames})
	r.send(0, 0)
	r.send(1, 0)
	_, vs := r.end(9, 0, "drained", 0)
	wantViolations(t, vs, []Violation{{LiveProd, "nothing delivered: 2 records sent, none acknowledged or failed (abandoned or pending)", 9}})

	for _, err := range []model.ErrCode{model.ErrNone, model.ErrProducerFenced} {
		r = newRun(Config{Names: liveNames})
		r.send(0, 0)
		r.send(1, 0)
		r.outcome(model.Outcome{ID: model.RecordID{N: 0}, At: 2, Err: err})
		_, vs = r.end(9, 0, "drained", 0)
		for _, v := range vs {
			if v.Invariant == LiveProd {
				t.Errorf("outcome %v: %v", err, v)
			}
		}
	}
}
