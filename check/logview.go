package check

import (
	"cmp"

	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/sim"
)

// logView is the run as the observation stream tells it, shared by the
// tally and the invariants: the partition logs, what a read_committed
// consumer sees of them and when, and what the applications were told.
// The [Suite] feeds it each observation before anyone else, so that their
// Observe sees what that observation committed (commits, aborted).
type logView struct {
	// logs holds, per partition, the appended data entries and markers in
	// the order observed, which is offset order, compactly (logentry.go):
	// an entry keeps no slice of the batch's. listed holds the records of
	// the entries whose records are not a range of message numbers.
	logs   []logStore
	listed []logRec
	// open holds, per (pid, partition), the indices in logs of the
	// transactional entries whose transaction has not ended yet (a key
	// whose transaction ended keeps its emptied list, for the next).
	open openTable[int]
	// recs holds each record's committed copies so far, its outcome and
	// whether its transaction was reported committed (records.go). A
	// record sent through several producer instances (a takeover, a
	// restart that resends) can have several outcomes: the first
	// acknowledgement wins, else the first failure. The records of
	// transactions the applications were told committed are those of
	// [model.ObsTxnOutcome] with Flag.
	recs recTable
	// maxN is, per (app, partition the application sent to), the largest
	// message number committed so far (first copies only).
	maxN pairList[int64]
	// extra counts the extra copies committed so far (a record's second,
	// third, ... commit): while it is 0, no record is committed twice.
	extra int64

	// commits lists the records the current observation committed, in
	// commit order; aborted counts the records it discarded (an ABORT
	// marker). Both are reset at every observation.
	commits []commit
	aborted int64

	// end is the run's end time (ObsRunEnd).
	end sim.Time

	// starts holds, per partition, the highest log start offset a broker
	// reported ([model.ObsLogStart]): retention or DeleteRecords deleted
	// the records below it (deleted.go).
	starts []int64

	// tx is what the stream tells of transactions (txnview.go).
	tx txnFacts

	// otx are the transactions the leaders' appends show open, live, in
	// replicated runs too, for the consumer invariants (opentxns.go).
	otx openTxns

	// replicated: appends commit nothing; the final logs do
	// (Config.Replicated).
	replicated bool

	// lost caches lostAcked's answer once the run ended (until the next
	// run end).
	lost     []model.RecordID
	lostDone bool

	// views holds, while the suite judges (Finish), each partition's
	// read_committed view (rcViews); it is emptied once the suite has
	// judged. rc is its scratch.
	views []rcView
	rc    rcScratch
}

// commit is one record becoming visible to read_committed consumers:
// record rec of the entry at index entry of partition part's log.
type commit struct {
	part  int32
	rec   int32
	entry int
	// again: the record was committed before (an extra copy). Otherwise
	// reordered tells whether a record of the same application numbered
	// after (> this one's) was committed on the partition before it.
	again, reordered bool
	after            int64
}

// reset empties the view for a new run, keeping its memory (reuse.go).
func (lv *logView) reset(replicated bool) {
	for i := range lv.logs {
		lv.logs[i].reset()
	}
	if lv.logs == nil {
		lv.logs = []logStore{}
	}
	lv.logs = lv.logs[:0] // the stores behind the length keep their memory
	lv.listed = truncated(lv.listed)
	lv.open.reset()
	lv.recs.reset()
	lv.maxN = truncated(lv.maxN)
	lv.extra = 0
	lv.commits = truncated(lv.commits)
	lv.aborted = 0
	lv.end = 0
	lv.starts = truncated(lv.starts)
	lv.tx.reset()
	lv.otx.reset()
	lv.replicated = replicated
	lv.lost = truncated(lv.lost)
	lv.lostDone = false
	lv.views = truncatedViews(lv.views)
	lv.rc.reset()
}

// appended reports whether o is a data batch appended to a log: a
// verdict that neither refused it nor answered it as a duplicate.
func appended(o *model.Obs) bool {
	return o.Kind == model.ObsVerdict && o.Result.Err == model.ErrNone && !o.Result.Duplicate
}

