package sim

import "testing"

// chainH schedules its event again one tick later, without end.
type chainH struct{ l *Loop[tev] }

func (h chainH) Handle(now Time, _ uint64, ev tev) { h.l.At(now+1, ev) }

// TestRunToLimit: RunToLimit stops at the event cap and says so; without a
// cap it runs to t and moves the clock there.
func TestRunToLimit(t *testing.T) {
	var l Loop[tev]
	l.At(0, tev{id: 1})
	if l.RunToLimit(1000, 10, chainH{&l}) || l.Events() != 10 {
		t.Fatalf("cap ignored: %d events", l.Events())
	}
	var m Loop[tev]
	m.At(5, tev{id: 1})
	var h pendH
	if !m.RunToLimit(10, 0, &h) || m.Now() != 10 || len(h.got) != 1 {
		t.Fatalf("no cap: now %v, handled %v", m.Now(), h.got)
	}
}
