package check

import (
	"math"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// logStore is one partition's log as runs of entries: an entry that
// continues the previous one the way a producer's next batch does (the
// next offsets, the next message numbers and sequence numbers by the same
// steps, the same producer, epoch and kind, records as a range) joins its
// run, and only its append time is kept for it, 8 bytes an entry. A run
// of one entry is 72 bytes. The runs depend only on the entries appended,
// in order: equal logs are equal stores.
type logStore struct {
	runs []logRun
	// ats holds each entry's append time (simulated ns).
	ats []sim.Time
	// txn counts the transactional entries and markers.
	txn int
}

// runHead is a run's first entry without its append time: a
// [logEntry]'s other fields, 56 bytes where the entry takes 64.
type runHead struct {
	first               int64
	pid                 model.ProducerID
	n0                  int64
	span, nrec, app, dn int32
	firstSeq, lastSeq   int32
	epoch               int16
	marker              model.MarkerType
	flags               entryFlags
}

// headOf returns e's run head.
func headOf(e *logEntry) runHead {
	return runHead{first: e.first, pid: e.pid, n0: e.n0, span: e.span, nrec: e.nrec, app: e.app, dn: e.dn,
		firstSeq: e.firstSeq, lastSeq: e.lastSeq, epoch: e.epoch, marker: e.marker, flags: e.flags}
}

// entry returns the entry h heads, its append time zero.
func (h *runHead) entry() logEntry {
	return logEntry{first: h.first, pid: h.pid, n0: h.n0, span: h.span, nrec: h.nrec, app: h.app, dn: h.dn,
		firstSeq: h.firstSeq, lastSeq: h.lastSeq, epoch: h.epoch, marker: h.marker, flags: h.flags}
}

// logRun is a run of n entries from index from: entry from+k is e with
// its offsets moved by k*(e.span+1), its message numbers by k*e.nrec*dn,
// its sequence numbers by k*dseq and its append time ats[from+k] (e.at
// is not kept). dn is the step between the message numbers of the run's
// records, e.dn's (1 in a run of one entry of one record): a run of
// single records spread over partitions round-robin steps by the number
// of partitions.
type logRun struct {
	e    runHead
	from int32
	n    int32
	dseq int32
	dn   int32
}

// reset empties the store, keeping its memory.
func (s *logStore) reset() {
	s.runs, s.ats, s.txn = truncated(s.runs), truncated(s.ats), 0
}

// len returns the number of entries.
func (s *logStore) len() int {
	if s == nil {
		return 0
	}
	return len(s.ats)
}

// shift returns run r's k-th entry, without its append time.
func (r *logRun) shift(k int32) logEntry {
	e := r.e.entry()
	if k > 0 {
		e.first += int64(k) * (int64(e.span) + 1)
		if e.flags&entryListed == 0 {
			e.n0 += int64(k) * int64(e.nrec) * int64(r.dn)
		}
		e.firstSeq += k * r.dseq
		e.lastSeq += k * r.dseq
	}
	return e
}

// add appends e and returns its index.
func (s *logStore) add(e logEntry) int {
	i := int32(len(s.ats))
	s.ats = append(s.ats, e.at)
	if e.marker != 0 || e.transactional() {
		s.txn++
	}
	e.at = 0
	if n := len(s.runs); n > 0 {
		r := &s.runs[n-1]
		last := r.shift(r.n - 1)
		dseq := e.firstSeq - last.firstSeq
		// The run's record step: a run of one single-record entry takes
		// the step to e's record.
		dn := r.dn
		if r.n == 1 && r.e.nrec == 1 {
			if d := e.n0 - last.n0; d >= 1 && d <= math.MaxInt32 {
				dn = int32(d)
			}
		}
		if e.marker == 0 && last.marker == 0 && e.flags == last.flags && e.flags&entryListed == 0 && e.span >= 0 &&
			e.first == last.last()+1 && e.span == last.span && e.nrec == last.nrec && e.app == last.app && e.dn == last.dn &&
			(e.nrec <= 1 || e.dn == dn) && e.n0 == last.n0+int64(last.nrec)*int64(dn) && e.pid == last.pid && e.epoch == last.epoch &&
			e.lastSeq-last.lastSeq == dseq && (r.n == 1 || dseq == r.dseq) {
			r.n++
			r.dseq, r.dn = dseq, dn
			return int(i)
		}
	}
	s.runs = append(s.runs, logRun{e: headOf(&e), from: i, n: 1, dn: max(e.dn, 1)})
	return int(i)
}

// run returns the index of the run holding entry i.
func (s *logStore) run(i int) int {
	if n := len(s.runs); n > 0 && int(s.runs[n-1].from) <= i {
		return n - 1
	}
	// The first run that ends after entry i holds it.
	lo, hi := 0, len(s.runs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r := &s.runs[m]; int(r.from+r.n) <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// at returns entry i.
func (s *logStore) at(i int) logEntry {
	r := &s.runs[s.run(i)]
	e := r.shift(int32(i) - r.from)
	e.at = s.ats[i]
	return e
}

// logCursor reads a log's entries in increasing index order, following
// its runs instead of searching them for each entry.
type logCursor struct {
	s *logStore
	r int // the run of the last entry read
}

// at returns entry i, which is not below the last entry read.
func (c *logCursor) at(i int) logEntry {
	runs := c.s.runs
	for int(runs[c.r].from+runs[c.r].n) <= i {
		c.r++
	}
	r := &runs[c.r]
	e := r.shift(int32(i) - r.from)
	e.at = c.s.ats[i]
	return e
}

// entryOf returns the index in run r of the entry holding offset off,
// which r holds.
func (r *logRun) entryOf(off int64) int32 {
	return int32((off - r.e.first) / (int64(r.e.span) + 1))
}

// runNear is runByOffset, trying the run *hint and the next one before
// searching; *hint is set to the run found.
func (s *logStore) runNear(off int64, hint *int) int {
	for h := *hint; h < len(s.runs) && h <= *hint+1; h++ {
		if r := &s.runs[h]; r.e.first <= off && off <= r.last() {
			*hint = h
			return h
		}
	}
	ri := s.runByOffset(off)
	if ri >= 0 {
		*hint = ri
	}
	return ri
}

// runByOffset returns the index of the run holding offset off, or -1.
func (s *logStore) runByOffset(off int64) int {
	if s == nil {
		return -1
	}
	// The first run whose last offset is at or after off holds it, if
	// it starts at or before off.
	lo, hi := 0, len(s.runs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.runs[m].last() < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(s.runs) || s.runs[lo].e.first > off {
		return -1
	}
	return lo
}

// last returns the last offset of run r's last entry.
func (r *logRun) last() int64 { return r.e.first + int64(r.n)*(int64(r.e.span)+1) - 1 }
