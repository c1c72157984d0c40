package sim

import (
	"bytes"
	"hash/fnv"
	"testing"
)

func TestTraceHashMatchesFNV(t *testing.T) {
	var out bytes.Buffer
	tr := NewTrace()
	tr.Keep()
	tr.Tee(&out)
	for i, s := range []string{"p1 send", "b1 append", "p1 ack"} {
		b := tr.Begin(Time(i) * 1_500_000)
		b = append(b, s...)
		tr.Commit(b)
	}
	h := fnv.New64a()
	h.Write(out.Bytes())
	if tr.Hash() != h.Sum64() {
		t.Fatalf("trace hash %x, FNV-64a of the written lines %x", tr.Hash(), h.Sum64())
	}
	want := "t=0.000000000s p1 send\nt=0.001500000s b1 append\nt=0.003000000s p1 ack\n"
	if out.String() != want {
		t.Fatalf("written trace:\n%s\nwant:\n%s", out.String(), want)
	}
	if len(tr.Lines()) != 3 || tr.Len() != 3 {
		t.Fatalf("kept %d lines, counted %d, want 3", len(tr.Lines()), tr.Len())
	}
}

func TestTraceHashOnlyAllocatesNothing(t *testing.T) {
	tr := NewTrace()
	allocs := testing.AllocsPerRun(1000, func() {
		b := tr.Begin(123456789)
		b = append(b, "b1 append p0 pid=1000 e=0 seq=0..4 off=10..14"...)
		tr.Commit(b)
	})
	if allocs != 0 {
		t.Fatalf("hash-only trace line: %v allocs, want 0", allocs)
	}
}

func TestTimeString(t *testing.T) {
	for _, c := range []struct {
		t    Time
		want string
	}{{0, "0.000000000s"}, {1, "0.000000001s"}, {12_000_250_000, "12.000250000s"}, {-5, "-0.000000005s"}} {
		if got := c.t.String(); got != c.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(c.t), got, c.want)
		}
	}
}
