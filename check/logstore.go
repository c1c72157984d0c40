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
// of one entry is 72 bytes. A transactional producer's units (k batches,
// a run, and their marker, each transaction at an epoch of its own under
// transaction version 2) that repeat each other with the same steps of
// offsets, message numbers, sequence numbers and epochs fold into one
// cyclic run (see [logCycle]), as model/storage's log does. The runs
// depend only on the entries appended, in order: equal logs are equal
// stores.
type logStore struct {
	runs []logRun
	// ats holds each entry's append time (simulated ns).
	ats []sim.Time
	// txn counts the transactional entries and markers.
	txn int
	// cycs holds the cyclic runs' cycles, in run order.
	cycs []logCycle
}

// logCycle is a cyclic run's unit: entries 0 to k-1 of unit u are the
// run's batch run (the logRun with n = k and no cycle) moved u times by
// bstep; entry k is marker moved u times by mstep.
type logCycle struct {
	k            int32
	marker       logRun
	bstep, mstep runStep
}

// runStep is what a cyclic run's unit moves by from one unit to the next.
type runStep struct {
	first, n0 int64
	seq       int32
	epoch     int16
}

// moved returns r moved u units of k+1 entries by st.
func (r *logRun) moved(st *runStep, u, k int32) logRun {
	v := *r
	v.from += u * (k + 1)
	v.e.first += int64(u) * st.first
	v.e.n0 += int64(u) * st.n0
	v.e.firstSeq += u * st.seq
	v.e.lastSeq += u * st.seq
	v.e.epoch += int16(u) * st.epoch
	return v
}

// stepOf returns the step that moves a to b.
func stepOf(a, b *logRun) runStep {
	return runStep{first: b.e.first - a.e.first, n0: b.e.n0 - a.e.n0, seq: b.e.firstSeq - a.e.firstSeq, epoch: b.e.epoch - a.e.epoch}
}

// sub returns the run that holds entry k of run r, not cyclic, and the
// entry's index in it: r and k unless r is cyclic, else unit u's
// batches or its marker, written to *tmp.
func (s *logStore) sub(r *logRun, k int32, tmp *logRun) (*logRun, int32) {
	if r.e.cyc == 0 {
		return r, k
	}
	c := &s.cycs[r.e.cyc-1]
	u, p := k/(c.k+1), k%(c.k+1)
	if p < c.k {
		*tmp = r.moved(&c.bstep, u, c.k)
		tmp.n, tmp.e.cyc = c.k, 0
		return tmp, p
	}
	*tmp = c.marker.moved(&c.mstep, u, c.k)
	return tmp, 0
}

// subAt returns the run that holds offset off of run r, which holds
// it, not cyclic (see sub), and the entry's index in it.
func (s *logStore) subAt(r *logRun, off int64, tmp *logRun) (*logRun, int32) {
	if r.e.cyc == 0 {
		return r, r.entryOf(off)
	}
	c := &s.cycs[r.e.cyc-1]
	u := (off - r.e.first) / c.bstep.first
	k := int32(u) * (c.k + 1)
	if in := off - r.e.first - u*c.bstep.first; in >= int64(c.k)*(int64(r.e.span)+1) {
		k += c.k
	} else {
		k += int32(in / (int64(r.e.span) + 1))
	}
	return s.sub(r, k, tmp)
}

// runLast returns the last offset of run r's last entry.
func (s *logStore) runLast(r *logRun) int64 {
	if r.e.cyc == 0 {
		return r.last()
	}
	var tmp logRun
	v, k := s.sub(r, r.n-1, &tmp)
	return v.e.first + int64(k+1)*(int64(v.e.span)+1) - 1
}

// unitable reports whether run r can be a cyclic unit's batches.
func (r *logRun) unitable() bool {
	return r.e.cyc == 0 && r.e.marker == 0 && r.e.flags&entryListed == 0
}

// fold folds the runs that end with the marker run just added: into the
// cyclic run before them if they repeat its last unit, else, with the
// two runs before them, into a new cyclic run if they repeat those.
func (s *logStore) fold() {
	n := len(s.runs)
	if n < 3 {
		return
	}
	m, a, prev := &s.runs[n-1], &s.runs[n-2], &s.runs[n-3]
	if !a.unitable() {
		return
	}
	if prev.e.cyc != 0 {
		c := &s.cycs[prev.e.cyc-1]
		if a.n != c.k {
			return
		}
		u := prev.n / (c.k + 1)
		b := prev.moved(&c.bstep, u, c.k)
		b.n, b.e.cyc = c.k, 0
		if b == *a && c.marker.moved(&c.mstep, u, c.k) == *m {
			prev.n += c.k + 1
			s.runs = s.runs[:n-2]
		}
		return
	}
	if n < 4 || prev.e.marker == 0 {
		return
	}
	a0 := &s.runs[n-4]
	if !a0.unitable() || a0.n != a.n || a0.last()+1 != prev.e.first || prev.last()+1 != a.e.first {
		return
	}
	c := logCycle{k: a.n, marker: *prev, bstep: stepOf(a0, a), mstep: stepOf(prev, m)}
	if c.bstep.seq != a.e.lastSeq-a0.e.lastSeq || c.mstep.seq != m.e.lastSeq-prev.e.lastSeq || c.bstep.first != c.mstep.first ||
		a0.moved(&c.bstep, 1, c.k) != *a || prev.moved(&c.mstep, 1, c.k) != *m {
		return
	}
	r := *a0
	r.n, r.e.cyc = 2*(c.k+1), int32(len(s.cycs)+1)
	s.cycs = append(s.cycs, c)
	s.runs = append(s.runs[:n-4], r)
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
	// cyc is 0, or the 1-based index in logStore.cycs of the run's
	// cycle (in the head's padding: not an entry's field).
	cyc int32
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
	s.runs, s.ats, s.txn, s.cycs = truncated(s.runs), truncated(s.ats), 0, truncated(s.cycs)
}

// len returns the number of entries.
func (s *logStore) len() int {
	if s == nil {
		return 0
	}
	return len(s.ats)
}

// shift returns run r's k-th entry, without its append time; r is not
// cyclic (see logStore.sub).
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
	if n := len(s.runs); n > 0 && s.runs[n-1].e.cyc == 0 {
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
	if e.marker != 0 {
		s.fold()
	}
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
	var tmp logRun
	r0 := &s.runs[s.run(i)]
	r, k := s.sub(r0, int32(i)-r0.from, &tmp)
	e := r.shift(k)
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
	var tmp logRun
	r, k := c.s.sub(&runs[c.r], int32(i)-runs[c.r].from, &tmp)
	e := r.shift(k)
	e.at = c.s.ats[i]
	return e
}

// entryOf returns the index in run r of the entry holding offset off,
// which r holds; r is not cyclic (see logStore.subAt).
func (r *logRun) entryOf(off int64) int32 {
	return int32((off - r.e.first) / (int64(r.e.span) + 1))
}

// runNear is runByOffset, trying the run *hint and the next one before
// searching; *hint is set to the run found.
func (s *logStore) runNear(off int64, hint *int) int {
	for h := *hint; h < len(s.runs) && h <= *hint+1; h++ {
		if r := &s.runs[h]; r.e.first <= off && off <= s.runLast(r) {
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
		if s.runLast(&s.runs[m]) < off {
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

// last returns the last offset of run r's last entry, r not cyclic
// (see logStore.runLast).
func (r *logRun) last() int64 { return r.e.first + int64(r.n)*(int64(r.e.span)+1) - 1 }
