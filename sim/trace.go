package sim

import (
	"io"
	"strconv"
)

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// Trace is a run's canonical timeline: one line per event and per notable
// state change. Every line is hashed with FNV-64a as it is committed, so the
// hash identifies the run; lines are kept in memory or written out only when
// asked. With neither, committing a line costs no allocation.
//
// A line is built in the trace's own buffer:
//
//	b := tr.Begin(now)
//	b = append(b, "b1 append ..."...)
//	tr.Commit(b)
type Trace struct {
	hash  uint64
	lines int64
	buf   []byte
	w     io.Writer // optional sink, one line per write
	keep  bool
	kept  []string
	werr  error // first write error of the sink
}

// NewTrace returns a trace that only hashes. See [Trace.Keep] and
// [Trace.WriteTo].
func NewTrace() *Trace {
	return &Trace{hash: fnvOffset, buf: make([]byte, 0, 256)}
}

// Keep makes the trace keep every committed line in memory ([Trace.Lines]).
func (t *Trace) Keep() { t.keep = true }

// Tee makes the trace also write every committed line, newline-terminated,
// to w. The first write error is kept and reported by [Trace.Err].
func (t *Trace) Tee(w io.Writer) { t.w = w }

// Begin starts a new line at time at and returns the buffer to append the
// rest of the line to. The buffer is valid until the next Begin.
func (t *Trace) Begin(at Time) []byte {
	b := append(t.buf[:0], "t="...)
	b = at.AppendTo(b)
	return append(b, ' ')
}

// Commit hashes the line b (which must come from [Trace.Begin]) and writes
// or keeps it as configured.
func (t *Trace) Commit(b []byte) {
	h := t.hash
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	h ^= '\n'
	h *= fnvPrime
	t.hash = h
	t.lines++
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

// Hash returns the FNV-64a hash of every line committed so far (each line
// followed by a newline).
func (t *Trace) Hash() uint64 { return t.hash }

// HashString returns [Trace.Hash] as 16 lowercase hex digits.
func (t *Trace) HashString() string {
	return HashString(t.hash)
}

// HashString formats a trace hash as 16 lowercase hex digits.
func HashString(h uint64) string {
	s := strconv.FormatUint(h, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

// Len returns the number of committed lines.
func (t *Trace) Len() int64 { return t.lines }

// Lines returns the kept lines; nil unless [Trace.Keep] was called.
func (t *Trace) Lines() []string { return t.kept }

// Err returns the first error the sink returned, if any.
func (t *Trace) Err() error { return t.werr }
