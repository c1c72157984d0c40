package storage

import (
	"iter"
	"slices"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// logStore is a partition's log (its [model.LogEntry] values, in offset order)
// kept as runs of entries instead of a []LogEntry holding each batch's
// records. An entry that continues the run before it the way a
// producer's next batch does (the next offsets, the same number of
// records, the same producer id, epoch, partition, transaction ordinal,
// transactional bit and coordinator epoch, sequence numbers moved by the
// run's step, records that continue the run's record pattern) joins it,
// and only its append time is kept for it: 8 bytes an entry. A run is
// 112 bytes.
//
// Records are not kept: a run's records follow a pattern (see
// [logRun.record]) and are made again when an entry is read. A batch
// whose records do not follow one (odd digests, records of several
// applications, a record partition other than the batch's, irregular
// message numbers, send times or create times, records an application
// handed over again: [model.Record.Resend]) is a run of its own, its
// records listed aside, in odd, exactly as appended.
//
// A transactional producer's log alternates the batches of a
// transaction and its marker, and under transaction version 2 each
// transaction has an epoch of its own, so its batches join none of the
// previous transaction's. Such alternations fold into a cyclic run (see
// [logCycle]): a unit of k batches (a run of k entries) and a marker,
// repeated with the same steps of the offsets, message numbers, send
// times, sequence numbers, epochs, transaction ordinals and coordinator
// epochs from unit to unit. Two units that repeat each other fold when
// the second's marker is appended, and a unit that repeats a cyclic
// run's last joins it when its marker is.
//
// The representation is canonical: the runs depend only on the entries
// appended, in order, and a truncation leaves what appending the
// remaining entries to an empty store would. runs and ats are nil until
// the first append since the partition's reset and non-nil after (as the
// []LogEntry they replace was); odd and cycs are nil when they are empty.
type logStore struct {
	runs []logRun
	// ats holds each entry's append time (simulated ns), by entry index.
	ats []sim.Time
	// odd holds the records of the runs flagged runListed, in run order.
	odd []model.Record
	// cycs holds the cycles of the cyclic runs, in run order.
	cycs []logCycle
}

// logCycle is a cyclic run's unit: entries 0 to k-1 of unit u are the
// run's batch template (the logRun, its n aside) moved u times by bstep,
// a run of k entries; entry k is marker moved u times by mstep.
type logCycle struct {
	k      int32
	marker logRun
	bstep  runStep
	mstep  runStep
}

// runStep is what a cyclic run's unit moves by from one unit to the next.
type runStep struct {
	first, n0    int64
	sent         sim.Time
	seq, txn, ce int32
	epoch        int16
}

// moved returns r moved u units of k+1 entries by st.
func (r *logRun) moved(st *runStep, u, k int32) logRun {
	v := *r
	v.from += u * (k + 1)
	v.first += int64(u) * st.first
	v.n0 += int64(u) * st.n0
	v.sent += sim.Time(u) * st.sent
	v.firstSeq += u * st.seq
	v.lastSeq += u * st.seq
	v.txn += u * st.txn
	v.coordEpoch += u * st.ce
	v.epoch += int16(u) * st.epoch
	return v
}

// stepOf returns the step that moves a to b.
func stepOf(a, b *logRun) runStep {
	return runStep{first: b.first - a.first, n0: b.n0 - a.n0, sent: b.sent - a.sent, seq: b.firstSeq - a.firstSeq,
		txn: b.txn - a.txn, ce: b.coordEpoch - a.coordEpoch, epoch: b.epoch - a.epoch}
}

// sub returns the ordinary run that holds entry k of run r, and the
// entry's index in it: r and k themselves unless r is cyclic, else unit
// u's batches or its marker, written to *tmp.
func (s *logStore) sub(r *logRun, k int32, tmp *logRun) (*logRun, int32) {
	if r.cyc == 0 {
		return r, k
	}
	c := &s.cycs[r.cyc-1]
	u, p := k/(c.k+1), k%(c.k+1)
	if p < c.k {
		*tmp = r.moved(&c.bstep, u, c.k)
		tmp.n, tmp.cyc = c.k, 0
		return tmp, p
	}
	*tmp = c.marker.moved(&c.mstep, u, c.k)
	return tmp, 0
}

// batches returns the number of batch entries among run r's first x
// entries (all of them unless r is cyclic).
func (s *logStore) batches(r *logRun, x int32) int32 {
	if r.cyc == 0 {
		return x
	}
	k := s.cycs[r.cyc-1].k
	return x/(k+1)*k + min(x%(k+1), k)
}

// runFlags are a run's yes-no facts.
type runFlags uint8

const (
	// runTxn: the batches are transactional (markers are too).
	runTxn runFlags = 1 << iota
	// runListed: the run is one entry whose records are odd[n0:n0+nrec].
	runListed
	// runEmptyRecs: the entries' records are an empty, non-nil slice
	// (nrec is 0; a nil slice, a marker's, has the flag clear).
	runEmptyRecs
)

// logRun is a run of n entries from entry index from. Entry from+k has
// offsets first+k*(span+1) to that plus span, sequence numbers
// firstSeq+k*dseq to lastSeq+k*dseq (int32 arithmetic, which wraps as
// the stored values did), nrec records, records k*nrec to k*nrec+nrec-1
// of the run's pattern (see [logRun.record]), and the run's other batch
// fields. dseq is 0 in a run of one entry, and so are dn and dsent when
// the run's records are one record (the pattern's steps are then unknown).
// A cyclic run (cyc > 0) is read through [logStore.sub].
type logRun struct {
	// first is entry 0's first offset.
	first int64
	pid   model.ProducerID
	// n0 is the pattern's first message number; for a listed run, where
	// its records start in odd.
	n0 int64
	// dn is the message-number step between consecutive records.
	dn int64
	// sent is the first record's SentAt and dsent the step between
	// consecutive records' (simulated ns).
	sent, dsent sim.Time
	// dcreate is every record's CreateTime minus its SentAt (ns).
	dcreate sim.Time
	// from is the index of the run's first entry, n its entry count.
	from, n int32
	// span is each entry's LastOffset minus FirstOffset.
	span int32
	// nrec is each entry's record count.
	nrec int32
	// app is the records' application.
	app int32
	// part is the batches' partition, and their records'.
	part              int32
	firstSeq, lastSeq int32
	dseq              int32
	txn               int32
	coordEpoch        int32
	epoch             int16
	marker            model.MarkerType
	flags             runFlags
	// cyc is 0, or the 1-based index in logStore.cycs of the run's
	// cycle: the run is cyclic, n entries of whole units, and its other
	// fields are unit 0's batches'.
	cyc int32
}

// len returns the number of entries.
func (s *logStore) len() int { return len(s.ats) }

// record returns record g of run r's pattern: the record (r.app,
// r.n0+g*r.dn) with the world's original digest ([model.Digest] generation 0),
// sent to r.part at r.sent+g*r.dsent, created r.dcreate after that.
func (r *logRun) record(g int64) model.Record {
	id := model.RecordID{App: r.app, N: r.n0 + g*r.dn}
	sent := r.sent + sim.Time(g)*r.dsent
	return model.Record{ID: id, Digest: model.Digest(id, 0), Partition: r.part, SentAt: sent, CreateTime: sent + r.dcreate}
}

// fits reports whether rec is record g of r's pattern, with the steps dn
// and dsent. A record the application handed over again (Resend > 0) fits
// no pattern: it is listed.
func (r *logRun) fits(rec *model.Record, g int64, dn int64, dsent sim.Time) bool {
	return rec.ID.App == r.app && rec.ID.N == r.n0+g*dn && rec.SentAt == r.sent+sim.Time(g)*dsent &&
		rec.CreateTime == rec.SentAt+r.dcreate && rec.Partition == r.part && rec.Digest == model.Digest(rec.ID, 0) &&
		rec.Resend == 0
}

// head returns entry k of run r without its records (Batch.Records nil)
// and without its append time.
func (r *logRun) head(k int32) model.LogEntry {
	first := r.first + int64(k)*(int64(r.span)+1)
	return model.LogEntry{
		FirstOffset: first, LastOffset: first + int64(r.span),
		Batch: model.Batch{PID: r.pid, Partition: r.part, FirstSeq: r.firstSeq + k*r.dseq, LastSeq: r.lastSeq + k*r.dseq,
			Txn: r.txn, Epoch: r.epoch, Transactional: r.flags&runTxn != 0},
		CoordinatorEpoch: r.coordEpoch,
		Marker:           r.marker,
	}
}

// lastOffset returns the last offset of r's last entry, r not cyclic.
func (r *logRun) lastOffset() int64 {
	return r.first + int64(r.n)*(int64(r.span)+1) - 1
}

// runLast returns the last offset of run r's last entry.
func (s *logStore) runLast(r *logRun) int64 {
	if r.cyc == 0 {
		return r.lastOffset()
	}
	var tmp logRun
	v, k := s.sub(r, r.n-1, &tmp)
	return v.first + int64(k+1)*(int64(v.span)+1) - 1
}

// add appends e. Its records are read, not kept. A slice of s that is
// nil takes the memory of spare's (the storage a reset partition keeps),
// which is then nil.
func (s *logStore) add(e *model.LogEntry, spare *logStore) {
	i := len(s.ats)
	if i >= 1<<31-1 {
		panic("model: a partition log of 2^31 entries")
	}
	if s.runs == nil && spare.runs != nil {
		s.runs, s.ats, spare.runs, spare.ats = spare.runs, spare.ats, nil, nil
	}
	s.ats = append(s.ats, e.AppendedAt)
	if n := len(s.runs); n > 0 && s.runs[n-1].join(e) {
		return
	}
	s.runs = append(s.runs, s.newRun(e, int32(i), spare))
	if e.Marker != model.MarkerNone {
		s.fold(spare)
	}
}

// unitable reports whether run r can be a cyclic unit's batches.
func (r *logRun) unitable() bool {
	return r.cyc == 0 && r.marker == model.MarkerNone && r.flags&runListed == 0
}

// fold folds the runs that end with the marker run just added: into the
// cyclic run before them if they repeat its last unit, else, with the
// two runs before them, into a new cyclic run if they repeat those.
func (s *logStore) fold(spare *logStore) {
	n := len(s.runs)
	if n < 3 {
		return
	}
	m, a, prev := &s.runs[n-1], &s.runs[n-2], &s.runs[n-3]
	if !a.unitable() {
		return
	}
	if prev.cyc != 0 {
		c := &s.cycs[prev.cyc-1]
		if a.n != c.k {
			return
		}
		u := prev.n / (c.k + 1)
		b := prev.moved(&c.bstep, u, c.k)
		b.n, b.cyc = c.k, 0
		if b == *a && c.marker.moved(&c.mstep, u, c.k) == *m {
			prev.n += c.k + 1
			s.runs = s.runs[:n-2]
		}
		return
	}
	if n < 4 || prev.marker == model.MarkerNone {
		return
	}
	a0 := &s.runs[n-4]
	if !a0.unitable() || a0.n != a.n || a0.lastOffset()+1 != prev.first || prev.lastOffset()+1 != a.first {
		return
	}
	c := logCycle{k: a.n, marker: *prev, bstep: stepOf(a0, a), mstep: stepOf(prev, m)}
	if c.bstep.seq != a.lastSeq-a0.lastSeq || c.mstep.seq != m.lastSeq-prev.lastSeq || c.bstep.first != c.mstep.first ||
		a0.moved(&c.bstep, 1, c.k) != *a || prev.moved(&c.mstep, 1, c.k) != *m {
		return
	}
	r := *a0
	r.n, r.cyc = 2*(c.k+1), int32(len(s.cycs)+1)
	if s.cycs == nil && spare.cycs != nil {
		s.cycs, spare.cycs = spare.cycs, nil
	}
	s.cycs = append(s.cycs, c)
	s.runs = append(s.runs[:n-4], r)
}

// newRun returns the run of entry e alone, at index i, listing e's
// records in s.odd when they do not follow a pattern.
func (s *logStore) newRun(e *model.LogEntry, i int32, spare *logStore) logRun {
	b := &e.Batch
	r := logRun{first: e.FirstOffset, pid: b.PID, from: i, n: 1, span: int32(e.LastOffset - e.FirstOffset),
		nrec: int32(len(b.Records)), part: b.Partition, firstSeq: b.FirstSeq, lastSeq: b.LastSeq,
		txn: b.Txn, coordEpoch: e.CoordinatorEpoch, epoch: b.Epoch, marker: e.Marker}
	if b.Transactional {
		r.flags |= runTxn
	}
	recs := b.Records
	if len(recs) == 0 {
		if recs != nil {
			r.flags |= runEmptyRecs
		}
		return r
	}
	r0 := &recs[0]
	r.app, r.n0, r.sent, r.dcreate = r0.ID.App, r0.ID.N, r0.SentAt, r0.CreateTime-r0.SentAt
	if len(recs) > 1 {
		r.dn, r.dsent = recs[1].ID.N-r0.ID.N, recs[1].SentAt-r0.SentAt
	}
	for j := range recs {
		if !r.fits(&recs[j], int64(j), r.dn, r.dsent) {
			r.app, r.n0, r.dn, r.sent, r.dsent, r.dcreate = 0, int64(len(s.odd)), 0, 0, 0, 0
			r.flags |= runListed
			if s.odd == nil && spare.odd != nil {
				s.odd, spare.odd = spare.odd, nil
			}
			s.odd = append(s.odd, recs...)
			break
		}
	}
	return r
}

// join adds e to run r if e continues it, and reports whether it did.
func (r *logRun) join(e *model.LogEntry) bool {
	b := &e.Batch
	if r.flags&(runListed|runEmptyRecs) != 0 || r.cyc != 0 || r.marker != model.MarkerNone || e.Marker != model.MarkerNone || r.nrec == 0 ||
		int64(len(b.Records)) != int64(r.nrec) || e.LastOffset-e.FirstOffset != int64(r.span) ||
		b.PID != r.pid || b.Epoch != r.epoch || b.Partition != r.part || b.Txn != r.txn ||
		b.Transactional != (r.flags&runTxn != 0) || e.CoordinatorEpoch != r.coordEpoch {
		return false
	}
	last := r.head(r.n - 1)
	if e.FirstOffset != last.LastOffset+1 {
		return false
	}
	dseq := b.FirstSeq - last.Batch.FirstSeq
	if b.LastSeq-last.Batch.LastSeq != dseq || r.n > 1 && dseq != r.dseq {
		return false
	}
	g := int64(r.n) * int64(r.nrec)
	dn, dsent := r.dn, r.dsent
	if r.n == 1 && r.nrec == 1 {
		dn, dsent = b.Records[0].ID.N-r.n0, b.Records[0].SentAt-r.sent
	}
	for j := range b.Records {
		if !r.fits(&b.Records[j], g+int64(j), dn, dsent) {
			return false
		}
	}
	r.n++
	r.dseq, r.dn, r.dsent = dseq, dn, dsent
	return true
}

// run returns the index of the run holding entry i, 0 <= i < s.len().
func (s *logStore) run(i int) int {
	if n := len(s.runs); n > 0 && int(s.runs[n-1].from) <= i {
		return n - 1
	}
	j, _ := slices.BinarySearchFunc(s.runs, int32(i), func(r logRun, i int32) int {
		switch {
		case r.from+r.n <= i:
			return -1
		case r.from > i:
			return 1
		}
		return 0
	})
	return j
}

// search returns the index of the first entry whose last offset is at
// or above off, or s.len() if there is none.
func (s *logStore) search(off int64) int {
	lo, hi := 0, len(s.runs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.runLast(&s.runs[m]) < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(s.runs) {
		return s.len()
	}
	r := &s.runs[lo]
	if off <= r.first {
		return int(r.from)
	}
	if r.cyc != 0 {
		c := &s.cycs[r.cyc-1]
		u := (off - r.first) / c.bstep.first
		in := off - r.first - u*c.bstep.first
		i := int(r.from) + int(u)*int(c.k+1)
		if in >= int64(c.k)*(int64(r.span)+1) {
			return i + int(c.k)
		}
		return i + int(in/(int64(r.span)+1))
	}
	return int(r.from) + int((off-r.first)/(int64(r.span)+1))
}

// head returns entry i without its records, and its batch's max
// timestamp ([model.Batch.MaxTimestamp] of its records).
func (s *logStore) head(i int) (model.LogEntry, sim.Time) {
	var tmp logRun
	r0 := &s.runs[s.run(i)]
	r, k := s.sub(r0, int32(i)-r0.from, &tmp)
	e := r.head(k)
	e.AppendedAt = s.ats[i]
	return e, s.maxTimestamp(r, k)
}

// maxTimestamp returns the largest CreateTime of the records of entry k
// of run r (not cyclic), 0 for none.
func (s *logStore) maxTimestamp(r *logRun, k int32) sim.Time {
	var ts sim.Time
	if r.flags&runListed != 0 {
		for j, rec := range s.odd[r.n0 : r.n0+int64(r.nrec)] {
			if j == 0 || rec.CreateTime > ts {
				ts = rec.CreateTime
			}
		}
		return ts
	}
	g := int64(k) * int64(r.nrec)
	for j := int64(0); j < int64(r.nrec); j++ {
		if c := r.sent + sim.Time(g+j)*r.dsent + r.dcreate; j == 0 || c > ts {
			ts = c
		}
	}
	return ts
}

// entry returns entry i, its records in a new slice.
func (s *logStore) entry(i int) model.LogEntry {
	r := &s.runs[s.run(i)]
	return s.entryOf(r, int32(i)-r.from, nil)
}

// entryOf returns entry k of run r, its records carved from the front of
// *buf when buf is not nil (which must then hold them: see
// [logStore.records]), else in a new slice. A carved slice's capacity is
// its length.
func (s *logStore) entryOf(r *logRun, k int32, buf *[]model.Record) model.LogEntry {
	if r.cyc != 0 {
		var tmp logRun
		v, kk := s.sub(r, k, &tmp)
		return s.entryOfPlain(v, kk, buf)
	}
	return s.entryOfPlain(r, k, buf)
}

// entryOfPlain is entryOf for a run that is not cyclic.
func (s *logStore) entryOfPlain(r *logRun, k int32, buf *[]model.Record) model.LogEntry {
	e := r.head(k)
	e.AppendedAt = s.ats[r.from+k]
	if r.nrec == 0 {
		if r.flags&runEmptyRecs != 0 {
			e.Batch.Records = []model.Record{}
		}
		return e
	}
	var recs []model.Record
	if buf != nil {
		recs, *buf = (*buf)[:r.nrec:r.nrec], (*buf)[r.nrec:]
	} else {
		recs = make([]model.Record, r.nrec)
	}
	if r.flags&runListed != 0 {
		copy(recs, s.odd[r.n0:r.n0+int64(r.nrec)])
	} else {
		g := int64(k) * int64(r.nrec)
		for j := range recs {
			recs[j] = r.record(g + int64(j))
		}
	}
	e.Batch.Records = recs
	return e
}

// records returns the number of records of the entries from index i to
// j-1.
func (s *logStore) records(i, j int) int {
	n := 0
	if i >= j {
		return 0
	}
	for ri := s.run(i); ri < len(s.runs); ri++ {
		r := &s.runs[ri]
		if int(r.from) >= j {
			break
		}
		lo, hi := max(i, int(r.from)), min(j, int(r.from+r.n))
		if r.cyc != 0 {
			n += int(s.batches(r, int32(hi)-r.from)-s.batches(r, int32(lo)-r.from)) * int(r.nrec)
			continue
		}
		n += (hi - lo) * int(r.nrec)
	}
	return n
}

// heads yields the entries from index i on, in order, each without its
// records and with its batch's max timestamp. The entry is valid only
// until the next step.
func (s *logStore) heads(i int) iter.Seq2[*model.LogEntry, sim.Time] {
	return func(yield func(*model.LogEntry, sim.Time) bool) {
		if i >= s.len() {
			return
		}
		for j := s.run(i); j < len(s.runs); j++ {
			r0 := &s.runs[j]
			var tmp logRun
			for k0 := max(int32(i)-r0.from, 0); k0 < r0.n; k0++ {
				r, k := s.sub(r0, k0, &tmp)
				e := r.head(k)
				e.AppendedAt = s.ats[r0.from+k0]
				if !yield(&e, s.maxTimestamp(r, k)) {
					return
				}
			}
		}
	}
}

// lastOffset returns the last offset of entry i.
func (s *logStore) lastOffset(i int) int64 {
	var tmp logRun
	r0 := &s.runs[s.run(i)]
	r, k := s.sub(r0, int32(i)-r0.from, &tmp)
	return r.first + int64(k+1)*(int64(r.span)+1) - 1
}

// firstOffset returns the first offset of entry i.
func (s *logStore) firstOffset(i int) int64 {
	var tmp logRun
	r0 := &s.runs[s.run(i)]
	r, k := s.sub(r0, int32(i)-r0.from, &tmp)
	return r.first + int64(k)*(int64(r.span)+1)
}

// truncate removes the entries from index i on, leaving the store as
// appending the entries before i to an empty store would (but for the
// nil-ness of runs and ats, which stay non-nil).
func (s *logStore) truncate(i int) {
	if i >= s.len() {
		return
	}
	j := s.run(i)
	if r := &s.runs[j]; r.cyc != 0 {
		s.truncateCyclic(j, i)
		return
	}
	s.ats = s.ats[:i]
	if r := &s.runs[j]; int(r.from) == i {
		s.runs = s.runs[:j]
	} else {
		r.n = int32(i) - r.from
		if r.n == 1 {
			r.dseq = 0
			if r.nrec == 1 {
				r.dn, r.dsent = 0, 0
			}
		}
		s.runs = s.runs[:j+1]
	}
	s.trimOdd()
}

// trimOdd drops the odd records of the runs truncated away, and their
// cycles.
func (s *logStore) trimOdd() {
	end := int64(0)
	for k := len(s.runs) - 1; k >= 0; k-- {
		if r := &s.runs[k]; r.flags&runListed != 0 {
			end = r.n0 + int64(r.nrec)
			break
		}
	}
	if end == 0 {
		s.odd = nil
	} else {
		s.odd = s.odd[:end]
	}
	s.cutCycles()
}

// cutCycles drops the cycles of the runs truncated away.
func (s *logStore) cutCycles() {
	keep := 0
	for k := len(s.runs) - 1; k >= 0; k-- {
		if c := s.runs[k].cyc; c != 0 {
			keep = int(c)
			break
		}
	}
	if keep == 0 {
		s.cycs = nil
	} else {
		s.cycs = s.cycs[:keep]
	}
}

// truncateCyclic removes the entries from index i on, i inside the
// cyclic run j: the run keeps its whole units before i (two or more; one
// is its batches and marker as runs of their own), and the entries of
// the unit i cuts are appended again.
func (s *logStore) truncateCyclic(j, i int) {
	r := s.runs[j]
	c := s.cycs[r.cyc-1]
	u := (int32(i) - r.from) / (c.k + 1)
	start := int(r.from + u*(c.k+1))
	var again []model.LogEntry
	for x := start; x < i; x++ {
		again = append(again, s.entryOf(&r, int32(x)-r.from, nil))
	}
	s.ats = s.ats[:start]
	s.runs = s.runs[:j]
	s.trimOdd()
	switch {
	case u >= 2:
		r.n = u * (c.k + 1)
		s.runs = append(s.runs, r)
		s.cycs = append(s.cycs, c) // its index is r.cyc: the cycles before it stay
	case u == 1:
		r.n, r.cyc = c.k, 0
		s.runs = append(s.runs, r, c.marker)
	}
	var none logStore
	for x := range again {
		s.add(&again[x], &none)
	}
}

// all returns every entry, records included, in a new slice (the
// records of all in one new array); nil when runs is nil, empty when it
// is empty.
func (s *logStore) all() []model.LogEntry {
	if s.runs == nil {
		return nil
	}
	out := make([]model.LogEntry, 0, s.len())
	buf := make([]model.Record, s.records(0, s.len()))
	for j := range s.runs {
		r := &s.runs[j]
		for k := range r.n {
			out = append(out, s.entryOf(r, k, &buf))
		}
	}
	return out
}

// appendBelow appends to dst the entries whose last offset is below
// below, in log order, their records carved from recs (grown as needed:
// an entry keeps pointing into the array it was carved from), and
// returns both: all's entries without its allocations, for a caller that
// reuses the two buffers.
func (s *logStore) appendBelow(dst []model.LogEntry, recs []model.Record, below int64) ([]model.LogEntry, []model.Record) {
	// Room for every entry and record at once: grown by doubling, a long
	// log's buffers would hold up to twice what they need, and copy it.
	if n := s.search(below); n > 0 {
		dst = slices.Grow(dst, n)
		recs = slices.Grow(recs, s.records(0, n))
	}
	for j := range s.runs {
		r0 := &s.runs[j]
		var tmp logRun
		for k0 := range r0.n {
			r, k := s.sub(r0, k0, &tmp)
			if r.head(k).LastOffset >= below {
				return dst, recs // the log is in offset order
			}
			n := len(recs)
			recs = slices.Grow(recs, int(r.nrec))[:n+int(r.nrec)]
			buf := recs[n:]
			dst = append(dst, s.entryOfPlain(r, k, &buf))
		}
	}
	return dst, recs
}

// spareWith returns the memory of s and of spare, emptied, the larger of
// the two for each slice, to keep aside for the appends after a reset.
func (s *logStore) spareWith(spare logStore) logStore {
	return logStore{runs: model.SpareOf(s.runs, spare.runs), ats: model.SpareOf(s.ats, spare.ats), odd: model.SpareOf(s.odd, spare.odd),
		cycs: model.SpareOf(s.cycs, spare.cycs)}
}
