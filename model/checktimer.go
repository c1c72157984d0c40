package model

import "github.com/idemsim/idemsim/sim"

// CheckTimer drives a server's periodic check (producer-state expiry,
// transaction timeouts): Kafka runs it every interval; idemsim wakes only
// at the boundaries where something is due, so an idle server sets no
// timer and a run still drains.
type CheckTimer struct {
	// last is the last boundary checked; at the boundary of the pending
	// wake-up, -1 for none; tok its token.
	last, at sim.Time
	tok      uint64
}

func NewCheckTimer() CheckTimer { return CheckTimer{at: -1} }

// Arm asks for a wake-up at the first multiple of every at or after due
// and after the last boundary checked. It returns the OutWake to emit,
// or false when that wake-up is pending already.
func (t *CheckTimer) Arm(due, every sim.Time) (Out, bool) {
	at := (due + every - 1) / every * every
	if at <= t.last {
		at = t.last + every
	}
	if at == t.at {
		return Out{}, false
	}
	t.at = at
	t.tok++
	return Out{Kind: OutWake, At: at, Timer: t.tok}, true
}

// Fire reports the boundary a wake-up with token is for, and whether it
// is the pending one; it then counts as checked.
func (t *CheckTimer) Fire(token uint64) (sim.Time, bool) {
	if token != t.tok || t.at < 0 {
		return 0, false
	}
	at := t.at
	t.at, t.last = -1, at
	return at, true
}

// Stop forgets the pending wake-up (a crash).
func (t *CheckTimer) Stop() { t.at = -1 }
