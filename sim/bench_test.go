package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchEvent is the size of a typical world event.
type benchEvent struct {
	kind uint8
	node int32
	a, b uint64
	c    [2]uint32
}

func (benchEvent) AppendDescription(b []byte) []byte { return b }

// plainHeap is the baseline for the hold benchmark: a hand-written,
// non-generic binary heap over a slice of structs, written the obvious way.
type plainEntry struct {
	at  int64
	seq uint64
	ev  benchEvent
}

type plainHeap struct {
	h   []plainEntry
	seq uint64
}

func (p *plainHeap) push(at int64, ev benchEvent) {
	p.h = append(p.h, plainEntry{at, p.seq, ev})
	p.seq++
	i := len(p.h) - 1
	for i > 0 {
		j := (i - 1) / 2
		if p.h[j].at < p.h[i].at || p.h[j].at == p.h[i].at && p.h[j].seq < p.h[i].seq {
			break
		}
		p.h[i], p.h[j] = p.h[j], p.h[i]
		i = j
	}
}

func (p *plainHeap) pop() plainEntry {
	top := p.h[0]
	n := len(p.h) - 1
	p.h[0] = p.h[n]
	p.h = p.h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && (p.h[r].at < p.h[l].at || p.h[r].at == p.h[l].at && p.h[r].seq < p.h[l].seq) {
			m = r
		}
		if p.h[i].at < p.h[m].at || p.h[i].at == p.h[m].at && p.h[i].seq < p.h[m].seq {
			break
		}
		p.h[i], p.h[m] = p.h[m], p.h[i]
		i = m
	}
	return top
}

// increments are pre-drawn exponential increments (mean 1ms), so the
// benchmark measures the queue and not the random generator.
func increments(n int) []int64 {
	rng := rand.New(rand.NewPCG(1, 2))
	inc := make([]int64, n)
	for i := range inc {
		inc[i] = int64(rng.ExpFloat64() * 1e6)
	}
	return inc
}

// BenchmarkHold is the classic hold model: with n events pending, pop the
// earliest and schedule one at now plus an exponential increment.
func BenchmarkHold(b *testing.B) {
	inc := increments(1 << 16)
	for _, n := range []int{10, 1000, 100_000} {
		b.Run(fmt.Sprintf("queue/n=%d", n), func(b *testing.B) {
			var q Queue[benchEvent]
			for i := 0; i < n; i++ {
				q.Push(Time(inc[i&0xffff]), benchEvent{})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				at, _, ev := q.Pop()
				q.Push(at+Time(inc[i&0xffff]), ev)
			}
		})
		b.Run(fmt.Sprintf("plainheap/n=%d", n), func(b *testing.B) {
			var q plainHeap
			for i := 0; i < n; i++ {
				q.push(inc[i&0xffff], benchEvent{})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := q.pop()
				q.push(e.at+inc[i&0xffff], e.ev)
			}
		})
	}
}

// TestHoldAllocatesNothing pins the zero-allocation promise of the queue in
// steady state (a behaviour, not a timing).
func TestHoldAllocatesNothing(t *testing.T) {
	inc := increments(1024)
	var q Queue[benchEvent]
	for i := 0; i < 1000; i++ {
		q.Push(Time(inc[i]), benchEvent{})
	}
	i := 0
	allocs := testing.AllocsPerRun(10_000, func() {
		at, _, ev := q.Pop()
		q.Push(at+Time(inc[i&1023]), ev)
		i++
	})
	if allocs != 0 {
		t.Fatalf("hold step: %v allocs, want 0", allocs)
	}
}
