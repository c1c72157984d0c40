package sim

import (
	"bytes"
	"testing"
)

// seqH records what it handles, with the sequence numbers.
type seqH struct{ got []uint64 }

func (h *seqH) Handle(now Time, seq uint64, ev tev) {
	h.got = append(h.got, uint64(now), seq, uint64(ev.id))
}

// TestLoopReset: a loop reset in the middle of a run, with events still
// pending, handles the next schedule exactly as a new loop does (times,
// sequence numbers, events, counts), and keeps none of the old events.
func TestLoopReset(t *testing.T) {
	schedule := func(l *Loop[tev]) {
		for i := range 50 {
			l.At(Time((i*7919)%101), tev{id: i})
			if i%5 == 0 {
				l.Background(Time(i), tev{id: 1000 + i})
			}
		}
	}
	var used Loop[tev]
	for i := range 200 {
		used.At(Time(i), tev{id: -i})
	}
	used.RunTo(50, &seqH{})
	used.Reset()
	if used.Pending() != 0 || used.Now() != 0 || used.Events() != 0 {
		t.Fatalf("after Reset: %d pending, now %v, %d events", used.Pending(), used.Now(), used.Events())
	}
	var fresh Loop[tev]
	schedule(&used)
	schedule(&fresh)
	var a, b seqH
	ra := used.Run(Limits{}, &a)
	rb := fresh.Run(Limits{}, &b)
	if ra != rb || used.Events() != fresh.Events() || used.Now() != fresh.Now() {
		t.Fatalf("reset loop stopped %v at %v after %d events, a new one %v at %v after %d", ra, used.Now(), used.Events(), rb, fresh.Now(), fresh.Events())
	}
	if len(a.got) != len(b.got) || len(a.got) == 0 {
		t.Fatalf("reset loop handled %d, a new one %d", len(a.got)/3, len(b.got)/3)
	}
	for i := range a.got {
		if a.got[i] != b.got[i] {
			t.Fatalf("entry %d: reset loop %v, new loop %v", i/3, a.got[i/3*3:i/3*3+3], b.got[i/3*3:i/3*3+3])
		}
	}
}

// TestTraceReset: a used trace (kept, written, hashed) after Reset hashes,
// keeps and writes exactly as a new one.
func TestTraceReset(t *testing.T) {
	feed := func(tr *Trace) {
		for i := range 20 {
			tr.Entry(3, Time(i))
			tr.Str("abc")
			b := tr.Begin(Time(i))
			tr.Commit(append(b, "line"...))
		}
	}
	used := NewTrace()
	var out bytes.Buffer
	used.Keep()
	used.Tee(&out)
	feed(used)
	used.Reset()
	if used.Formats() || len(used.Lines()) != 0 {
		t.Fatalf("after Reset the trace still formats (%v) or keeps %d lines", used.Formats(), len(used.Lines()))
	}
	fresh := NewTrace()
	feed(used)
	feed(fresh)
	if used.HashString() != fresh.HashString() {
		t.Fatalf("reset trace hash %s, new trace %s", used.HashString(), fresh.HashString())
	}
	n := out.Len()
	used.Keep()
	feed(used)
	if out.Len() != n || len(used.Lines()) != 20 {
		t.Fatalf("after Reset: %d bytes written to the old sink, %d lines kept", out.Len()-n, len(used.Lines()))
	}
}
