package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

type tev struct{ id int }

func (e tev) AppendDescription(b []byte) []byte { return append(b, "ev"...) }

// TestQueueOrderProperty: whatever the schedule, events come out sorted by
// time, and events with equal times come out in the order they were pushed.
func TestQueueOrderProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue[tev]
		type pushed struct {
			at  Time
			ord int
		}
		var want []pushed
		n := rapid.IntRange(0, 300).Draw(t, "n")
		// Few distinct times, so ties are common.
		times := rapid.SliceOfN(rapid.Int64Range(0, 20), n, n).Draw(t, "times")
		popEvery := rapid.IntRange(0, 7).Draw(t, "popEvery")
		var got []pushed
		for i, at := range times {
			q.Push(Time(at), tev{id: i})
			want = append(want, pushed{Time(at), i})
			if popEvery > 0 && i%popEvery == 0 && q.Len() > 0 {
				at, _, ev := q.Pop()
				got = append(got, pushed{at, ev.id})
			}
		}
		for q.Len() > 0 {
			at, _, ev := q.Pop()
			got = append(got, pushed{at, ev.id})
		}
		if len(got) != len(want) {
			t.Fatalf("popped %d events, pushed %d", len(got), len(want))
		}
		// Each pop must be the (time, push order) minimum of what was
		// pending then; with interleaved pops, check it by replaying.
		var pending []pushed
		gi := 0
		for i := range times {
			pending = append(pending, want[i])
			if popEvery > 0 && i%popEvery == 0 {
				m := slices.MinFunc(pending, func(a, b pushed) int {
					if a.at != b.at {
						return int(a.at - b.at)
					}
					return a.ord - b.ord
				})
				if got[gi] != m {
					t.Fatalf("pop %d = %+v, want %+v", gi, got[gi], m)
				}
				pending = slices.DeleteFunc(pending, func(p pushed) bool { return p == m })
				gi++
			}
		}
		slices.SortStableFunc(pending, func(a, b pushed) int { return int(a.at - b.at) })
		if !slices.Equal(got[gi:], pending) {
			t.Fatalf("drain order %v, want %v", got[gi:], pending)
		}
	})
}

func TestLoopLimits(t *testing.T) {
	var l Loop[tev]
	rec := &recorder{}
	for i := 0; i < 10; i++ {
		l.At(Time(i*10), tev{id: i})
	}
	if r := l.Run(Limits{Until: 35}, rec); r != StopTimeLimit {
		t.Fatalf("Run(Until: 35) = %v, want time-limit", r)
	}
	if !slices.Equal(rec.ids, []int{0, 1, 2, 3}) || l.Now() != 30 {
		t.Fatalf("ran %v up to %v, want [0 1 2 3] up to 30", rec.ids, l.Now())
	}
	if r := l.Run(Limits{MaxEvents: 6}, rec); r != StopEventLimit {
		t.Fatalf("Run(MaxEvents: 6) = %v, want event-limit", r)
	}
	if l.Events() != 6 {
		t.Fatalf("events = %d, want 6", l.Events())
	}
	if r := l.Run(Limits{}, rec); r != StopDrained {
		t.Fatalf("Run() = %v, want drained", r)
	}
	if len(rec.ids) != 10 {
		t.Fatalf("ran %d events, want 10", len(rec.ids))
	}
}

type recorder struct{ ids []int }

func (r *recorder) Handle(now Time, seq uint64, ev tev) { r.ids = append(r.ids, ev.id) }

func TestLoopNeverRunsThePast(t *testing.T) {
	var l Loop[tev]
	l.At(100, tev{id: 0})
	h := handlerFunc(func(now Time, ev tev) {
		if ev.id == 0 {
			l.At(5, tev{id: 1}) // in the past: runs at 100
		} else if now != 100 {
			t.Errorf("event scheduled in the past ran at %v, want 100", now)
		}
	})
	l.Run(Limits{}, h)
	if l.Events() != 2 {
		t.Fatalf("events = %d, want 2", l.Events())
	}
}

type handlerFunc func(Time, tev)

func (f handlerFunc) Handle(now Time, seq uint64, ev tev) { f(now, ev) }

// ev is a test event: its name.
type ev string

func (e ev) AppendDescription(b []byte) []byte { return append(b, e...) }

// bgRec records the events it handles and schedules follow-ups.
type bgRec struct {
	l    *Loop[ev]
	seen []string
}

func (r *bgRec) Handle(now Time, seq uint64, e ev) {
	r.seen = append(r.seen, now.String()+":"+string(e))
}

func TestLoopBackgroundDoesNotKeepRunAlive(t *testing.T) {
	var l Loop[ev]
	r := &bgRec{l: &l}
	l.Background(5, "bg-early")
	l.At(10, "fg")
	l.Background(20, "bg-late")
	if got := l.Run(Limits{}, r); got != StopDrained {
		t.Fatalf("stop = %v, want drained", got)
	}
	want := []string{Time(5).String() + ":bg-early", Time(10).String() + ":fg"}
	if len(r.seen) != len(want) || r.seen[0] != want[0] || r.seen[1] != want[1] {
		t.Fatalf("handled %v, want %v (background runs in order, the late one is left)", r.seen, want)
	}
	if l.Pending() != 1 {
		t.Fatalf("pending = %d, want the late background event left", l.Pending())
	}
	l.At(30, "fg2")
	l.Run(Limits{}, r)
	if got := r.seen[len(r.seen)-2:]; got[0] != Time(20).String()+":bg-late" || got[1] != Time(30).String()+":fg2" {
		t.Fatalf("after a new foreground event the background one runs first: %v", got)
	}
}

// TestLoopRunTo: a hand-moved clock runs every event due by the target
// time, background ones too, in order, including events scheduled at the
// target time meanwhile, and then stands at the target; Run's foreground
// count stays right.
func TestLoopRunTo(t *testing.T) {
	var l Loop[ev]
	r := &bgRec{l: &l}
	l.Background(5, "bg")
	l.At(10, "fg")
	l.At(0, "zero")
	l.At(30, "late")
	if at, ok := l.Next(); !ok || at != 0 {
		t.Fatalf("Next = %v %v, want 0", at, ok)
	}
	l.RunTo(0, r)
	l.RunTo(20, r)
	want := []string{Time(0).String() + ":zero", Time(5).String() + ":bg", Time(10).String() + ":fg"}
	if !slices.Equal(r.seen, want) || l.Now() != 20 {
		t.Fatalf("handled %v at %v, want %v at 20", r.seen, l.Now(), want)
	}
	if at, ok := l.Next(); !ok || at != 30 {
		t.Fatalf("Next = %v %v, want 30", at, ok)
	}
	l.RunTo(5, r) // the clock never goes back
	if l.Now() != 20 || len(r.seen) != 3 {
		t.Fatalf("RunTo an earlier time: now %v, handled %v", l.Now(), r.seen)
	}
	if got := l.Run(Limits{}, r); got != StopDrained || r.seen[3] != Time(30).String()+":late" {
		t.Fatalf("Run after RunTo: %v %v", got, r.seen)
	}
}
