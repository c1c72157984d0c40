package trace

import (
	"io"
	"strconv"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// Writer reads the observation stream and writes the run's timeline: one
// deterministic line per observation worth a line, hashed as it goes
// (the trace hash) and, when kept or written, formatted.
type Writer struct {
	tr      *sim.Trace
	names   []string
	scratch []byte // a message description or note, for the hash's fallbacks
}

// New returns the trace of a run with the given node names (indexed by
// node id), in old's memory when old is not nil (a finished run's): it
// only hashes until [Writer.Keep] or [Writer.Tee].
func New(names []string, old *Writer) *Writer {
	if old == nil {
		return &Writer{tr: sim.NewTrace(), names: names}
	}
	old.tr.Reset()
	*old = Writer{tr: old.tr, names: names, scratch: old.scratch[:0]}
	return old
}

// Keep makes the writer keep every line in memory ([Writer.Lines]).
func (w *Writer) Keep() { w.tr.Keep() }

// Tee makes the writer also write every line, newline-terminated, to out.
func (w *Writer) Tee(out io.Writer) { w.tr.Tee(out) }

// Lines returns the kept lines; nil unless [Writer.Keep] was called.
func (w *Writer) Lines() []string { return w.tr.Lines() }

// HashString returns the trace hash of every entry so far, tagged with its
// scheme ([sim.HashString]).
func (w *Writer) HashString() string { return w.tr.HashString() }

// Observe hashes o's trace entry, if it has a line, and formats the line
// only when the trace is kept or written. It panics on a kind without an
// entry in the table.
func (w *Writer) Observe(o *model.Obs) {
	if int(o.Kind) >= len(kinds) {
		unknown(o.Kind)
	}
	k := &kinds[o.Kind]
	if k.hash == nil {
		if !k.noLine {
			unknown(o.Kind)
		}
		return // counters and checkers read it
	}
	if k.omit != nil && k.omit(o) {
		return
	}
	tr := w.tr
	tr.Entry(uint64(o.Kind), o.At)
	k.hash(w, tr, o)
	if tr.Formats() {
		tr.Commit(k.line(w, tr.Begin(o.At), o))
	}
}

func unknown(k model.ObsKind) {
	panic("trace: no trace line for observation kind " + strconv.Itoa(int(k)))
}

// name returns node n's name; -1 is "sim".
func (w *Writer) name(n int32) string {
	if n < 0 {
		return "sim"
	}
	return w.names[n]
}

// appendConn appends a connection as the fault plan names it: "p1>b1#2".
func (w *Writer) appendConn(b []byte, client, server int32, gen uint32) []byte {
	b = append(b, w.names[client]...)
	b = append(b, '>')
	b = append(b, w.names[server]...)
	b = append(b, '#')
	return strconv.AppendUint(b, uint64(gen), 10)
}