func (lv *logView) observe(o *model.Obs) {
	lv.commits = lv.commits[:0]
	lv.aborted = 0
	switch o.Kind {
	case model.ObsOutcome:
		lv.recs.addOutcome(&o.Outcome)
	case model.ObsTxnOutcome:
		if o.Flag {
			for _, id := range o.IDs {
				lv.recs.setTxnCommitted(id)
			}
		}
	case model.ObsVerdict:
		if appended(o) && !lv.replicated {
			lv.appendData(o)
		}
		lv.otx.observe(o)
	case model.ObsMarker:
		if o.Err == model.ErrNone && !lv.replicated {
			lv.appendMarker(o)
		}
		lv.otx.observe(o)
	case model.ObsFinalLog:
		lv.finalLog(o)
	case model.ObsLogStart:
		lv.logStart(o)
	case model.ObsRunEnd:
		// A scripted run may be judged at several points, each with
		// its own run end: the lost records are worked out afresh.
		lv.end = o.At
		lv.lost, lv.lostDone = truncated(lv.lost), false
	}
	lv.tx.observe(o)
}

// finalLog builds a replicated partition's committed view from its final
// log, entry by entry, as if each were appended now.
func (lv *logView) finalLog(o *model.Obs) {
	for i := range o.Log {
		e := &o.Log[i]
		if e.Marker != model.MarkerNone {
			lv.appendMarker(&model.Obs{Kind: model.ObsMarker, At: e.AppendedAt, Partition: o.Partition, PID: e.Batch.PID, Epoch: e.Batch.Epoch,
				Marker: e.Marker, Result: model.AppendResult{FirstOffset: e.FirstOffset, LastOffset: e.LastOffset}})
			continue
		}
		lv.appendData(&model.Obs{Kind: model.ObsVerdict, At: e.AppendedAt, Batch: e.Batch,
			Result: model.AppendResult{FirstOffset: e.FirstOffset, LastOffset: e.LastOffset}})
	}
}

// appendTo appends batch b's entry (offsets first..last, appended at at,
// of marker type m) to partition p's log and returns its index.
func (lv *logView) appendTo(p int32, b *model.Batch, first, last int64, at sim.Time, m model.MarkerType) int {
	i, _ := lv.appendEntry(p, b, first, last, at, m)
	return i
}

// appendEntry is appendTo, also returning the entry appended.
func (lv *logView) appendEntry(p int32, b *model.Batch, first, last int64, at sim.Time, m model.MarkerType) (int, logEntry) {
	for len(lv.logs) <= int(p) {
		if n := len(lv.logs); n < cap(lv.logs) {
			lv.logs = lv.logs[:n+1]
			lv.logs[n].reset()
		} else {
			lv.logs = append(lv.logs, logStore{runs: []logRun{}, ats: []sim.Time{}})
		}
	}
	e := makeEntry(b, first, last, at, m, &lv.listed)
	return lv.logs[p].add(e), e
}

// appendData records an appended data batch: committed at once, or, for a
// transactional one, when its transaction commits on the partition.
func (lv *logView) appendData(o *model.Obs) {
	p := o.Batch.Partition
	i, e := lv.appendEntry(p, &o.Batch, o.Result.FirstOffset, o.Result.LastOffset, o.At, model.MarkerNone)
	if o.Batch.Transactional {
		lv.open.add([2]int64{int64(o.Batch.PID), int64(p)}, i)
		return
	}
	lv.commitEntry(p, i, &e) // the entry at hand, not read back from the log
}

// appendMarker records a written transaction marker: a COMMIT commits the
// pid's open transactional entries on the partition, an ABORT discards
// them.
func (lv *logView) appendMarker(o *model.Obs) {
	p := o.Partition
	lv.appendTo(p, &model.Batch{Partition: p, PID: o.PID, Epoch: o.Epoch, FirstSeq: model.NoSequence, LastSeq: model.NoSequence, Transactional: true},
		o.Result.FirstOffset, o.Result.FirstOffset, o.At, o.Marker)
	pend := lv.open.find([2]int64{int64(o.PID), int64(p)})
	if pend == nil {
		return
	}
	for _, i := range pend.list {
		if o.Marker == model.MarkerCommit {
			lv.commit(p, i)
		} else {
			lv.aborted += int64(lv.logs[p].at(i).nrec)
		}
	}
	pend.list = pend.list[:0]
}

