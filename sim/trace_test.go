package sim

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// entries writes three entries to tr, formatting them when it formats.
func entries(tr *Trace) {
	for i, s := range []string{"p1 send", "b1 append", "p1 ack"} {
		at := Time(i) * 1_500_000
		tr.Entry(uint64(i), at)
		tr.Str(s)
		tr.I64(int64(i))
		if tr.Formats() {
			b := tr.Begin(at)
			b = append(b, s...)
			tr.Commit(b)
		}
	}
}

func TestTraceHashIgnoresFormatting(t *testing.T) {
	var out bytes.Buffer
	tr := NewTrace()
	tr.Keep()
	tr.Tee(&out)
	entries(tr)
	plain := NewTrace()
	entries(plain)
	if tr.Hash() != plain.Hash() {
		t.Fatalf("hash with lines %x, without %x: formatting must not change the hash", tr.Hash(), plain.Hash())
	}
	if plain.Formats() || !tr.Formats() {
		t.Fatalf("Formats: %v without a sink, %v with one", plain.Formats(), tr.Formats())
	}
	want := "t=0.000000000s p1 send\nt=0.001500000s b1 append\nt=0.003000000s p1 ack\n"
	if out.String() != want {
		t.Fatalf("written trace:\n%s\nwant:\n%s", out.String(), want)
	}
	if len(tr.Lines()) != 3 || tr.Len() != 3 || plain.Len() != 3 {
		t.Fatalf("kept %d lines, counted %d and %d entries, want 3", len(tr.Lines()), tr.Len(), plain.Len())
	}
}

// TestTraceHashFields: every field, its order and the entry boundaries
// reach the hash.
func TestTraceHashFields(t *testing.T) {
	hash := func(f func(tr *Trace)) uint64 {
		tr := NewTrace()
		f(tr)
		return tr.Hash()
	}
	seen := map[uint64]string{}
	for name, f := range map[string]func(tr *Trace){
		"empty":       func(tr *Trace) {},
		"entry":       func(tr *Trace) { tr.Entry(1, 0) },
		"kind":        func(tr *Trace) { tr.Entry(2, 0) },
		"time":        func(tr *Trace) { tr.Entry(1, 1) },
		"u64":         func(tr *Trace) { tr.Entry(1, 0); tr.U64(7) },
		"two":         func(tr *Trace) { tr.Entry(1, 0); tr.U64(7); tr.U64(8) },
		"swapped":     func(tr *Trace) { tr.Entry(1, 0); tr.U64(8); tr.U64(7) },
		"split":       func(tr *Trace) { tr.Entry(1, 0); tr.U64(7); tr.Entry(1, 0); tr.U64(8) },
		"str":         func(tr *Trace) { tr.Entry(1, 0); tr.Str("abcdefghi") },
		"str2":        func(tr *Trace) { tr.Entry(1, 0); tr.Str("abcdefghj") },
		"strs":        func(tr *Trace) { tr.Entry(1, 0); tr.Str("abcd"); tr.Str("efghi") },
		"empty str":   func(tr *Trace) { tr.Entry(1, 0); tr.Str("") },
		"nul str":     func(tr *Trace) { tr.Entry(1, 0); tr.Str("\x00") },
		"bool":        func(tr *Trace) { tr.Entry(1, 0); tr.Bool(true) },
		"negative":    func(tr *Trace) { tr.Entry(1, 0); tr.I64(-1) },
		"bytes equal": func(tr *Trace) { tr.Entry(1, 0); tr.Bytes([]byte("abcdefghi!")) },
	} {
		h := hash(f)
		if other, ok := seen[h]; ok {
			t.Errorf("%s and %s hash alike (%x)", name, other, h)
		}
		seen[h] = name
	}
	a, b := NewTrace(), NewTrace()
	a.Entry(1, 0)
	a.Str("abcdefghi!")
	b.Entry(1, 0)
	b.Bytes([]byte("abcdefghi!"))
	if a.Hash() != b.Hash() {
		t.Errorf("Str and Bytes of the same text differ")
	}
}

func TestHashStringRoundTrip(t *testing.T) {
	for _, h := range []uint64{0, 1, 0xdcebe54447ea720c, ^uint64(0)} {
		s := HashString(h)
		if !strings.HasPrefix(s, "v2:") || len(s) != 19 || s != "v2:"+fmt.Sprintf("%016x", h) {
			t.Fatalf("HashString(%x) = %q, want v2: and 16 lowercase hex digits", h, s)
		}
		got, err := ParseHash(s)
		if err != nil || got != h {
			t.Fatalf("ParseHash(%q) = %x, %v", s, got, err)
		}
	}
	// An untagged hash (scheme 1, as older versions printed them) fails
	// loudly, and so does anything else that is not a v2 hash.
	for _, s := range []string{"dcebe54447ea720c", "v1:dcebe54447ea720c", "v2:dcebe5", "v2:dcebe54447ea720z", ""} {
		if _, err := ParseHash(s); err == nil {
			t.Errorf("ParseHash(%q) accepted", s)
		} else if s == "dcebe54447ea720c" && !errors.Is(err, ErrHashScheme) {
			t.Errorf("ParseHash(%q): %v, want ErrHashScheme", s, err)
		}
	}
}

func TestTraceHashOnlyAllocatesNothing(t *testing.T) {
	tr := NewTrace()
	allocs := testing.AllocsPerRun(1000, func() {
		tr.Entry(3, 123456789)
		tr.I64(1000)
		tr.Str("b1 append p0 pid=1000 e=0 seq=0..4 off=10..14")
	})
	if allocs != 0 {
		t.Fatalf("hash-only trace entry: %v allocs, want 0", allocs)
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
