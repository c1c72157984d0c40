package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// HashScheme names how trace hashes are computed. Every hash the
// simulator prints or stores carries it as a prefix ("v2:" and 16 hex
// digits), so a hash recorded under another scheme (the untagged FNV-64a
// of the formatted lines, scheme 1) fails to parse instead of silently
// mismatching.
const HashScheme = "v2"

const (
	hashSeed  uint64 = 0x243f6a8885a308d3 // pi's fraction: any fixed odd start
	hashMul   uint64 = 0x9e3779b97f4a7c15
	entryMark uint64 = 0xe17e_0000_0000_0000
)

// Trace is a run's canonical timeline: one entry per event and per notable
// state change. Each entry is hashed as it is made, from fixed-width
// binary fields (hash scheme [HashScheme]: the entry's kind and time, then
// its fields as 64-bit words, strings as their length and bytes), so the
// hash identifies the run without formatting anything. Only a trace that
// is kept or written formats its entries as text lines ([Trace.Formats]).
//
// An entry is hashed and, when formatting, written:
//
//	tr.Entry(kind, now)
//	tr.U64(...) // the entry's fields
//	if tr.Formats() {
//		b := tr.Begin(now)
//		b = append(b, "b1 append ..."...)
//		tr.Commit(b)
//	}
type Trace struct {
	hash    uint64
	entries int64
	buf     []byte
	w       io.Writer // optional sink, one line per write
	keep    bool
	kept    []string
	werr    error // first write error of the sink
}

// NewTrace returns a trace that only hashes. See [Trace.Keep] and
// [Trace.Tee].
func NewTrace() *Trace {
	return &Trace{hash: hashSeed, buf: make([]byte, 0, 256)}
}

// Keep makes the trace keep every committed line in memory ([Trace.Lines]).
func (t *Trace) Keep() { t.keep = true }

// Tee makes the trace also write every committed line, newline-terminated,
// to w. The first write error is kept and reported by [Trace.Err].
func (t *Trace) Tee(w io.Writer) { t.w = w }

// Formats reports whether committed lines go anywhere (kept or written):
// when it is false, a writer need not format its lines at all.
func (t *Trace) Formats() bool { return t.keep || t.w != nil }

func (t *Trace) mix(v uint64) {
	h := (t.hash ^ v) * hashMul
	t.hash = h ^ h>>29
}

// Entry starts a new hashed entry of the given kind at time at.
func (t *Trace) Entry(kind uint64, at Time) {
	t.entries++
	t.mix(entryMark | kind)
	t.mix(uint64(at))
}

// U64 hashes one field of the current entry.
func (t *Trace) U64(v uint64) { t.mix(v) }

// I64 hashes one signed field of the current entry.
func (t *Trace) I64(v int64) { t.mix(uint64(v)) }

// Bool hashes one boolean field of the current entry.
func (t *Trace) Bool(v bool) {
	if v {
		t.mix(1)
	} else {
		t.mix(0)
	}
}

// Str hashes one string field of the current entry: its length, then its
// bytes eight at a time (little-endian, the last word zero-padded).
func (t *Trace) Str(s string) {
	t.mix(uint64(len(s)))
	for len(s) >= 8 {
		t.mix(binary.LittleEndian.Uint64([]byte(s[:8])))
		s = s[8:]
	}
	if len(s) > 0 {
		var w uint64
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
		t.mix(w)
	}
}

// Bytes hashes one byte-string field of the current entry, as [Trace.Str].
func (t *Trace) Bytes(b []byte) {
	t.mix(uint64(len(b)))
	for len(b) >= 8 {
		t.mix(binary.LittleEndian.Uint64(b[:8]))
		b = b[8:]
	}
	if len(b) > 0 {
		var w uint64
		for i := len(b) - 1; i >= 0; i-- {
			w = w<<8 | uint64(b[i])
		}
		t.mix(w)
	}
}

// Begin starts a new text line at time at and returns the buffer to append
// the rest of the line to. The buffer is valid until the next Begin.
func (t *Trace) Begin(at Time) []byte {
	b := append(t.buf[:0], "t="...)
	b = at.AppendTo(b)
	return append(b, ' ')
}

// Commit writes or keeps the line b (which must come from [Trace.Begin])
// as configured. Lines are not hashed: the entries are.
func (t *Trace) Commit(b []byte) {
	if t.keep {
		t.kept = append(t.kept, string(b))
	}
	if t.w != nil && t.werr == nil {
		b = append(b, '\n')
		_, t.werr = t.w.Write(b)
		b = b[:len(b)-1]
	}
	t.buf = b[:0]
}

// Hash returns the hash of every entry made so far.
func (t *Trace) Hash() uint64 { return t.hash }

// HashString returns [Trace.Hash] tagged with its scheme ([HashString]).
func (t *Trace) HashString() string {
	return HashString(t.hash)
}

// HashString formats a trace hash with its scheme: "v2:" and 16 lowercase
// hex digits.
func HashString(h uint64) string {
	const hex = "0123456789abcdef"
	var b [len(HashScheme) + 1 + 16]byte
	n := copy(b[:], HashScheme)
	b[n] = ':'
	for i := len(b) - 1; i > n; i-- {
		b[i] = hex[h&0xf]
		h >>= 4
	}
	return string(b[:])
}

// ErrHashScheme is returned by [ParseHash] for a hash of another scheme.
var ErrHashScheme = errors.New("trace hash of another scheme")

// ParseHash reads what [HashString] writes. A hash without the current
// scheme's tag (an untagged scheme-1 hash from an older version, say) is
// refused with an error wrapping [ErrHashScheme].
func ParseHash(s string) (uint64, error) {
	hex, ok := strings.CutPrefix(s, HashScheme+":")
	if !ok {
		return 0, fmt.Errorf("%w: %q is not a %s hash (hashes are %s:<16 hex digits>; recompute it with this version)", ErrHashScheme, s, HashScheme, HashScheme)
	}
	if len(hex) != 16 {
		return 0, fmt.Errorf("bad trace hash %q: want %s:<16 hex digits>", s, HashScheme)
	}
	h, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bad trace hash %q: want %s:<16 hex digits>", s, HashScheme)
	}
	return h, nil
}

// Len returns the number of entries made.
func (t *Trace) Len() int64 { return t.entries }

// Lines returns the kept lines; nil unless [Trace.Keep] was called.
func (t *Trace) Lines() []string { return t.kept }

// Err returns the first error the sink returned, if any.
func (t *Trace) Err() error { return t.werr }

// Reset returns t to the state [NewTrace] gives (only hashing, nothing
// kept or written) and keeps its line buffer's storage.
func (t *Trace) Reset() {
	*t = Trace{hash: hashSeed, buf: t.buf[:0]}
}