// commit makes entry i of partition p's log visible, record by record.
func (lv *logView) commit(p int32, i int) {
	e := lv.logs[p].at(i)
	lv.commitEntry(p, i, &e)
}

// commitEntry is commit with entry i, e, at hand.
func (lv *logView) commitEntry(p int32, i int, e *logEntry) {
	for j := range int(e.nrec) {
		r := lv.rec(p, e, j)
		c := commit{part: p, entry: i, rec: int32(j)}
		n := lv.recs.addCopy(r.id)
		if n > 1 {
			c.again = true
			lv.extra++
		} else {
			m := lv.maxN.of(int64(r.id.App), r.part)
			if m.seen && r.id.N < m.v {
				c.reordered, c.after = true, m.v
			} else {
				m.v, m.seen = r.id.N, true
			}
		}
		lv.commits = append(lv.commits, c)
	}
}

// entry returns the log entry a commit refers to.
func (lv *logView) entry(c commit) logEntry { return lv.logs[c.part].at(c.entry) }

// log returns partition p's log (nil when nothing was appended to it).
func (lv *logView) log(p int32) *logStore {
	if p < 0 || int(p) >= len(lv.logs) {
		return nil
	}
	return &lv.logs[p]
}

// lostAcked returns the acknowledged records never committed, by
// application then message number. A record sent in a transaction is
// acknowledged at its produce acknowledgement, but only its transaction's
// commit promises that it is committed: it counts here only when the
// application was told its transaction committed. An acknowledged record
// of a transaction that aborted or failed is not lost; the transaction's
// own outcome reported that it did not commit. Call it once the run ended.
func (lv *logView) lostAcked() []model.RecordID {
	if lv.lostDone {
		return lv.lost
	}
	lv.lostDone = true
	t := &lv.recs
	for i := range t.pages {
		p := &t.pages[i]
		for j := range p.slots {
			s := &p.slots[j]
			if s.flags&recAcked == 0 || s.flags&(recTxn|recTxnCommitted) == recTxn {
				continue
			}
			if id := p.id(j); !t.inLog(id, s) {
				lv.lost = append(lv.lost, id)
			}
		}
	}
	return lv.lost // in page order: by application, then message number
}

// compareIDs orders record ids by application, then message number.
func compareIDs(a, b model.RecordID) int {
	if c := cmp.Compare(a.App, b.App); c != 0 {
		return c
	}
	return cmp.Compare(a.N, b.N)
}

// inLog reports whether record id (its slot s) has a copy in the
// committed view.
func (t *recTable) inLog(id model.RecordID, s *recSlot) bool {
	return s.copies != 0 && (s.copies != recCopiesMax || t.copiesOver[id] != 0)
}

// observe reads an append (ObsVerdict) or a marker (ObsMarker).
func (t *openTxns) observe(o *model.Obs) {
	switch {
	case appended(o) && o.Batch.Transactional && o.Batch.PID >= 0:
		pt := t.part(o.Batch.Partition)
		for _, x := range pt.open {
			if x.PID == o.Batch.PID {
				return
			}
		}
		pt.open = append(pt.open, model.AbortedTransaction{PID: o.Batch.PID, FirstOffset: o.Result.FirstOffset})
	case o.Kind == model.ObsMarker && o.Err == model.ErrNone:
		pt := t.part(o.Partition)
		for i, x := range pt.open {
			if x.PID == o.PID {
				pt.open = append(pt.open[:i], pt.open[i+1:]...)
				break
			}
		}
		pt.addMarker(txnMarker{pid: o.PID, off: o.Result.FirstOffset, commit: o.Marker == model.MarkerCommit})
	}
}
