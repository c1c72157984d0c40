package world

import "testing"

// TestNoTimersPastHorizon: an event that could only run after the run's
// horizon is not queued (a broker's day-long expiry check, a 24-day
// request timer); a dropped foreground event is counted, so that a run
// that drains with one dropped still reports the time limit.
func TestNoTimersPastHorizon(t *testing.T) {
	w := &World{limit: 100}
	w.schedule(50, Event{kind: evWake})
	w.schedule(100, Event{kind: evWake})
	w.schedule(101, Event{kind: evWake})
	w.schedule(5000, Event{kind: evWake, bg: true})
	if got := w.loop.Pending(); got != 2 {
		t.Errorf("%d events queued, want the 2 at or before the horizon", got)
	}
	if w.beyond != 1 {
		t.Errorf("beyond = %d, want 1 (background events do not keep a run alive and are not counted)", w.beyond)
	}
	w = &World{} // before the run starts there is no horizon
	w.schedule(1<<60, Event{kind: evStart})
	if w.loop.Pending() != 1 || w.beyond != 0 {
		t.Errorf("without a horizon: pending %d beyond %d", w.loop.Pending(), w.beyond)
	}
}
